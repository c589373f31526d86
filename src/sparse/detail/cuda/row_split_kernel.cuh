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
#include <type_traits>

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

  // Positions in the index and value arrays: 32 bits where the indices are (row offsets of
  // int32 bound nnz), so that a chunk's bounds are single-word compares.
  using Position = std::conditional_t<sizeof(I) <= 4, std::uint32_t, std::uint64_t>;

  __device__ void operator()(Params const& p, SharedStorage&, ThreadCoords const& t) const {
    if constexpr (kStagedX) {
      stage_x(p, t.thread);
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
      T acc = has_row ? row_partial(p, row, lane) : Semiring::zero();
      acc = reduce_lane_groups<Semiring>(acc, p.group_log2);
      if (has_row && lane == 0) {
        T& y = p.y.at(row, 0);
        y = p.out(acc, p.out.reads_y() ? y : T(0));
      }
    }
  }

  /// Copies x into the block's shared memory, kStageLoads loads in flight per thread: x is read
  /// once per block, and one load at a time would leave the block waiting on ~50 L2 round trips
  /// (S1).
  static __device__ void stage_x(Params const& p, int thread) {
    constexpr int kStageLoads = 8;
    T* const x_shared = reinterpret_cast<T*>(dynamic_shared_memory());
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

  /// x[col]: from the block's copy (addressed from the shared array itself, so that no generic
  /// pointer is rebuilt per gather), or through the read-only path.
  static __device__ __forceinline__ T x_at(Params const& p, I col) {
    if constexpr (kStagedX) {
      return reinterpret_cast<T const*>(dynamic_shared_memory())[col];
    } else {
      return load_cached(&p.x.at(col, 0));
    }
  }

  /// Bit v set where element first + v lies in the row [begin, end).
  static __device__ __forceinline__ unsigned live_elements(Position begin, Position end,
                                                           Position first) {
    unsigned const from = begin > first ? static_cast<unsigned>(begin - first) : 0u;
    unsigned const to =
        end > first ? static_cast<unsigned>(end - first < kVec ? end - first : kVec) : 0u;
    return ((1u << to) - 1u) & ~((1u << from) - 1u);
  }

  /// This lane's share of row `row`: chunks lane, lane + group, ... of the row.
  static __device__ T row_partial(Params const& p, std::int64_t row, int lane) {
    auto const begin = static_cast<Position>(load_cached(p.a.row_offsets + row));
    auto const end = static_cast<Position>(load_cached(p.a.row_offsets + row + 1));
    auto const nnz = static_cast<Position>(p.a.nnz);
    Position const end_chunk = (end + kVec - 1) / kVec;
    Position const group = Position{1} << p.group_log2;
    T acc = Semiring::zero();
    for (Position c = begin / kVec + lane; c < end_chunk; c += group * kChunksPerLane) {
      // All loads first, then all gathers: kChunksPerLane chunks in flight per lane.
      Chunk<I, kVec> cols[kChunksPerLane] = {};
      Chunk<T, kVec> vals[kChunksPerLane] = {};
#pragma unroll
      for (int u = 0; u < kChunksPerLane; ++u) {
        Position const chunk = c + u * group;
        if (chunk < end_chunk) {
          cols[u] = load_chunk_streaming<kVec>(p.a.col_indices, chunk, nnz);
          vals[u] = load_chunk_streaming<kVec>(p.a.values, chunk, nnz);
        }
      }
#pragma unroll
      for (int u = 0; u < kChunksPerLane; ++u) {
        unsigned const live = live_elements(begin, end, (c + u * group) * kVec);
#pragma unroll
        for (int v = 0; v < kVec; ++v) {
          if (live >> v & 1u) acc = Semiring::add(acc, Semiring::mul(vals[u].e[v], x_at(p, cols[u].e[v])));
        }
      }
    }
    return acc;
  }
};

}  // namespace cudist::sparse::detail::cuda
