// A pairwise problem as the backends receive it: inputs already in the backend's memory and in
// the compute dtype (float32, float64, or uint8 for the exact integer ops), any preprocessing
// done, and the op described by plain data (OpSpec). Planning (pairwise_plan.cpp) builds these;
// the backends only compute.
#pragma once

#include <cstdint>

#include "core/detail/host_device.hpp"
#include "cudist/core/matrix_view.hpp"

namespace cudist::detail {

enum class OpKind : std::uint8_t {
  kSqDiffSum,    // sqeuclidean, euclidean (take_sqrt), and everything reduced to them
  kAbsDiffSum,   // cityblock
  kAbsDiffMax,   // chebyshev
  kPowDiffSum,   // minkowski, general p
  kDot,          // inner_product, cosine
  kCenteredDot,  // correlation (double accumulation)
  kCanberra,
  kBrayCurtis,
  kJensenShannon,
  kMismatch,     // hamming, jaccard
  kDice,
  kBoolean,      // kulczynski1, rogerstanimoto, russellrao, sokalmichener, sokalsneath, yule
  kXorPopcount,  // hamming_bits
};

struct OpSpec {
  OpKind kind = OpKind::kSqDiffSum;
  std::uint8_t finish = 0;       // the op's Finish enumerator, for ops that have one
  bool take_sqrt = false;        // kSqDiffSum
  double p = 2.0;                // kPowDiffSum
  void const* weights = nullptr; // per-column weights (compute dtype) for the weighted ops
  double total_weight = 0;       // d or sum(w): kMismatch, kBoolean
  void const* x_norms = nullptr; // kDot cosine, kCenteredDot: row norms (compute dtype)
  void const* y_norms = nullptr;
  bool signed_bytes = false;     // byte rows read as 32-bit words (int32 views) hold int8, not uint8
};

/// What is written: the full (m, n) matrix, or scipy's condensed upper triangle (x is y).
enum class OutputLayout : std::uint8_t { kFull, kCondensed };

struct PairwiseProblem {
  ConstMatrixView x;  // (m, d) compute dtype, backend memory
  ConstMatrixView y;  // (n, d); for kCondensed the same as x
  MatrixView out;     // (m, n) full, or (1, m(m-1)/2) condensed; float32 or float64
  OpSpec op;
  OutputLayout layout = OutputLayout::kFull;
  bool zero_diagonal = false;  // x is y: finite diagonal entries are written as exact 0
  bool tf32 = false;           // Precision::kTf32 asked for (the CUDA backend decides where it applies)
  /// The rows of the result computed: rows row_begin .. row_end - 1 of x (row_end < 0: all of
  /// them). out holds only those rows: full, row r at out row r - row_begin; condensed, the
  /// entries from the first one of row row_begin on. Out-of-core calls run one window at a time.
  std::int64_t row_begin = 0;
  std::int64_t row_end = -1;

  std::int64_t window_end() const { return row_end < 0 ? x.rows : row_end; }
};

/// Index in scipy's condensed order of the first entry of row `row` (pairs (row, row + 1 ..)) of
/// n points: n*row - row*(row+1)/2.
CUDIST_HD std::int64_t condensed_row_start(std::int64_t n, std::int64_t row) {
  return n * row - row * (row + 1) / 2;
}

}  // namespace cudist::detail
