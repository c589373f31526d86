// CUDA row preparation (see backend.hpp): one warp per row, in double (the mean, the sum and the
// norm are exact enough that only the final rounding to the compute type remains); a pass more
// over the row for each of the mean, the sum and the norm. Memory-bound and O((m + n) d): small
// next to the contraction it feeds.
#include <cuda_runtime.h>

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

template <class C, class Elem>
void launch(RowPrep const& rp, cudaStream_t stream) {
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
