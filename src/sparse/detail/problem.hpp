// What the API layer hands to a backend (SpmvProblem), and what a backend learns about a matrix
// when a plan is made (SpmvAnalysis, CsrViolation). Everything here is validated and already in
// the backend's memory; backends only compute.
#pragma once

#include <cstdint>

#include "cudist/core/array.hpp"
#include "cudist/sparse/csr.hpp"
#include "cudist/sparse/spmv.hpp"

namespace cudist::sparse::detail {

enum class SemiringKind : std::uint8_t { kPlusTimes, kMinPlus };

/// y(i, j) = out(add_k mul(a_ik, x(k, j)), y(i, j)) for j < ncols; out is alpha/beta scaling
/// for kPlusTimes and y = min(y, acc) for kMinPlus. Dense element (i, j) of x lives at
/// x[i * x_row_stride + j * x_col_stride] (in elements), likewise y.
struct SpmvProblem {
  CsrView a;  // op(A)
  SemiringKind semiring = SemiringKind::kPlusTimes;
  double alpha = 1.0;
  double beta = 0.0;
  std::int64_t ncols = 1;
  void const* x = nullptr;
  std::int64_t x_row_stride = 1;
  std::int64_t x_col_stride = 0;
  void* y = nullptr;
  std::int64_t y_row_stride = 1;
  std::int64_t y_col_stride = 0;
};

/// The per-matrix state of a plan, computed once by the backend.
struct SpmvAnalysis {
  SpmvAlgorithm algorithm = SpmvAlgorithm::kMergePath;
  int vector_width = 1;             // CUDA kRowSplit: elements per load of indices and values
  int group_size = 0;               // CUDA kRowSplit: lanes per row
  int rows_per_block = 0;           // CUDA kThreadPerRow: consecutive rows a block sums
  std::int64_t items_per_tile = 0;  // rows + nonzeros per merge-path tile (CUDA) or chunk (CPU)
  Array tile_rows;                  // (1, tiles + 1) int64: rows ended before each tile starts
  mutable Array scratch;            // CUDA: per-tile partial rows, rewritten by every product

  std::int64_t tiles() const { return tile_rows.cols() - 1; }
};

/// The first structural defect of a CSR matrix, in the order validate_csr reports them.
struct CsrViolation {
  enum class Kind : std::uint8_t {
    kNone,
    kFirstOffset,       // row_offsets[0] != 0
    kLastOffset,        // row_offsets[rows] != nnz
    kDecreasingOffset,  // row_offsets[index] < row_offsets[index - 1]
    kColumnOutOfRange,  // col_indices[index] outside [0, cols)
  };
  Kind kind = Kind::kNone;
  std::int64_t index = 0;
  std::int64_t value = 0;     // the offending row_offsets[index] or col_indices[index]
  std::int64_t previous = 0;  // kDecreasingOffset: row_offsets[index - 1]
};

}  // namespace cudist::sparse::detail
