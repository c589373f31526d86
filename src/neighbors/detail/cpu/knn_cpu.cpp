// CPU backend of knn and match: blocks of keys from the pairwise CPU backend, merged per row into
// a bounded max-heap of (key, index) entries (O(log k) per candidate, any k), and for the mutual
// check a running per-column best.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "neighbors/detail/backend.hpp"
#include "neighbors/detail/cpu/key_blocks.hpp"

namespace cudist::neighbors::detail::cpu {
namespace {

/// The k best entries offered to one query row.
template <class Key>
class RowTopK {
 public:
  using Entry = typename KeyTraits<Key>::Entry;

  void reset(std::size_t k) {
    k_ = k;
    heap_.clear();
  }
  void offer(Entry e) {
    if (heap_.size() < k_) {
      heap_.push_back(e);
      std::push_heap(heap_.begin(), heap_.end());
    } else if (e < heap_.front()) {  // beats the worst kept entry
      std::pop_heap(heap_.begin(), heap_.end());
      heap_.back() = e;
      std::push_heap(heap_.begin(), heap_.end());
    }
  }
  /// Nearest first; the heap is consumed.
  std::vector<Entry> const& sorted() {
    std::sort_heap(heap_.begin(), heap_.end());
    return heap_;
  }

 private:
  std::size_t k_ = 0;
  std::vector<Entry> heap_;  // max-heap: front() is the worst kept entry
};

/// (m, k) nearest-first answers into `distances` / `indices` (host); with `column_best`, also the
/// best (key, local query row) entry of every column of y.
template <class Key>
void select_knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
                std::vector<typename KeyTraits<Key>::Entry>* column_best) {
  using Traits = KeyTraits<Key>;
  using Entry = typename Traits::Entry;
  auto* dist = static_cast<Key*>(distances.data);
  auto* idx = static_cast<std::int64_t*>(indices.data);
  std::vector<RowTopK<Key>> open(kBlockRows);
  auto begin_rows = [&](std::int64_t, std::int64_t r0, std::int64_t r1) {
    for (std::int64_t i = r0; i < r1; ++i) open[i - r0].reset(static_cast<std::size_t>(k));
  };
  auto on_block = [&](KeyBlock<Key> const& blk) {
    bool const parallel = (blk.r1 - blk.r0) * blk.cols() >= kParallelKeys;
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int64_t i = blk.r0; i < blk.r1; ++i) {
      RowTopK<Key>& top = open[i - blk.r0];
      for (std::int64_t j = blk.c0; j < blk.c1; ++j) {
        if (!blk.excluded(i, j)) top.offer(Traits::entry(blk.key(i, j), static_cast<std::uint32_t>(j - blk.y_begin)));
      }
    }
    if (column_best == nullptr) return;
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int64_t j = blk.c0; j < blk.c1; ++j) {
      Entry best = (*column_best)[j];
      for (std::int64_t i = blk.r0; i < blk.r1; ++i) {
        Entry const e = Traits::entry(blk.key(i, j), static_cast<std::uint32_t>(i - blk.x_begin));
        if (!blk.excluded(i, j) && e < best) best = e;
      }
      (*column_best)[j] = best;
    }
  };
  auto end_rows = [&](std::int64_t, std::int64_t r0, std::int64_t r1) {
#pragma omp parallel for schedule(static) if ((r1 - r0) * k >= kParallelKeys)
    for (std::int64_t i = r0; i < r1; ++i) {
      std::vector<Entry> const& s = open[i - r0].sorted();
      for (std::int64_t r = 0; r < k; ++r) {
        bool const real = r < static_cast<std::int64_t>(s.size());
        dist[i * distances.stride + r] =
            real ? distance_of<Key>(Traits::key(s[r]), p.rank) : std::numeric_limits<Key>::quiet_NaN();
        idx[i * indices.stride + r] = real ? Traits::index(s[r]) : -1;
      }
    }
  };
  scan_key_blocks<Key>(p, begin_rows, on_block, end_rows);
}

template <class Key>
MatchResult select_matches(SelectProblem const& p, MatchCriteria const& c) {
  using Traits = KeyTraits<Key>;
  std::int64_t const m = p.m();
  Array best_d = Array::allocate(m, 2, p.distance_dtype, Device::cpu());
  Array best_i = Array::allocate(m, 2, DType::kInt64, Device::cpu());
  std::vector<typename Traits::Entry> column_best(c.mutual ? p.n() : 0, Traits::empty());
  select_knn<Key>(p, 2, best_d.view(), best_i.view(), c.mutual ? &column_best : nullptr);

  Key const* d = best_d.data_as<Key>();
  std::int64_t const* j = best_i.data_as<std::int64_t>();
  std::vector<std::int64_t> queries, offsets{0};
  for (std::int64_t b = 0; b < p.problems(); ++b) {
    for (std::int64_t i = p.x_offsets[b]; i < p.x_offsets[b + 1]; ++i) {
      if (j[2 * i] < 0 || !passes_ratio_test(d[2 * i], j[2 * i + 1], d[2 * i + 1], c)) continue;
      if (c.mutual && Traits::index(column_best[p.y_offsets[b] + j[2 * i]]) != i - p.x_offsets[b]) continue;
      queries.push_back(i);
    }
    offsets.push_back(static_cast<std::int64_t>(queries.size()));
  }

  auto const count = static_cast<std::int64_t>(queries.size());
  MatchResult r{Array::allocate(count, 2, DType::kInt64, Device::cpu()),
                Array::allocate(count, 1, p.distance_dtype, Device::cpu()),
                Array::allocate(1, p.problems() + 1, DType::kInt64, Device::cpu())};
  std::copy(offsets.begin(), offsets.end(), r.offsets.data_as<std::int64_t>());
  for (std::int64_t b = 0; b < p.problems(); ++b) {
    for (std::int64_t q = offsets[b]; q < offsets[b + 1]; ++q) {
      std::int64_t const i = queries[q];
      r.pairs.data_as<std::int64_t>()[2 * q] = i - p.x_offsets[b];
      r.pairs.data_as<std::int64_t>()[2 * q + 1] = j[2 * i];
      r.distances.data_as<Key>()[q] = d[2 * i];
    }
  }
  return r;
}

}  // namespace

void knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices) {
  if (p.distance_dtype == DType::kFloat64) return select_knn<double>(p, k, distances, indices, nullptr);
  select_knn<float>(p, k, distances, indices, nullptr);
}

MatchResult match(SelectProblem const& p, MatchCriteria const& criteria) {
  if (p.distance_dtype == DType::kFloat64) return select_matches<double>(p, criteria);
  return select_matches<float>(p, criteria);
}

}  // namespace cudist::neighbors::detail::cpu
