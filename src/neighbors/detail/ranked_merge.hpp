// The k best of several lists of ranked candidates per row, on the host: how a device set merges
// its shards' answers (split_select.cpp) and merge_knn the answers of knn over parts of a
// database (merge_knn.cpp; cudist.dask merges its blocks through it). The order is the
// selection's: value, then index; a similarity's larger values first; NaN after every number; -0
// equal to +0 (KeyTraits). The candidates of a list need not be sorted; a list's entries past its
// first index -1 are not candidates.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cudist/core/matrix_view.hpp"
#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail {

/// One list per row: row i's candidates are values[i * value_stride + c] and
/// indices[i * index_stride + c] for c < cols.
template <class T>
struct RankedList {
  T const* values;
  std::int64_t value_stride;
  std::int64_t const* indices;
  std::int64_t index_stride;
  std::int64_t cols;
};

/// How a merged row is ranked and reported.
struct RankedMerge {
  bool similarity = false;  // larger values first
  bool take_root = false;   // report the square roots of the ranked values
};

/// A row's change to its candidates (a self-join merged from parts that saw x as two matrices):
/// the entry of index `drop` is not one, and with `add`, (add_index, add_value) is.
template <class T>
struct RowAdjustment {
  std::int64_t drop = -1;
  bool add = false;
  std::int64_t add_index = -1;
  T add_value = T(0);
};

/// A candidate as the merge orders it.
template <class T>
struct RankedCandidate {
  typename KeyTraits<T>::Order order;
  std::int64_t index;
  T value;
  bool operator<(RankedCandidate const& b) const { return order < b.order || (order == b.order && index < b.index); }
};

/// The merge's working memory, reused from row to row (an allocation per row cost more than the
/// merge of 2 x 10 candidates).
template <class T>
struct RankedScratch {
  std::vector<RankedCandidate<T>> candidates;  // list after list
  std::vector<std::size_t> ends;               // where each list's candidates end
  std::vector<std::size_t> heads;              // the next candidate of each list
};

/// Row i's `k` best over `lists` into dist[0 .. width) and idx[0 .. width) (width >= k' = the
/// candidates kept, at most k); slots past the candidates get index -1 and NaN. Lists whose row
/// is ranked (as knn and this merge leave it) are merged by their heads, k x lists comparisons;
/// a row of any other order is sorted.
template <class T>
void merge_ranked_row(std::vector<RankedList<T>> const& lists, RankedMerge how, std::int64_t i, std::int64_t k,
                      std::int64_t width, T* dist, std::int64_t* idx, RankedScratch<T>& scratch,
                      RowAdjustment<T> const& adjust = {}) {
  using Traits = KeyTraits<T>;
  std::vector<RankedCandidate<T>>& c = scratch.candidates;
  c.clear();
  scratch.ends.clear();
  bool ranked = true;
  auto const offer = [&](T v, std::int64_t j, std::size_t list_start) {
    c.push_back({Traits::order(how.similarity ? -v : v), j, v});
    if (c.size() > list_start + 1 && c.back() < c[c.size() - 2]) ranked = false;
  };
  for (RankedList<T> const& list : lists) {
    T const* v = list.values + i * list.value_stride;
    std::int64_t const* j = list.indices + i * list.index_stride;
    std::size_t const start = c.size();
    for (std::int64_t r = 0; r < list.cols && j[r] >= 0; ++r) {
      if (j[r] != adjust.drop) offer(v[r], j[r], start);
    }
    scratch.ends.push_back(c.size());
  }
  if (adjust.add) {
    offer(adjust.add_value, adjust.add_index, c.size());
    scratch.ends.push_back(c.size());
  }
  auto const kept = std::min<std::int64_t>(k, static_cast<std::int64_t>(c.size()));
  auto const emit = [&](std::int64_t r, RankedCandidate<T> const& e) {
    idx[r] = e.index;
    dist[r] = how.take_root ? std::sqrt(e.value) : e.value;
  };
  if (ranked) {
    std::size_t const lists_here = scratch.ends.size();
    scratch.heads.resize(lists_here);
    for (std::size_t l = 0; l < lists_here; ++l) scratch.heads[l] = l == 0 ? 0 : scratch.ends[l - 1];
    for (std::int64_t r = 0; r < kept; ++r) {
      std::size_t best = lists_here;
      for (std::size_t l = 0; l < lists_here; ++l) {
        if (scratch.heads[l] < scratch.ends[l] && (best == lists_here || c[scratch.heads[l]] < c[scratch.heads[best]])) best = l;
      }
      emit(r, c[scratch.heads[best]++]);
    }
  } else {
    std::partial_sort(c.begin(), c.begin() + kept, c.end());
    for (std::int64_t r = 0; r < kept; ++r) emit(r, c[r]);
  }
  for (std::int64_t r = kept; r < width; ++r) {
    idx[r] = -1;
    dist[r] = std::numeric_limits<T>::quiet_NaN();
  }
}

/// No change to any row's candidates.
template <class T>
struct NoAdjustment {
  RowAdjustment<T> operator()(std::int64_t) const { return {}; }
};

/// Every row of `distances` / `indices` (host views (m, w), any row stride) merged from `lists`
/// as merge_ranked_row does it, the rows side by side; adjust(i) gives row i's RowAdjustment.
template <class T, class Adjust = NoAdjustment<T>>
void merge_ranked_rows(std::vector<RankedList<T>> const& lists, RankedMerge how, std::int64_t k,
                       MatrixView distances, MatrixView indices, Adjust const& adjust = Adjust{}) {
#pragma omp parallel
  {
    RankedScratch<T> scratch;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < distances.rows; ++i) {
      merge_ranked_row<T>(lists, how, i, k, distances.cols, static_cast<T*>(distances.data) + i * distances.stride,
                          static_cast<std::int64_t*>(indices.data) + i * indices.stride, scratch, adjust(i));
    }
  }
}

}  // namespace cudist::neighbors::detail
