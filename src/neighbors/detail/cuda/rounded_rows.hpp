// float32 rows in the form of the tensor-core candidate search (bounded_search_kernel.cuh): each
// row scaled by a power of two that brings its largest magnitude into [2^13, 2^14) and rounded to
// float16 (11 significant bits, 8 times bfloat16's; zero-padded to a multiple of 16 columns, the
// MMA's depth), with its scale and the terms of its op's bound (expansion_bound.hpp): squared L2
// takes its squared norm as the expansion's lower and upper terms, the dot products its norm.
#pragma once

#include <cstdint>
#include <vector>

#include "cudist/core/array.hpp"
#include "neighbors/detail/expansion_bound.hpp"

namespace cudist::neighbors::detail::cuda {

/// Which terms a row's bound takes.
enum class RowTermKind {
  kSquaredNorms,  // lo: (1 - e) |row|^2 rounded down; hi: (1 + e) |row|^2 rounded up
  kNorms,         // lo and hi: |row| rounded up
};

/// Per row: its lower term, and the power of two the row was divided by.
struct LowerTerm {
  float lo;     // NaN: the row is always recomputed
  float scale;
};

struct RoundedRows {
  std::uint16_t const* values = nullptr;  // (rows, depth) float16 bits, row-major, 16-byte aligned rows
  LowerTerm const* lower = nullptr;       // (padded)
  float const* hi = nullptr;  // (padded) its upper term; NaN: always recomputed
  int depth = 0;              // d rounded up to a multiple of 16
};

/// Columns of the rounded copies of rows of d columns.
inline int rounded_depth(std::int64_t d) { return static_cast<int>((d + 15) / 16 * 16); }

/// The arrays of `rows` rows of `cols` columns rounded, with terms for `padded_rows` >= rows rows,
/// not yet written (a streamed database rounds its rows a part at a time); kept alive in `keep`.
RoundedRows allocate_rounded_rows(std::int64_t rows, std::int64_t cols, std::int64_t padded_rows,
                                  std::vector<Array>& keep, void* stream);

/// Rows [first, last) of `rows` (float32, device) rounded into `into` (from allocate_rounded_rows),
/// in stream order; rows from rows.rows on (up to the padded count) get the padding's terms.
void round_row_range(ConstMatrixView rows, RoundedRows const& into, ExpansionBound const& bound, RowTermKind kind,
                     std::int64_t first, std::int64_t last, void* stream);

/// `rows` (float32, device) rounded, in stream order; the arrays are kept alive in `keep`. The
/// terms have `padded_rows` >= rows entries, 0 (scale 1) past the last row.
RoundedRows round_rows(ConstMatrixView rows, std::int64_t padded_rows, ExpansionBound const& bound, RowTermKind kind,
                       std::vector<Array>& keep, void* stream);

}  // namespace cudist::neighbors::detail::cuda
