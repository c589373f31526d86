// The last steps of match on the GPU, after the 2-NN selection: each column's best query (from
// the mutual-check observer's entries), a flag per query (ratio test, distance limit, mutual
// check), then, once the flags are scanned into positions, the accepted (query, train, distance)
// triples in query order and each problem's range of them. Up to kBlockFinishRows queries one
// block does all of it in one launch (MatchFinishBlockKernel); beyond, a grid of flags, a device
// scan and a grid of scatters.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <type_traits>

#include "neighbors/detail/keys.hpp"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail::cuda {

/// The problem holding query row i: the last b with x_offsets[b] <= i (empty problems skipped).
__device__ __forceinline__ int problem_of(std::int64_t const* x_offsets, int problems, std::int64_t i) {
  int lo = 0, hi = problems - 1;
  while (lo < hi) {
    int const mid = (lo + hi + 1) / 2;
    if (x_offsets[mid] <= i) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

/// best_query[j] = the query row (within its problem) of column j's best entry, -1 for none.
template <class Key>
struct ColumnBestQueryKernel {
  using Entry = typename KeyTraits<Key>::Entry;
  static constexpr int kThreads = 256;
  struct Params {
    Entry const* column_best;  // (n)
    std::int64_t n;
    std::int64_t* best_query;  // (n)
  };
  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const j = block * kThreads + tid;
    if (j < p.n) p.best_query[j] = KeyTraits<Key>::index(p.column_best[j]);
  }
};

template <class Out>
struct MatchFlagsKernel {
  static constexpr int kThreads = 256;

  struct Params {
    Out const* distances;             // (m, 2) best and second best
    std::int64_t const* indices;      // (m, 2)
    std::int64_t const* best_query;   // (n) best query row of each column, or null: no check
    std::int64_t const* x_offsets;    // (problems + 1)
    std::int64_t const* y_offsets;
    int problems;
    std::int64_t m;
    MatchCriteria criteria;
    int* accepted;                    // (m + 1); entry m is 0, so a scan ends with the total
  };

  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const i = block * kThreads + tid;
    if (i > p.m) return;
    p.accepted[i] = i < p.m && accepts(p, i) ? 1 : 0;
  }

  /// Whether query row i (< m) is matched.
  __device__ static bool accepts(Params const& p, std::int64_t i) {
    std::int64_t const j1 = p.indices[2 * i];
    bool ok = j1 >= 0 && passes_ratio_test(p.distances[2 * i], p.indices[2 * i + 1], p.distances[2 * i + 1], p.criteria);
    if (ok && p.best_query != nullptr) {
      int const b = problem_of(p.x_offsets, p.problems, i);
      ok = p.best_query[p.y_offsets[b] + j1] == i - p.x_offsets[b];
    }
    return ok;
  }
};

template <class Out>
struct MatchScatterKernel {
  static constexpr int kThreads = 256;

  struct Params {
    Out const* distances;           // (m, 2)
    std::int64_t const* indices;    // (m, 2)
    int const* accepted;            // (m)
    int const* position;            // (m + 1) exclusive scan of accepted
    std::int64_t const* x_offsets;  // (problems + 1)
    int problems;
    std::int64_t m;
    std::int64_t* pairs;            // (count, 2) query and train, local to the problem
    Out* match_distances;           // (count)
    std::int64_t* match_offsets;    // (problems + 1)
  };

  /// Thread i writes match i's triple (i < m) and problem i's first match (i <= problems).
  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const i = block * kThreads + tid;
    if (i <= p.problems) write_first_match(p, i);
    if (i < p.m && p.accepted[i]) write(p, i, p.position[i]);
  }

  /// Problem b's first match (b = problems: the count), from the positions.
  __device__ static void write_first_match(Params const& p, std::int64_t b) {
    p.match_offsets[b] = p.position[p.x_offsets[b]];
  }

  /// Query row i's (query, train, distance) as match q.
  __device__ static void write(Params const& p, std::int64_t i, std::int64_t q) {
    int const b = problem_of(p.x_offsets, p.problems, i);
    p.pairs[2 * q] = i - p.x_offsets[b];
    p.pairs[2 * q + 1] = p.indices[2 * i];
    p.match_distances[q] = p.distances[2 * i];
  }
};

/// Queries up to which one block finishes match in one launch: K1's 4000 queries took four
/// launches (flags, the scan's two, the scatter: ~13 us of kernels in a chain, ncu run 140) for
/// work that one block does in a pass. Each pass of the block is a block-wide scan, so past a few
/// passes the grid's launches are cheaper.
constexpr std::int64_t kBlockFinishRows = 16384;

/// The finish of up to kBlockFinishRows queries in one block: each thread flags kRowsPerThread
/// consecutive rows, a block-wide exclusive scan of their counts places their matches after
/// the earlier passes', and position (m + 1) ends with the count, as the grid's scan leaves it.
/// The flags' and the scatter's parameters are the grid kernels' (their accepted arrays unused;
/// the scatter's position is the array this kernel fills through `position`).
template <class Out>
struct MatchFinishBlockKernel {
  static constexpr int kThreads = 1024;
  static constexpr int kRowsPerThread = 4;
  using Flags = MatchFlagsKernel<Out>;
  using Scatter = MatchScatterKernel<Out>;
  struct Params {
    typename Flags::Params flags;
    typename Scatter::Params scatter;
    int* position;  // (m + 1): matches before each query, then the count
  };

  __device__ void operator()(Params const& p, std::int64_t, int tid) const {
    using Scan = cub::BlockScan<int, kThreads>;
    __shared__ typename Scan::TempStorage scan;
    std::int64_t const m = p.flags.m;
    int before = 0;  // matches of the earlier passes
    for (std::int64_t base = 0; base < m; base += kThreads * kRowsPerThread) {
      std::int64_t const first = base + static_cast<std::int64_t>(tid) * kRowsPerThread;
      bool ok[kRowsPerThread];
      int count = 0;
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        ok[r] = first + r < m && Flags::accepts(p.flags, first + r);
        count += ok[r] ? 1 : 0;
      }
      int offset = 0, total = 0;
      Scan(scan).ExclusiveSum(count, offset, total);
      int q = before + offset;
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        if (first + r >= m) break;
        p.position[first + r] = q;
        if (ok[r]) Scatter::write(p.scatter, first + r, q++);
      }
      before += total;
      __syncthreads();  // the scan's storage is reused by the next pass
    }
    if (tid == 0) p.position[m] = before;
    __syncthreads();  // every position written (global memory, this block's own writes)
    for (int b = tid; b <= p.scatter.problems; b += kThreads) Scatter::write_first_match(p.scatter, b);
  }
};

}  // namespace cudist::neighbors::detail::cuda
