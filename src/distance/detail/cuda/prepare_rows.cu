// CUDA row preparation (see backend.hpp): one warp per row, in double (the mean, the sum and the
// norm are exact enough that only the final rounding to the compute type remains); a pass more
// over the row for each of the mean, the sum and the norm. Memory-bound and O((m + n) d): small
// next to the contraction it feeds.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda/check.hpp"
#include "distance/detail/backend.hpp"
#include "distance/detail/element_load.hpp"
#include "distance/detail/norm_scale.hpp"

namespace cudist::detail::cuda {
namespace {

constexpr int kWarpsPerBlock = 8;

template <class C>
__device__ C warp_sum(C v) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

template <class C, class Elem>
struct PrepParams {
  Elem const* in;
  C* out;
  std::int64_t rows, d, ld_in, ld_out;
  C const* mean_weights;
  C const* col_scale;
  C* norms;
  bool center, normalize_sum;
};

template <class C, class Elem>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) prepare_rows_kernel(PrepParams<C, Elem> const p) {
  std::int64_t const row = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  int const lane = static_cast<int>(threadIdx.x % 32);
  if (row >= p.rows) return;
  Elem const* src = p.in + row * p.ld_in;
  C* dst = p.out + row * p.ld_out;
  double shift = 0, divisor = 1;
  if (p.center) {
    double s = 0, ws = 0;
    for (std::int64_t k = lane; k < p.d; k += 32) {
      double const w = p.mean_weights ? static_cast<double>(p.mean_weights[k]) : 1.0;
      s += w * load_as<double>(src[k]);
      ws += w;
    }
    shift = warp_sum(s) / warp_sum(ws);
  }
  if (p.normalize_sum) {
    double s = 0;
    for (std::int64_t k = lane; k < p.d; k += 32) s += load_as<double>(src[k]) - shift;
    divisor = warp_sum(s);
  }
  auto const value = [&](std::int64_t k) {
    double const v = (load_as<double>(src[k]) - shift) / divisor;
    return p.col_scale ? v * static_cast<double>(p.col_scale[k]) : v;
  };
  double sq = 0;
  if (p.norms) {
    for (std::int64_t k = lane; k < p.d; k += 32) sq += value(k) * value(k);
    sq = warp_sum(sq);
  }
  double const unit = norm_scale(sq);
  for (std::int64_t k = lane; k < p.d; k += 32) dst[k] = static_cast<C>(value(k) * unit);
  if (p.norms && lane == 0) p.norms[row] = static_cast<C>(sqrt(sq) * unit);
}

/// Elements of Elem a 16-byte load holds (one where Elem is wider).
template <class Elem>
constexpr int kConvertVector = sizeof(Elem) >= 16 ? 1 : static_cast<int>(16 / sizeof(Elem));

/// A conversion and nothing else (no mean, sum, scale or norms), of dense rows: a flat array of
/// `count` elements, kVec of them (16 bytes of Elem) a load, each converted as prepare_rows_kernel
/// converts it (through double). A warp a row read 2-byte elements 64 bytes a request: the float32
/// copies of K4's bfloat16 rows took 3.2 ms, 1.45 TB/s.
template <class C, class Elem>
__global__ void __launch_bounds__(256) convert_kernel(Elem const* in, C* out, std::int64_t count) {
  constexpr int kVec = kConvertVector<Elem>;
  struct alignas(kVec * sizeof(Elem)) In {
    Elem e[kVec];
  };
  struct alignas(kVec * sizeof(C) >= 16 ? 16 : kVec * sizeof(C)) Out {
    C e[kVec];
  };
  std::int64_t const stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t const first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::int64_t const vectors = count / kVec;
  for (std::int64_t v = first; v < vectors; v += stride) {
    In const a = reinterpret_cast<In const*>(in)[v];
    Out b;
#pragma unroll
    for (int k = 0; k < kVec; ++k) b.e[k] = static_cast<C>(load_as<double>(a.e[k]));
    reinterpret_cast<Out*>(out)[v] = b;
  }
  for (std::int64_t k = vectors * kVec + first; k < count; k += stride) {
    out[k] = static_cast<C>(load_as<double>(in[k]));
  }
}

template <class C, class Elem>
void launch(RowPrep const& rp, cudaStream_t stream) {
  bool const convert_only = rp.mean_weights == nullptr && !rp.center && !rp.normalize_sum &&
                            rp.col_scale == nullptr && rp.norms == nullptr;
  bool const dense = rp.in.stride == rp.in.cols && rp.out.stride == rp.out.cols &&
                     reinterpret_cast<std::uintptr_t>(rp.in.data) % 16 == 0 &&
                     reinterpret_cast<std::uintptr_t>(rp.out.data) % 16 == 0;
  if (convert_only && dense) {
    std::int64_t const count = rp.in.rows * rp.in.cols;
    // A thread a vector, the grid's threads striding past 2^28 vectors.
    std::int64_t const blocks = std::clamp<std::int64_t>((count / kConvertVector<Elem> + 255) / 256, 1, 1 << 20);
    convert_kernel<C, Elem><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(
        static_cast<Elem const*>(rp.in.data), static_cast<C*>(rp.out.data), count);
    CUDIST_CHECK_LAUNCH();
    return;
  }
  PrepParams<C, Elem> p{static_cast<Elem const*>(rp.in.data), static_cast<C*>(rp.out.data),
                        rp.in.rows, rp.in.cols, rp.in.stride, rp.out.stride,
                        static_cast<C const*>(rp.mean_weights), static_cast<C const*>(rp.col_scale),
                        static_cast<C*>(rp.norms), rp.center, rp.normalize_sum};
  auto const blocks = static_cast<unsigned>((rp.in.rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  prepare_rows_kernel<C, Elem><<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(p);
  CUDIST_CHECK_LAUNCH();
}

template <class C>
void launch_from(RowPrep const& rp, cudaStream_t stream) {
  switch (rp.in.dtype) {
    case DType::kFloat32: return launch<C, float>(rp, stream);
    case DType::kFloat64: return launch<C, double>(rp, stream);
    case DType::kFloat16: return launch<C, half_t>(rp, stream);
    case DType::kBFloat16: return launch<C, bfloat16_t>(rp, stream);
    case DType::kUInt8: return launch<C, std::uint8_t>(rp, stream);
    case DType::kInt8: return launch<C, std::int8_t>(rp, stream);
    case DType::kInt16: return launch<C, std::int16_t>(rp, stream);
    case DType::kInt32: return launch<C, std::int32_t>(rp, stream);
    case DType::kInt64: return launch<C, std::int64_t>(rp, stream);
  }
}

}  // namespace

void prepare_rows(RowPrep const& rp, void* stream) {
  if (rp.in.rows == 0) return;
  auto const s = static_cast<cudaStream_t>(stream);
  if (rp.out.dtype == DType::kFloat64) {
    launch_from<double>(rp, s);
  } else {
    launch_from<float>(rp, s);
  }
}

}  // namespace cudist::detail::cuda
