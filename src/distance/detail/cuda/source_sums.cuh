// One entry's float32 sum as the SIMT engine accumulates it, recomputed from the source rows: the
// paths that find most entries another way (the tensor-core candidate searches, the GEMM path of
// knn, cdist's precision tf32) compute the entries they keep exactly with it, so those entries are
// the exact path's bits. The rows may be bfloat16 where they hold the float32 rows' values exactly
// (the GEMM path's copies of bfloat16 inputs): every element widens to the same float, so the sums
// are the same bits for half the bytes.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

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

/// Element k of a row, as a float.
__device__ __forceinline__ float load_float(float const* p) { return __ldg(p); }
__device__ __forceinline__ float load_float(__nv_bfloat16 const* p) { return __bfloat162float(__ldg(p)); }

/// 16 bytes of a row's elements as floats: 4 float32, or 8 bfloat16 (a float's high half each).
template <class E>
struct Widened16 {
  static constexpr int kCount = 16 / sizeof(E);
  float v[kCount];

  __device__ __forceinline__ explicit Widened16(uint4 const bits) {
    unsigned const words[4] = {bits.x, bits.y, bits.z, bits.w};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      if constexpr (kCount == 4) {
        v[w] = __uint_as_float(words[w]);
      } else {
        v[2 * w] = __uint_as_float(words[w] << 16);
        v[2 * w + 1] = __uint_as_float(words[w] & 0xffff0000u);
      }
    }
  }
};

template <class E>
struct SourceSumsOf {
  static_assert(std::is_same_v<E, float> || std::is_same_v<E, __nv_bfloat16>, "float32 or bfloat16 rows");
  using Element = E;
  static constexpr int kVector = 16 / sizeof(E);  // elements a 16-byte load
  ops::SourceRows<E> rows;
  bool vec;  // d % kVector == 0 and 16-byte aligned rows: 16-byte loads

  /// Rows x (ldx apart) and y (ldy apart) of d elements.
  static SourceSumsOf over(ops::SourceRows<E> const& r) {
    bool const vec = r.d % kVector == 0 && rows_allow_vectors(r.x, r.ldx, 16, sizeof(E)) &&
                     rows_allow_vectors(r.y, r.ldy, 16, sizeof(E));
    return {r, vec};
  }

  /// Problem p's float32 rows.
  static SourceSumsOf of(PairwiseProblem const& p) {
    static_assert(std::is_same_v<E, float>, "a planned problem's rows are float32");
    return over(source_rows<float>(p));
  }

  /// sum_k step(acc, x_ik, y_jk) in order k = 0 .. d - 1, as the SIMT engine accumulates.
  template <class Step>
  __device__ float sum(std::int64_t i, std::int64_t j, Step step) const {
    E const* xr = rows.x + i * rows.ldx;
    E const* yr = rows.y + j * rows.ldy;
    float acc = 0.0f;
    if (vec) {  // 16-byte loads, several in flight: the rows come from L2
      auto const* x16 = reinterpret_cast<uint4 const*>(xr);
      auto const* y16 = reinterpret_cast<uint4 const*>(yr);
#pragma unroll 8
      for (std::int64_t k = 0; k < rows.d / kVector; ++k) {
        Widened16<E> const a(__ldg(x16 + k)), b(__ldg(y16 + k));
#pragma unroll
        for (int e = 0; e < kVector; ++e) step(acc, a.v[e], b.v[e]);
      }
    } else {
#pragma unroll 8
      for (std::int64_t k = 0; k < rows.d; ++k) step(acc, load_float(xr + k), load_float(yr + k));
    }
    return acc;
  }

  /// Bytes of shared memory a warp needs for warp_sums(): 32 rows of a 128-byte slice, each padded
  /// by 16 bytes so that a quarter-warp's 16-byte reads of 8 rows hit distinct banks.
  static constexpr int kWarpSliceBytes = 32 * 144;

  /// The sums of pairs (i, j_lane) for the 32 lanes of a warp (j < 0: no pair, result unused), each
  /// the same bits as sum(i, j, step). For rows that `vec` allows: the warp reads the 32 y rows in
  /// slices of 128 bytes (32 float32 or 64 bfloat16 columns), a row's slice by 8 lanes (whole
  /// cache lines; the next slice in flight while this one is summed), through `slice`
  /// (kWarpSliceBytes, the warp's own); each lane then adds its row in order. One lane reading a
  /// row alone moved 16 bytes of each line a request and waited on every one (the GEMM path's
  /// exact pass: 15 ms of K4, ncu); bfloat16 slices of 64 bytes took longer than float32's 128.
  template <class Step>
  __device__ float warp_sums(std::int64_t i, std::int64_t j, uint4* slice, int lane, Step step) const {
    constexpr int kSliceColumns = 8 * kVector;
    E const* xr = rows.x + i * rows.ldx;
    int const part = lane % 8, first_row = lane / 8;  // this lane's 16 bytes of 4 rows a load
    std::int64_t const d = rows.d;
    E const* from[8];  // this lane's part of the rows it loads (null: no pair)
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      std::int64_t const jr = __shfl_sync(0xffffffffu, j, 4 * q + first_row);
      from[q] = jr >= 0 ? rows.y + jr * rows.ldy + kVector * part : nullptr;
    }
    auto load = [&](std::int64_t k0, uint4 (&to)[8]) {
      bool const inside = k0 + kVector * part < d;
#pragma unroll
      for (int q = 0; q < 8; ++q) {
        to[q] = from[q] != nullptr && inside ? __ldg(reinterpret_cast<uint4 const*>(from[q] + k0)) : make_uint4(0, 0, 0, 0);
      }
    };
    uint4 next[8];
    load(0, next);
    float acc = 0.0f;
    for (std::int64_t k0 = 0; k0 < d; k0 += kSliceColumns) {
      __syncwarp();  // the lanes are done with the previous slice
#pragma unroll
      for (int q = 0; q < 8; ++q) slice[(4 * q + first_row) * 9 + part] = next[q];
      __syncwarp();
      if (k0 + kSliceColumns < d) load(k0 + kSliceColumns, next);
      // A multiple of kVector (vec).
      int const width = d - k0 < kSliceColumns ? static_cast<int>(d - k0) : kSliceColumns;
      uint4 const* yr = slice + lane * 9;
      for (int kk = 0; kk < width; kk += kVector) {
        Widened16<E> const a(__ldg(reinterpret_cast<uint4 const*>(xr + k0 + kk))), b(yr[kk / kVector]);
#pragma unroll
        for (int e = 0; e < kVector; ++e) step(acc, a.v[e], b.v[e]);
      }
    }
    return acc;
  }
};

using SourceSums = SourceSumsOf<float>;

}  // namespace cudist::detail::cuda
