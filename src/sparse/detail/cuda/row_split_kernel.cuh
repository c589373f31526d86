// Row-split SpMV: an aligned group of 2^group_log2 lanes computes one row at a time. The lanes
// read the row's indices and values as kVec-element vector loads, chunk c of the arrays at lane
// c mod group, so a group reads contiguous, coalesced memory; the chunks at either end of a row
// that stray into its neighbours are loaded whole (the neighbour reads the same sectors anyway)
// and masked. Each lane gathers x for its own elements; a butterfly over the group finishes
// the row. No shared memory: L1 is left entirely to caching x.
//
// For regular rows (RowSplitPolicy): no set-up beyond the plan, no partial rows across
// threads. kVec = 1 serves index or value arrays that are not aligned to a vector load.
//
// kStagedX: where x fits one block's shared memory and the gathers are many times its length
// (row_split_stages_x), each block first copies x into shared memory and gathers from there. At
// S1's 203 KB, x fills L1 but shares it with the matrix stream, and a third of the gathers
// missed it: those misses, not the stream, bounded the kernel (docs/tuning.md, S1). A block of
// 1024 threads then holds the SM, with nothing for L1 to cache but row offsets.
#pragma once

#include <cstdint>

#include "sparse/detail/cuda/csr_arrays.cuh"
#include "sparse/detail/cuda/kernel_launch.cuh"
#include "sparse/detail/cuda/load.cuh"
#include "sparse/detail/cuda/policy.hpp"
#include "sparse/detail/cuda/warp_reduce.cuh"
#include "sparse/detail/dense_operand.hpp"

namespace cudist::sparse::detail::cuda {

template <class T, class I, int kVec, class Semiring, class Output, bool kStagedX>
struct RowSplitSpmv {
  static constexpr int kThreads =
      kStagedX ? RowSplitPolicy::kStagedXThreads : RowSplitPolicy::kThreads;
  static constexpr int kChunksPerLane = RowSplitPolicy::kChunksPerLane;

  struct Params {
    CsrArrays<T, I> a;
    DenseOperand<T const> x;  // column 0 is the vector
    std::int64_t x_len;       // kStagedX: elements of x (A's columns), in dynamic shared memory
    DenseOperand<T> y;
    Output out;
    int group_log2;  // lanes per row = 2^group_log2 <= 32
  };
  struct SharedStorage {};

  __device__ void operator()(Params const& p, SharedStorage&, ThreadCoords const& t) const {
    T* const x_shared = reinterpret_cast<T*>(dynamic_shared_memory());
    if constexpr (kStagedX) {
      stage_x(p, x_shared, t.thread);
      __syncthreads();
    }
    int const lane_in_warp = t.thread % 32;
    int const lane = lane_in_warp & ((1 << p.group_log2) - 1);
    std::int64_t const rows_per_warp = 32 >> p.group_log2;
    std::int64_t const warp = (t.block * kThreads + t.thread) / 32;
    std::int64_t const warps = t.blocks * (kThreads / 32);
    // The trip count is the same for the whole warp, so every lane reaches every shuffle.
    for (std::int64_t first = warp * rows_per_warp; first < p.a.rows;
         first += warps * rows_per_warp) {
      std::int64_t const row = first + (lane_in_warp >> p.group_log2);
      bool const has_row = row < p.a.rows;
      T acc = has_row ? row_partial(p, x_shared, row, lane) : Semiring::zero();
      acc = reduce_lane_groups<Semiring>(acc, p.group_log2);
      if (has_row && lane == 0) {
        T& y = p.y.at(row, 0);
        y = p.out(acc, p.out.reads_y() ? y : T(0));
      }
    }
  }

  /// Copies x into `x_shared`, kStageLoads loads in flight per thread: x is read once per block,
  /// and one load at a time would leave the block waiting on ~50 L2 round trips (S1).
  static __device__ void stage_x(Params const& p, T* x_shared, int thread) {
    constexpr int kStageLoads = 8;
    for (std::int64_t first = thread; first < p.x_len; first += kStageLoads * kThreads) {
      T v[kStageLoads];
#pragma unroll
      for (int u = 0; u < kStageLoads; ++u) {
        std::int64_t const i = first + u * kThreads;
        if (i < p.x_len) v[u] = load_cached(&p.x.at(i, 0));
      }
#pragma unroll
      for (int u = 0; u < kStageLoads; ++u) {
        std::int64_t const i = first + u * kThreads;
        if (i < p.x_len) x_shared[i] = v[u];
      }
    }
  }

  /// x[col]: from the block's copy, or through the read-only path.
  static __device__ __forceinline__ T x_at(Params const& p, T const* x_shared, I col) {
    if constexpr (kStagedX) {
      return x_shared[col];
    } else {
      return load_cached(&p.x.at(col, 0));
    }
  }

  /// This lane's share of row `row`: chunks lane, lane + group, ... of the row.
  static __device__ T row_partial(Params const& p, T const* x_shared, std::int64_t row, int lane) {
    std::int64_t const begin = load_cached(p.a.row_offsets + row);
    std::int64_t const end = load_cached(p.a.row_offsets + row + 1);
    std::int64_t const end_chunk = (end + kVec - 1) / kVec;
    int const group = 1 << p.group_log2;
    T acc = Semiring::zero();
    for (std::int64_t c = begin / kVec + lane; c < end_chunk; c += group * kChunksPerLane) {
      // All loads first, then all gathers: kChunksPerLane chunks in flight per lane.
      Chunk<I, kVec> cols[kChunksPerLane] = {};
      Chunk<T, kVec> vals[kChunksPerLane] = {};
#pragma unroll
      for (int u = 0; u < kChunksPerLane; ++u) {
        std::int64_t const chunk = c + u * group;
        if (chunk < end_chunk) {
          cols[u] = load_chunk_streaming<kVec>(p.a.col_indices, chunk, p.a.nnz);
          vals[u] = load_chunk_streaming<kVec>(p.a.values, chunk, p.a.nnz);
        }
      }
#pragma unroll
      for (int u = 0; u < kChunksPerLane; ++u) {
#pragma unroll
        for (int v = 0; v < kVec; ++v) {
          std::int64_t const k = (c + u * group) * kVec + v;
          if (k >= begin && k < end) {
            T const xk = x_at(p, x_shared, cols[u].e[v]);
            acc = Semiring::add(acc, Semiring::mul(vals[u].e[v], xk));
          }
        }
      }
    }
    return acc;
  }
};

}  // namespace cudist::sparse::detail::cuda
