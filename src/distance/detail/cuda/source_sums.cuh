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

  /// Floats of shared memory a warp needs for warp_sums(): 32 rows of a 32-column slice, each
  /// padded by 4 so that a quarter-warp's 16-byte reads of 8 rows hit distinct banks.
  static constexpr int kWarpSliceFloats = 32 * 36;

  /// The sums of pairs (i, j_lane) for the 32 lanes of a warp (j < 0: no pair, result unused), each
  /// the same bits as sum(i, j, step). For rows that `vec` allows: the warp reads the 32 y rows in
  /// slices of 32 columns, a row's 128 bytes by 8 lanes (whole cache lines; the next slice in
  /// flight while this one is summed), through `slice` (kWarpSliceFloats, the warp's own); each
  /// lane then adds its row in order. One lane reading a row alone moved 16 bytes of each line a
  /// request and waited on every one (the GEMM path's exact pass: 15 ms of K4, ncu).
  template <class Step>
  __device__ float warp_sums(std::int64_t i, std::int64_t j, float* slice, int lane, Step step) const {
    float const* xr = rows.x + i * rows.ldx;
    int const part = lane % 8, first_row = lane / 8;  // this lane's 16 bytes of 4 rows a load
    std::int64_t const d = rows.d;
    float const* from[8];  // this lane's part of the rows it loads (null: no pair)
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      std::int64_t const jr = __shfl_sync(0xffffffffu, j, 4 * q + first_row);
      from[q] = jr >= 0 ? rows.y + jr * rows.ldy + 4 * part : nullptr;
    }
    auto load = [&](std::int64_t k0, float4 (&to)[8]) {
      bool const inside = k0 + 4 * part < d;
#pragma unroll
      for (int q = 0; q < 8; ++q) {
        to[q] = from[q] != nullptr && inside ? __ldg(reinterpret_cast<float4 const*>(from[q] + k0))
                                             : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
    };
    float4 next[8];
    load(0, next);
    float acc = 0.0f;
    for (std::int64_t k0 = 0; k0 < d; k0 += 32) {
      __syncwarp();  // the lanes are done with the previous slice
#pragma unroll
      for (int q = 0; q < 8; ++q) reinterpret_cast<float4*>(slice + (4 * q + first_row) * 36)[part] = next[q];
      __syncwarp();
      if (k0 + 32 < d) load(k0 + 32, next);
      int const width = d - k0 < 32 ? static_cast<int>(d - k0) : 32;  // a multiple of 4 (vec)
      float const* yr = slice + lane * 36;
      for (int kk = 0; kk < width; kk += 4) {
        float4 const a = __ldg(reinterpret_cast<float4 const*>(xr + k0 + kk));
        float4 const b = *reinterpret_cast<float4 const*>(yr + kk);
        step(acc, a.x, b.x), step(acc, a.y, b.y), step(acc, a.z, b.z), step(acc, a.w, b.w);
      }
    }
    return acc;
  }
};

}  // namespace cudist::detail::cuda
