// The CPU backend's walk over a selection problem: blocks of rank keys computed by the pairwise
// CPU backend (its OpenMP tiles and micro-kernel, on a (rows x columns) block of x against y),
// handed to the selection one block at a time. Only a block is ever held, never the full matrix.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cudist/core/matrix_view.hpp"
#include "distance/detail/backend.hpp"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail::cpu {

constexpr std::int64_t kBlockRows = 256;   // query rows whose selections are open at once
constexpr std::int64_t kBlockCols = 2048;  // 256 x 2048 keys: 2 MB (float), L2/L3-resident
/// Blocks of fewer keys run the selection's loops on the calling thread: waking the OpenMP team
/// for each of a block's loops cost more than a small call's work (4 x 5 rows: knn took 8.9 us in
/// the library where cdist, one parallel region, took 1.0; docs/tuning.md, "Python").
constexpr std::int64_t kParallelKeys = std::int64_t{1} << 15;

/// Rank keys of rows [r0, r1) of x against columns [c0, c1) of y, row-major, and which problem
/// they belong to (local indices count from x_begin / y_begin).
template <class Key>
struct KeyBlock {
  std::int64_t r0, r1, c0, c1;
  std::int64_t x_begin, y_begin;
  Key const* keys;
  bool exclude_self;

  std::int64_t cols() const { return c1 - c0; }
  Key key(std::int64_t i, std::int64_t j) const { return keys[(i - r0) * cols() + (j - c0)]; }
  bool excluded(std::int64_t i, std::int64_t j) const { return exclude_self && i == j; }
};

namespace key_blocks_detail {

inline ConstMatrixView rows_of(ConstMatrixView v, std::int64_t begin, std::int64_t end) {
  v.data = static_cast<char const*>(v.data) + begin * v.stride * static_cast<std::int64_t>(size_of(v.dtype));
  v.rows = end - begin;
  return v;
}

template <class Key>
void const* offset(void const* norms, std::int64_t rows) {
  return norms == nullptr ? nullptr : static_cast<Key const*>(norms) + rows;
}

/// Finished values of the block by the pairwise backend, then ranked: negated for a similarity,
/// exact 0 on the diagonal of a self-join.
template <class Key>
void compute_keys(SelectProblem const& p, std::int64_t r0, std::int64_t r1, std::int64_t c0,
                  std::int64_t c1, std::vector<Key>& keys) {
  cudist::detail::PairwiseProblem sub = p.pairwise;
  sub.x = rows_of(p.pairwise.x, r0, r1);
  sub.y = rows_of(p.pairwise.y, c0, c1);
  keys.resize(static_cast<std::size_t>((r1 - r0) * (c1 - c0)));
  sub.out = MatrixView(keys.data(), r1 - r0, c1 - c0, c1 - c0, p.distance_dtype, Memory::kHost);
  // Row norms (cosine, correlation) are indexed by the row within the view.
  sub.op.x_norms = offset<Key>(p.pairwise.op.x_norms, r0);
  sub.op.y_norms = offset<Key>(p.pairwise.op.y_norms, c0);
  cudist::detail::cpu::pairwise(sub);
  std::int64_t const cols = c1 - c0;
#pragma omp parallel for schedule(static) if ((r1 - r0) * cols >= kParallelKeys)
  for (std::int64_t i = r0; i < r1; ++i) {
    Key* row = keys.data() + (i - r0) * cols;
    if (p.rank.similarity) {
      for (std::int64_t j = 0; j < cols; ++j) row[j] = -row[j];
    }
    if (p.rank.zero_diagonal && i >= c0 && i < c1 && std::isfinite(row[i - c0])) row[i - c0] = Key(0);
  }
}

}  // namespace key_blocks_detail

/// For each problem and each block of its query rows: begin_rows(b, r0, r1); on_block(KeyBlock)
/// for the column blocks in increasing order; end_rows(b, r0, r1). The callbacks are called from
/// one thread and parallelise their own loops over rows or columns.
template <class Key, class BeginRows, class OnBlock, class EndRows>
void scan_key_blocks(SelectProblem const& p, BeginRows&& begin_rows, OnBlock&& on_block,
                     EndRows&& end_rows) {
  std::vector<Key> keys;
  for (std::int64_t b = 0; b < p.problems(); ++b) {
    std::int64_t const xb = p.x_offsets[b], xe = p.x_offsets[b + 1];
    std::int64_t const yb = p.y_offsets[b], ye = p.y_offsets[b + 1];
    for (std::int64_t r0 = xb; r0 < xe; r0 += kBlockRows) {
      std::int64_t const r1 = std::min(xe, r0 + kBlockRows);
      begin_rows(b, r0, r1);
      for (std::int64_t c0 = yb; c0 < ye; c0 += kBlockCols) {
        std::int64_t const c1 = std::min(ye, c0 + kBlockCols);
        key_blocks_detail::compute_keys(p, r0, r1, c0, c1, keys);
        on_block(KeyBlock<Key>{r0, r1, c0, c1, xb, yb, keys.data(), p.rank.exclude_self});
      }
      end_rows(b, r0, r1);
    }
  }
}

}  // namespace cudist::neighbors::detail::cpu
