#include "neighbors/detail/cuda/rounded_rows.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/workspace.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

/// One warp per row: its largest magnitude gives the scale, then the rounded copy, the norm in
/// double, and the bound terms.
struct RoundRowsKernel {
  static constexpr int kThreads = 256;
  static constexpr int kRowsPerBlock = kThreads / 32;
  struct Params {
    float const* src;
    std::int64_t first_row, end_row;  // the rows this grid writes, of the padded ones
    std::int64_t rows, d, ld;
    int depth;
    double e;
    bool norms;  // RowTermKind::kNorms
    __half* values;
    LowerTerm* lower;
    float* hi;
  };

  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const row = p.first_row + block * kRowsPerBlock + tid / 32;
    int const lane = tid % 32;
    if (row >= p.end_row) return;
    if (row >= p.rows) {
      if (lane == 0) {  // masked columns: read, never used
        p.lower[row] = {0.0f, 1.0f};
        p.hi[row] = 0.0f;
      }
      return;
    }
    float const* src = p.src + row * p.ld;
    double sum = 0;
    float largest = 0;
    bool odd = false;  // a value the bounds do not cover
    for (std::int64_t k = lane; k < p.d; k += 32) {
      float const v = src[k];
      sum += static_cast<double>(v) * v;
      largest = fmaxf(largest, fabsf(v));
      odd |= !isfinite(v) || (v != 0.0f && fabsf(v) < 0x1p-100f);
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) {
      sum += __shfl_xor_sync(0xffffffffu, sum, o);
      largest = fmaxf(largest, __shfl_xor_sync(0xffffffffu, largest, o));
      odd |= __shfl_xor_sync(0xffffffffu, odd, o);
    }
    // Norms this large could overflow the float32 terms of the bound: such rows are recomputed.
    odd |= sum * (1 + p.e) > static_cast<double>(FLT_MAX) / 16;
    // The largest magnitude scaled into [2^13, 2^14): float16 keeps 11 bits of every value down
    // to 2^-27 of it (below, its subnormals' absolute error, which the bound covers).
    // The scale and its inverse are powers of two (ldexpf is exact), so multiplying by the inverse
    // rounds the same exact quotient as dividing by the scale, at a multiply instead of a
    // division's subroutine a value (y's rows in K1: 14.3 -> 13.4 us, ncu H200 runs 137-139).
    int const e = odd || largest == 0.0f ? 0 : ilogbf(largest) - 13;
    float const scale = ldexpf(1.0f, e), inverse = ldexpf(1.0f, -e);
    for (std::int64_t k = lane; k < p.depth; k += 32) {
      float const v = k < p.d && !odd ? src[k] * inverse : 0.0f;
      p.values[row * p.depth + k] = __float2half_rn(v);
    }
    if (lane != 0) return;
    float const nan = __int_as_float(0x7fffffff);
    if (p.norms) {  // the double sum's rounding (d 2^-53 relative at most) inside the 2^-40
      float const norm = odd ? nan : __double2float_ru(sqrt(sum * (1 + 0x1p-40)));
      p.lower[row] = {norm, scale};
      p.hi[row] = norm;
      return;
    }
    p.lower[row] = {odd ? nan : __double2float_rd(sum * (1 - p.e)), scale};
    p.hi[row] = odd ? nan : __double2float_ru(sum * (1 + p.e));
  }
};

}  // namespace

RoundedRows allocate_rounded_rows(std::int64_t rows, std::int64_t cols, std::int64_t padded_rows,
                                  std::vector<Array>& keep, void* stream) {
  static_assert(sizeof(LowerTerm) == 8, "two floats");
  auto const s = static_cast<cudaStream_t>(stream);
  RoundedRows r;
  r.depth = rounded_depth(cols);
  keep.push_back(device_array(rows, r.depth, DType::kFloat16, s));
  r.values = static_cast<std::uint16_t const*>(keep.back().data());
  keep.push_back(device_array(3, padded_rows, DType::kFloat32, s));
  auto* const terms = static_cast<float*>(keep.back().data());
  r.lower = reinterpret_cast<LowerTerm const*>(terms);
  r.hi = terms + 2 * padded_rows;
  return r;
}

void round_row_range(ConstMatrixView rows, RoundedRows const& into, ExpansionBound const& bound, RowTermKind kind,
                     std::int64_t first, std::int64_t last, void* stream) {
  if (last <= first) return;
  // The arrays are the caller's, allocated writable by allocate_rounded_rows.
  auto* const values = reinterpret_cast<__half*>(const_cast<std::uint16_t*>(into.values));
  launch<RoundRowsKernel>(last - first, RoundRowsKernel::kRowsPerBlock,
                          {static_cast<float const*>(rows.data), first, last, rows.rows, rows.cols, rows.stride,
                           into.depth, bound.e, kind == RowTermKind::kNorms, values, const_cast<LowerTerm*>(into.lower),
                           const_cast<float*>(into.hi)},
                          static_cast<cudaStream_t>(stream));
}

RoundedRows round_rows(ConstMatrixView rows, std::int64_t padded_rows, ExpansionBound const& bound, RowTermKind kind,
                       std::vector<Array>& keep, void* stream) {
  RoundedRows const r = allocate_rounded_rows(rows.rows, rows.cols, padded_rows, keep, stream);
  round_row_range(rows, r, bound, kind, 0, padded_rows, stream);
  return r;
}

}  // namespace cudist::neighbors::detail::cuda
