// The last steps of match on the GPU, after the 2-NN selection: each column's best query (from
// the mutual-check observer's entries), a flag per query (ratio test, distance limit, mutual
// check), then, once the flags are scanned into positions, the accepted (query, train, distance)
// triples in query order and each problem's range of them.
#pragma once

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
    if (i == p.m) {
      p.accepted[i] = 0;
      return;
    }
    std::int64_t const j1 = p.indices[2 * i];
    bool ok = j1 >= 0 && passes_ratio_test(p.distances[2 * i], p.indices[2 * i + 1], p.distances[2 * i + 1], p.criteria);
    if (ok && p.best_query != nullptr) {
      int const b = problem_of(p.x_offsets, p.problems, i);
      ok = p.best_query[p.y_offsets[b] + j1] == i - p.x_offsets[b];
    }
    p.accepted[i] = ok ? 1 : 0;
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
    if (i <= p.problems) p.match_offsets[i] = p.position[p.x_offsets[i]];
    if (i >= p.m || !p.accepted[i]) return;
    std::int64_t const q = p.position[i];
    int const b = problem_of(p.x_offsets, p.problems, i);
    p.pairs[2 * q] = i - p.x_offsets[b];
    p.pairs[2 * q + 1] = p.indices[2 * i];
    p.match_distances[q] = p.distances[2 * i];
  }
};

}  // namespace cudist::neighbors::detail::cuda
