// One entry's float32 sum as the SIMT engine accumulates it, recomputed from the source rows: the
// paths that find most entries another way (the tensor-core candidate searches, the GEMM path of
// knn, cdist's precision tf32) compute the entries they keep exactly with it, so those entries are
// the exact path's bits.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "distance/detail/cuda/pairwise_launch.cuh"
#include "distance/detail/dispatch_op.hpp"
#include "distance/detail/ops.hpp"

namespace cudist::detail::cuda {

/// The engine's step of sqeuclidean: the difference, squared by a fused multiply-add.
struct SquaredDifferenceStep {
  __device__ void operator()(float& acc, float a, float b) const {
    float const diff = a - b;
    acc = __fmaf_rn(diff, diff, acc);
  }
};

/// The engine's step of the dot products: a fused multiply-add.
struct ProductStep {
  __device__ void operator()(float& acc, float a, float b) const { acc = __fmaf_rn(a, b, acc); }
};

struct SourceSums {
  ops::SourceRows<float> rows;
  bool vec;  // d % 4 == 0 and 16-byte aligned rows: float4 loads

  /// Problem p's float32 rows.
  static SourceSums of(PairwiseProblem const& p) {
    ops::SourceRows<float> const r = source_rows<float>(p);
    bool const vec = r.d % 4 == 0 && rows_allow_vectors(r.x, r.ldx, 16, sizeof(float)) &&
                     rows_allow_vectors(r.y, r.ldy, 16, sizeof(float));
    return {r, vec};
  }

  /// sum_k step(acc, x_ik, y_jk) in order k = 0 .. d - 1, as the SIMT engine accumulates.
  template <class Step>
  __device__ float sum(std::int64_t i, std::int64_t j, Step step) const {
    float const* xr = rows.x + i * rows.ldx;
    float const* yr = rows.y + j * rows.ldy;
    float acc = 0.0f;
    if (vec) {  // 16-byte loads, several in flight: the rows come from L2
      auto const* x4 = reinterpret_cast<float4 const*>(xr);
      auto const* y4 = reinterpret_cast<float4 const*>(yr);
#pragma unroll 8
      for (std::int64_t k = 0; k < rows.d / 4; ++k) {
        float4 const a = __ldg(x4 + k), b = __ldg(y4 + k);
        step(acc, a.x, b.x), step(acc, a.y, b.y), step(acc, a.z, b.z), step(acc, a.w, b.w);
      }
    } else {
#pragma unroll 8
      for (std::int64_t k = 0; k < rows.d; ++k) step(acc, __ldg(xr + k), __ldg(yr + k));
    }
    return acc;
  }
};

}  // namespace cudist::detail::cuda
