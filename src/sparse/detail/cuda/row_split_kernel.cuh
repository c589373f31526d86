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
// 1024 threads then holds the SM, with nothing for L1 to cache but row offsets. Its gathers
// take a few cycles instead of an L2 trip, so the lanes' loads became the wait: each lane keeps
// its next round of loads (the rest of its row, or the next row's first) in flight while it sums
// the current one (stream_rows).
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
    int const group_in_warp = lane_in_warp >> p.group_log2;
    std::int64_t const rows_per_warp = 32 >> p.group_log2;
    std::int64_t const first = (t.block * kThreads + t.thread) / 32 * rows_per_warp;
    std::int64_t const row_step = t.blocks * (kThreads / 32) * rows_per_warp;
    Position const group = Position{1} << p.group_log2;
    // `first` (the warp's first row) and the trip count of the row loops are the same for the
    // whole warp, so every lane reaches every shuffle.
    if constexpr (kStagedX) {
      stream_rows(p, first, row_step, group_in_warp, lane, group);
    } else {
      for (std::int64_t f = first; f < p.a.rows; f += row_step) {
        std::int64_t const row = f + group_in_warp;
        bool const has_row = row < p.a.rows;
        T acc = Semiring::zero();
        if (has_row) {
          RowBounds const r = row_bounds(p, row);
          for (Position c = r.begin / kVec + lane; c < r.end_chunk(); c += group * kChunksPerLane) {
            acc = add_round(p, acc, load_round(p, r, c, group), r, c, group);
          }
        }
        finish_row(p, row, has_row, lane, acc);
      }
    }
  }

  /// Nonzeros [begin, end) of a row.
  struct RowBounds {
    Position begin, end;
    __device__ Position end_chunk() const { return (end + kVec - 1) / kVec; }
  };
  static __device__ __forceinline__ RowBounds row_bounds(Params const& p, std::int64_t row) {
    return {static_cast<Position>(load_cached(p.a.row_offsets + row)),
            static_cast<Position>(load_cached(p.a.row_offsets + row + 1))};
  }

  /// A lane's round of loads: chunks c, c + group, ... of the arrays, kChunksPerLane of them.
  struct Round {
    Chunk<I, kVec> cols[kChunksPerLane];
    Chunk<T, kVec> vals[kChunksPerLane];
  };
  /// Round c of row r; chunks past the row are left unloaded (add_round skips them).
  static __device__ __forceinline__ Round load_round(Params const& p, RowBounds r, Position c,
                                                     Position group) {
    Round round = {};
    auto const nnz = static_cast<Position>(p.a.nnz);
#pragma unroll
    for (int u = 0; u < kChunksPerLane; ++u) {
      Position const chunk = c + u * group;
      if (chunk < r.end_chunk()) {
        round.cols[u] = load_chunk_streaming<kVec>(p.a.col_indices, chunk, nnz);
        round.vals[u] = load_chunk_streaming<kVec>(p.a.values, chunk, nnz);
      }
    }
    return round;
  }
  /// acc plus the round's products that lie in row r, in the arrays' order.
  static __device__ __forceinline__ T add_round(Params const& p, T acc, Round const& round,
                                                RowBounds r, Position c, Position group) {
#pragma unroll
    for (int u = 0; u < kChunksPerLane; ++u) {
      unsigned const live = live_elements(r.begin, r.end, (c + u * group) * kVec);
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        if (live >> v & 1u) {
          acc = Semiring::add(acc, Semiring::mul(round.vals[u].e[v], x_at(p, round.cols[u].e[v])));
        }
      }
    }
    return acc;
  }

  /// The group's butterfly over its lanes' partial sums, and y written by its first lane.
  static __device__ __forceinline__ void finish_row(Params const& p, std::int64_t row,
                                                    bool has_row, int lane, T acc) {
    acc = reduce_lane_groups<Semiring>(acc, p.group_log2);
    if (has_row && lane == 0) {
      T& y = p.y.at(row, 0);
      y = p.out(acc, p.out.reads_y() ? y : T(0));
    }
  }

  /// The rows first_row, first_row + row_step, ... as one stream of rounds per lane: the next
  /// round (this row's next, or the next row's first) is loaded before the current one is
  /// summed. A row takes at least one round, so an empty row or a lane past a short row's end
  /// still hands the stream on. The sums run in the same order as the unpipelined loop's.
  static __device__ void stream_rows(Params const& p, std::int64_t first, std::int64_t row_step,
                                     int group_in_warp, int lane, Position group) {
    Position const step = group * kChunksPerLane;
    std::int64_t row = first + group_in_warp;
    RowBounds r{0, 0};  // rows past the end are empty: no chunk loaded, none live
    if (row < p.a.rows) r = row_bounds(p, row);
    Position c = r.begin / kVec + lane;
    Round pending = load_round(p, r, c, group);
    for (std::int64_t f = first; f < p.a.rows; f += row_step, row += row_step) {
      RowBounds next{0, 0};
      if (row + row_step < p.a.rows) next = row_bounds(p, row + row_step);
      T acc = Semiring::zero();
      for (;;) {
        Round const current = pending;
        Position const current_c = c;
        bool const last = c + step >= r.end_chunk();
        if (last) {
          c = next.begin / kVec + lane;
          pending = load_round(p, next, c, group);
        } else {
          c += step;
          pending = load_round(p, r, c, group);
        }
        acc = add_round(p, acc, current, r, current_c, group);
        if (last) break;
      }
      finish_row(p, row, row < p.a.rows, lane, acc);
      r = next;
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

};

}  // namespace cudist::sparse::detail::cuda
