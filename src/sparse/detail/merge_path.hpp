// The merge path of CSR SpMV (Merrill & Garland, "Merge-based parallel sparse matrix-vector
// multiplication", SC 2016): merge the row-end offsets A[i] = row_offsets[i + 1] with the nonzero
// indices B[j] = j. Walking the merged sequence, a row end comes before nonzero j when
// A[i] <= j, i.e. once all of row i's nonzeros are consumed. Cutting the path into equal pieces
// gives every worker the same number of rows + nonzeros however the row lengths are spread, so
// one huge row or a million empty rows cost no more than their share.
#pragma once

#include <cstdint>

#include "core/detail/host_device.hpp"

namespace cudist::sparse::detail {

/// How many rows end within the first `diagonal` steps of the merge path (the nonzeros consumed
/// are then diagonal - that). `row_end(i)` returns A[i]; rows and nnz bound the two lists.
/// Position: the type of the path's positions, std::int64_t for a whole matrix; a kernel's
/// search inside one tile uses int, whose arithmetic is a third of the 64-bit search's
/// instructions (ncu run 170: the 64-bit search was ~18% of the merge-path kernel's).
template <class Position = std::int64_t, class RowEnd>
CUDIST_HD Position merge_path_rows(Position diagonal, RowEnd const& row_end, Position rows, Position nnz) {
  Position lo = diagonal > nnz ? diagonal - nnz : 0;
  Position hi = diagonal < rows ? diagonal : rows;
  while (lo < hi) {
    Position const mid = lo + (hi - lo) / 2;
    if (row_end(mid) <= diagonal - mid - 1) {
      lo = mid + 1;  // row mid ends before the nonzero at this diagonal: more rows fit
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// A[i] = row_offsets[i + 1], the row-end list of a CSR matrix with index type I.
template <class I>
struct RowEnds {
  I const* row_offsets;
  CUDIST_HD std::int64_t operator()(std::int64_t i) const {
    return static_cast<std::int64_t>(row_offsets[i + 1]);
  }
};

}  // namespace cudist::sparse::detail
