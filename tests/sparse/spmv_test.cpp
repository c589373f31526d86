// SpMV, SpMM and the min-plus relaxation against the naive reference (reference/spmv_ref.hpp),
// on the backend this executable was built for, for every value/index dtype pair and, on CUDA,
// every kernel. Data are small integers, so float32 results are exact and compare with ==.
#include "cudist/sparse/spmv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/reduced.hpp"
#include "cudist/core/error.hpp"
#include "cudist/io/matrix_market.hpp"
#include "cudist/sparse/generators.hpp"
#include "reference/spmv_ref.hpp"
#include "sparse/sparse_fixtures.hpp"

namespace cudist {
namespace {

using sparse::Layout;
using sparse::Operation;
using sparse::SpmvAlgorithm;
using test::SparseTypes;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

class Spmv : public ::testing::TestWithParam<SparseTypes> {
 protected:
  SparseTypes types() const { return GetParam(); }

  /// y = alpha op(A) x + beta y with every kernel of the backend, against the reference;
  /// y starts as y0 (random integers unless given).
  void expect_spmv(reference::Csr const& a, bool transpose, double alpha, double beta,
                   std::vector<double> y0 = {}) {
    Resources const res = test::backend_resources();
    sparse::CsrMatrix const matrix = test::to_backend(a, types());
    std::int64_t const x_len = transpose ? a.rows : a.cols;
    std::int64_t const y_len = transpose ? a.cols : a.rows;
    std::vector<double> const x = test::random_integers(x_len, -8, 8, 11 + x_len);
    if (y0.empty()) y0 = test::random_integers(y_len, -8, 8, 13 + y_len);
    std::vector<double> const want = reference::spmv(a, transpose, x, y0, alpha, beta);
    for (SpmvAlgorithm algorithm : test::backend_algorithms()) {
      SCOPED_TRACE(std::string("algorithm ") + test::algorithm_name(algorithm) +
                   (transpose ? ", transposed" : ""));
      sparse::SpmvPlan const plan = sparse::make_spmv_plan(
          res, matrix.view(), {transpose ? Operation::kTranspose : Operation::kNone, algorithm});
      Array const xd = test::backend_array(x, 1, x_len, types().value);
      Array yd = test::backend_array(y0, y_len, 1, types().value);  // a column vector
      sparse::spmv(res, plan, xd.view(), yd.view(), alpha, beta);
      std::vector<double> const got = test::to_doubles(yd.view());
      CUDIST_EXPECT_SAME_VALUES(got, want);
    }
  }

  void expect_spmv_both_ways(reference::Csr const& a) {
    for (bool transpose : {false, true}) {
      expect_spmv(a, transpose, 1.0, 0.0);
      expect_spmv(a, transpose, 2.0, -1.0);
    }
  }

  /// y = min(y, op(A) + x) with every kernel, x and y holding infinities (unreached vertices).
  void expect_min_plus(reference::Csr const& a, bool transpose) {
    Resources const res = test::backend_resources();
    sparse::CsrMatrix const m = test::to_backend(a, types());
    std::int64_t const x_len = transpose ? a.rows : a.cols, y_len = transpose ? a.cols : a.rows;
    std::vector<double> x = test::random_integers(x_len, 0, 20, 50);
    std::vector<double> y0 = test::random_integers(y_len, 0, 30, 51);
    for (std::int64_t i = 0; i < x_len; i += 3) x[i] = kInf;
    for (std::int64_t i = 0; i < y_len; i += 4) y0[i] = kInf;
    std::vector<double> const want = reference::spmv_min_plus(a, transpose, x, y0);
    for (SpmvAlgorithm algorithm : test::backend_algorithms()) {
      SCOPED_TRACE(std::string(test::algorithm_name(algorithm)) + (transpose ? " transposed" : ""));
      auto const plan = sparse::make_spmv_plan(
          res, m.view(), {transpose ? Operation::kTranspose : Operation::kNone, algorithm});
      Array const xd = test::backend_array(x, 1, x_len, types().value);
      Array yd = test::backend_array(y0, 1, y_len, types().value);
      sparse::spmv_min_plus(res, plan, xd.view(), yd.view());
      CUDIST_EXPECT_SAME_VALUES(test::to_doubles(yd.view()), want);
    }
  }

  /// y = 2 A x + y with every kernel, where A's index and value arrays start one element into
  /// their allocations (no vector loads possible), x is column 1 of a (cols, 3) matrix and y
  /// column 2 of a (rows, 4) matrix, whose other columns must stay as they were.
  void expect_strided_on_unaligned_arrays(reference::Csr const& a) {
    Resources const res = test::backend_resources();
    reference::Csr shifted = a;
    shifted.col_indices.insert(shifted.col_indices.begin(), 0);
    shifted.values.insert(shifted.values.begin(), 0.0);
    sparse::CsrMatrix const storage = test::to_backend(shifted, types());
    sparse::CsrView view = storage.view();
    std::size_t const index_bytes = size_of(types().index), value_bytes = size_of(types().value);
    view.col_indices = static_cast<char const*>(view.col_indices) + index_bytes;
    view.values = static_cast<char const*>(view.values) + value_bytes;
    // Offsets still index from the array starts, so rebuild them for the shifted arrays.
    sparse::CsrMatrix const offsets = test::to_backend(a, types());
    view.row_offsets = offsets.view().row_offsets;
    view.nnz = static_cast<std::int64_t>(a.values.size());

    std::int64_t const rows = a.rows, cols = a.cols;
    std::vector<double> const xs = test::random_integers(cols * 3, -8, 8, 9);
    std::vector<double> const ys = test::random_integers(rows * 4, -8, 8, 10);
    std::vector<double> x(cols), y0(rows);
    for (std::int64_t i = 0; i < cols; ++i) x[i] = xs[i * 3 + 1];
    for (std::int64_t i = 0; i < rows; ++i) y0[i] = ys[i * 4 + 2];
    std::vector<double> const want = reference::spmv(a, false, x, y0, 2.0, 1.0);
    for (SpmvAlgorithm algorithm : test::backend_algorithms()) {
      SCOPED_TRACE(test::algorithm_name(algorithm));
      Array const xm = test::backend_array(xs, cols, 3, types().value);
      Array ym = test::backend_array(ys, rows, 4, types().value);
      MatrixView const ym_view = ym.view();
      ConstMatrixView const x_col(static_cast<char const*>(xm.data()) + value_bytes, cols, 1, 3,
                                  types().value);
      MatrixView const y_col(static_cast<char*>(ym.data()) + 2 * value_bytes, rows, 1, 4,
                             types().value);
      auto const plan = sparse::make_spmv_plan(res, view, {Operation::kNone, algorithm});
      sparse::spmv(res, plan, x_col, y_col, 2.0, 1.0);
      std::vector<double> const all = test::to_doubles(ym_view);
      std::vector<double> got(rows);
      for (std::int64_t i = 0; i < rows; ++i) {
        got[i] = all[i * 4 + 2];
        for (int j : {0, 1, 3}) ASSERT_EQ(all[i * 4 + j], ys[i * 4 + j]) << "wrote outside column 2";
      }
      CUDIST_EXPECT_SAME_VALUES(got, want);
    }
  }
};

TEST_P(Spmv, MatchesReferenceOnRaggedRowsWithEmptyRowsAndRepeatedColumns) {
  CUDIST_REQUIRE_BACKEND();
  for (std::int64_t rows : {1, 2, 31, 33, 203}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    expect_spmv_both_ways(test::random_ragged(rows, 129, 20, 100 + rows));
  }
}

TEST_P(Spmv, MatchesReferenceWhenOneRowHoldsMostNonzeros) {
  CUDIST_REQUIRE_BACKEND();
  // 100000 entries in row 17 span ~60 merge-path tiles: the carry fix-up runs over > 32 tiles.
  expect_spmv_both_ways(test::one_heavy_row(1023, 799, 17, 100000, 7));
}

TEST_P(Spmv, MatchesReferenceOnRegularRows) {
  CUDIST_REQUIRE_BACKEND();
  reference::Csr const a = test::regular_rows(3001, 2003, 48, 5);
  expect_spmv_both_ways(a);
  if (test::backend_device().is_cuda()) {
    sparse::CsrMatrix const m = test::to_backend(a, types());
    auto const plan = sparse::make_spmv_plan(test::backend_resources(), m.view());
    EXPECT_EQ(plan.algorithm(), SpmvAlgorithm::kRowSplit) << "48 per row, all equal: row-split";
  }
}

TEST_P(Spmv, MatchesReferenceOnOneNonzero) {
  CUDIST_REQUIRE_BACKEND();
  reference::Csr a;
  a.rows = 113;
  a.cols = 127;
  a.offsets.assign(114, 0);
  for (std::int64_t r = 61; r <= 113; ++r) a.offsets[r] = 1;  // the entry sits in row 60
  a.col_indices = {126};
  a.values = {-3.0};
  expect_spmv_both_ways(a);
}

TEST_P(Spmv, HandlesEmptyMatrices) {
  CUDIST_REQUIRE_BACKEND();
  for (auto [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{0, 0}, {0, 5}, {6, 0}, {31, 33}}) {
    SCOPED_TRACE("shape " + std::to_string(rows) + " x " + std::to_string(cols));
    reference::Csr a;
    a.rows = rows;
    a.cols = cols;
    a.offsets.assign(rows + 1, 0);  // no entries: y = beta * y
    for (bool transpose : {false, true}) {
      if ((transpose ? cols : rows) == 0 || (transpose ? rows : cols) == 0) {
        // A vector of length 0 cannot be built from a one-element row; plans still work.
        Resources const res = test::backend_resources();
        sparse::CsrMatrix const m = test::to_backend(a, types());
        auto const plan = sparse::make_spmv_plan(
            res, m.view(), {transpose ? Operation::kTranspose : Operation::kNone});
        EXPECT_EQ(plan.rows(), transpose ? cols : rows);
        EXPECT_EQ(plan.cols(), transpose ? rows : cols);
        EXPECT_EQ(plan.nnz(), 0);
        if (plan.rows() > 0) {
          Array x = test::backend_array({}, 1, 0, types().value);
          std::vector<double> const y0 = test::random_integers(plan.rows(), -8, 8, 3);
          Array y = test::backend_array(y0, 1, plan.rows(), types().value);
          sparse::spmv(res, plan, x.view(), y.view(), 1.0, 3.0);
          std::vector<double> want = y0;
          for (double& v : want) v *= 3.0;
          CUDIST_EXPECT_SAME_VALUES(test::to_doubles(y.view()), want);
        }
        continue;
      }
      expect_spmv(a, transpose, 1.0, 2.0);
    }
  }
}

TEST_P(Spmv, FollowsBlasRulesForAlphaAndBeta) {
  CUDIST_REQUIRE_BACKEND();
  reference::Csr const a = test::random_ragged(203, 129, 12, 21);
  for (auto [alpha, beta] :
       {std::pair{1.0, 0.0}, {2.0, 0.0}, {-1.0, 1.0}, {3.0, -2.0}, {0.0, 3.0}}) {
    SCOPED_TRACE("alpha " + std::to_string(alpha) + ", beta " + std::to_string(beta));
    expect_spmv(a, false, alpha, beta);
  }
  // beta == 0: y is not read, so NaN in y does not reach the result.
  expect_spmv(a, false, 2.0, 0.0, std::vector<double>(203, kNaN));
  expect_spmv(a, true, 1.0, 0.0, std::vector<double>(129, kNaN));
}

TEST_P(Spmv, AlphaZeroIgnoresNonFiniteProducts) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  reference::Csr const a = test::random_ragged(31, 33, 6, 4);
  sparse::CsrMatrix const m = test::to_backend(a, types());
  Array const x = test::backend_array(std::vector<double>(33, kInf), 33, 1, types().value);
  std::vector<double> const y0 = test::random_integers(31, -8, 8, 5);
  Array y = test::backend_array(y0, 31, 1, types().value);
  sparse::spmv(res, m.view(), x.view(), y.view(), 0.0, 2.0);
  std::vector<double> want = y0;
  for (double& v : want) v *= 2.0;
  CUDIST_EXPECT_SAME_VALUES(test::to_doubles(y.view()), want);
}

TEST_P(Spmv, SumsRepeatedColumnsInAnyOrder) {
  CUDIST_REQUIRE_BACKEND();
  // Row 0 stores column 2 twice and column 0 between them: A(0, :) = [3, 0, 5].
  reference::Csr a;
  a.rows = 2;
  a.cols = 3;
  a.offsets = {0, 3, 4};
  a.col_indices = {2, 0, 2, 1};
  a.values = {1.0, 3.0, 4.0, -2.0};
  Resources const res = test::backend_resources();
  sparse::CsrMatrix const m = test::to_backend(a, types());
  Array const x = test::backend_array({1.0, 10.0, 100.0}, 1, 3, types().value);
  Array y = test::backend_array({0.0, 0.0}, 1, 2, types().value);
  sparse::spmv(res, m.view(), x.view(), y.view());
  CUDIST_EXPECT_SAME_VALUES(test::to_doubles(y.view()), (std::vector<double>{503.0, -20.0}));
  expect_spmv_both_ways(a);
}

TEST_P(Spmv, MatchesReferenceOnPowerLawAndPoissonMatrices) {
  CUDIST_REQUIRE_BACKEND();
  {
    SCOPED_TRACE("R-MAT scale 11");
    expect_spmv_both_ways(test::from_library(sparse::rmat_csr(11, 8, 3)));
  }
  {
    SCOPED_TRACE("Poisson 7-point 9^3");
    expect_spmv_both_ways(test::from_library(sparse::poisson3d_csr(9)));
  }
}

// Short rows, thread-per-row's case (kAuto takes it for rows of at most 32, at most 4x the mean).
// Its blocks hold min(256, 2048 / longest) float or (1024 / longest) double rows, so these row
// counts put block boundaries anywhere in a range of ragged rows; ragged lengths also start rows
// at every offset from a 16-byte boundary, and the nonzero counts are rarely multiples of 4.
TEST_P(Spmv, MatchesReferenceOnShortRowsOfEveryLength) {
  CUDIST_REQUIRE_BACKEND();
  for (int longest : {1, 3, 7, 16, 20, 32}) {
    for (std::int64_t rows : {1, 2, 65, 257, 1000, 4099}) {
      SCOPED_TRACE("rows of 0.." + std::to_string(longest) + ", " + std::to_string(rows) + " rows");
      reference::Csr const a = test::random_ragged(rows, 97, longest, 1000 * longest + rows);
      expect_spmv(a, false, 2.0, -1.0);
    }
  }
  expect_spmv_both_ways(test::random_ragged(1000, 333, 9, 77));
}

TEST_P(Spmv, MatchesReferenceWhenNnzIsNotAMultipleOfTheVectorWidth) {
  CUDIST_REQUIRE_BACKEND();
  // One row of 1, 2, 3, 5, 6, 7 entries (its end falls inside the last 16-byte chunk), then rows
  // that end the arrays 1, 2 and 3 elements into a chunk after empty rows.
  for (int n : {1, 2, 3, 5, 6, 7}) {
    SCOPED_TRACE("one row of " + std::to_string(n));
    reference::Csr a;
    a.rows = 1;
    a.cols = 11;
    a.offsets = {0, n};
    for (int e = 0; e < n; ++e) {
      a.col_indices.push_back((3 * e) % 11);
      a.values.push_back(e % 2 ? 2.0 : -3.0);
    }
    expect_spmv(a, false, 1.0, 0.0);
  }
  reference::Csr a;
  a.rows = 6;
  a.cols = 4;
  a.offsets = {0, 3, 3, 5, 6, 6, 9};  // 9 = 2 x 4 + 1
  a.col_indices = {0, 3, 1, 2, 2, 3, 0, 1, 3};
  a.values = {1, -2, 3, -4, 5, -6, 7, -8, 2};
  expect_spmv_both_ways(a);
}

TEST_P(Spmv, ShortRowsPropagateInfinitiesAndNaN) {
  CUDIST_REQUIRE_BACKEND();
  reference::Csr a = test::regular_rows(300, 50, 7, 31);  // thread-per-row under kAuto
  a.values[7 * 3 + 2] = kInf;                             // row 3: +inf
  a.values[7 * 10 + 0] = kInf;                            // row 10: +inf - inf = NaN
  a.values[7 * 10 + 6] = -kInf;
  a.values[7 * 200 + 4] = kNaN;   // row 200: NaN
  a.values[7 * 299 + 6] = -kInf;  // the last row's last entry: -inf
  expect_spmv(a, false, 1.0, 0.0);
  expect_spmv(a, false, 2.0, 1.0);
}

TEST_P(Spmv, ShortRowsTakeThreadPerRowAndMatchAtScale) {
  CUDIST_REQUIRE_BACKEND();
  struct Case {
    char const* name;
    reference::Csr a;
    SpmvAlgorithm kernel;  // what kAuto picks on CUDA
  };
  Case const cases[] = {
      {"Poisson 7-point 40^3", test::from_library(sparse::poisson3d_csr(40)),
       SpmvAlgorithm::kThreadPerRow},
      {"16 per row, 200000 rows (20000 reduced)",
       test::regular_rows(test::reduced_run() ? 20000 : 200000, 200000, 16, 41),
       SpmvAlgorithm::kThreadPerRow},
      {"R-MAT scale 14", test::from_library(sparse::rmat_csr(14, 8, 5)), SpmvAlgorithm::kMergePath},
  };
  for (Case const& c : cases) {
    SCOPED_TRACE(c.name);
    expect_spmv(c.a, false, 1.0, 0.0);
    if (test::backend_device().is_cuda()) {
      sparse::CsrMatrix const m = test::to_backend(c.a, types());
      auto const plan = sparse::make_spmv_plan(test::backend_resources(), m.view());
      EXPECT_EQ(plan.algorithm(), c.kernel) << test::algorithm_name(plan.algorithm());
    }
  }
}

TEST_P(Spmv, ThreadPerRowSumsRowsLongerThanItsStage) {
  CUDIST_REQUIRE_BACKEND();
  // Forced on a row of 5000 (several 2048-float / 1024-double passes, one block a row): more
  // than 2^20 rows, so the blocks also loop over rows (not in a reduced run: the sanitizers'
  // 10-minute round).
  std::int64_t const rows = test::reduced_run() ? 70000 : (std::int64_t(1) << 20) + 4097;
  reference::Csr const light = test::random_ragged(rows, 1000, 2, 51);
  reference::Csr a;
  a.rows = rows;
  a.cols = 1000;
  std::int64_t const heavy = rows - 3000;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t k = light.offsets[r]; k < light.offsets[r + 1]; ++k) {
      a.col_indices.push_back(light.col_indices[k]);
      a.values.push_back(light.values[k]);
    }
    for (std::int64_t e = 0; r == heavy && e < 5000; ++e) {
      a.col_indices.push_back((e * 7) % 1000);
      a.values.push_back(e % 3 == 0 ? -1.0 : 2.0);
    }
    a.offsets.push_back(static_cast<std::int64_t>(a.values.size()));
  }
  expect_spmv(a, false, 1.0, 0.0);
}

// Thread-per-row runs as many blocks as fit on the GPU at once (an H100 holds 5 a
// multiprocessor, 660, of the float32 / int32 kernel), and each walks every gridDim-th row block
// with the next one's loads in flight. Rows of 0..32 entries make row blocks of 64 float or 32 double rows: 100003 rows
// are 1563 or 3126 row blocks (782 or 1564 of 50021 in a reduced run), the last one partial.
reference::Csr rows_of_up_to_32(std::int64_t rows, std::uint64_t seed) {
  reference::Csr a = test::random_ragged(rows - 2, 1000, 32, seed);
  auto append_row = [&a](int length) {
    for (int e = 0; e < length; ++e) {
      a.col_indices.push_back((7 * e) % a.cols);
      a.values.push_back(e % 2 ? 3.0 : -1.0);
    }
    a.offsets.push_back(static_cast<std::int64_t>(a.values.size()));
    ++a.rows;
  };
  // A row of 32 (the longest row sets the row blocks' height), then one that ends the arrays
  // inside a 16-byte chunk, so the last row block's pass reads a partial chunk.
  append_row(32);
  append_row(a.values.size() % 4 == 0 ? 1 : 0);
  return a;
}

TEST_P(Spmv, ThreadPerRowBlocksWalkManyRowBlocks) {
  CUDIST_REQUIRE_BACKEND();
  reference::Csr const a = rows_of_up_to_32(test::reduced_run() ? 50021 : 100003, 61);
  ASSERT_NE(a.values.size() % 4, 0u);
  expect_spmv(a, false, 2.0, -1.0);  // reads y
  expect_min_plus(a, false);         // another semiring and output op, also reading y
}

TEST_P(Spmv, RowSplitOnManyLongRows) {
  CUDIST_REQUIRE_BACKEND();
  // Rows of 0 to 640 entries (mean ~320: a warp of 32 lanes a row and several rounds of loads,
  // kAuto's row-split), more rows than the warps the GPU holds at once (~4000 on an H100); the
  // arrays end inside a 16-byte chunk. x (5003 elements) is staged in shared memory on an
  // H100: 2.9-3.8 M gathers against 132 blocks' copies (one 1024-thread block an SM at 43+
  // registers), 0.66 M elements (row_split_stages_x).
  reference::Csr a = test::random_ragged(test::reduced_run() ? 9001 : 12001, 5003, 640, 81);
  if (a.values.size() % 4 == 0) {
    a.col_indices.push_back(5002);
    a.values.push_back(-1.0);
    a.offsets.back() += 1;
  }
  expect_spmv(a, false, 2.0, -1.0);
  expect_min_plus(a, false);
  expect_strided_on_unaligned_arrays(a);  // one-element loads
}

TEST_P(Spmv, RowSplitGathersAnXLargerThanSharedMemory) {
  CUDIST_REQUIRE_BACKEND();
  // 70001 columns: 273 KB of float32 x (547 KB of float64), more than any GPU's block may hold
  // in shared memory, so row-split gathers x from global memory although the rows (mean ~300)
  // would otherwise have it staged; RowSplitOnManyLongRows takes the staged kernel.
  reference::Csr const a = test::random_ragged(test::reduced_run() ? 1501 : 3001, 70001, 600, 82);
  expect_spmv(a, false, 2.0, -1.0);
  expect_min_plus(a, false);
  expect_strided_on_unaligned_arrays(a);
}

TEST_P(Spmv, ThreadPerRowWalksUnalignedArraysWithStridedVectors) {
  CUDIST_REQUIRE_BACKEND();
  // One-element loads: a float pass of up to 2048 entries is up to four rounds of loads, each
  // loaded while the round before it is staged, and across row blocks.
  expect_strided_on_unaligned_arrays(rows_of_up_to_32(test::reduced_run() ? 50021 : 100003, 62));
}

TEST_P(Spmv, ThreadPerRowCarriesARowAcrossPasses) {
  CUDIST_REQUIRE_BACKEND();
  // Rows of 16 make row blocks of 128 float or 64 double rows, 2048 or 1024 entries: a whole
  // stage. The first row holds 3, so every later row block starts inside a 16-byte chunk, needs
  // one slot more than the stage holds and takes two passes, its last row summed in both.
  reference::Csr a = test::regular_rows(30001, 5003, 16, 71);
  a.col_indices.erase(a.col_indices.begin() + 3, a.col_indices.begin() + 16);
  a.values.erase(a.values.begin() + 3, a.values.begin() + 16);
  for (std::size_t r = 1; r < a.offsets.size(); ++r) a.offsets[r] -= 13;
  expect_spmv(a, false, 1.0, 0.0);
  expect_spmv(a, false, 2.0, 1.0);
}

TEST_P(Spmv, AcceptsStridedVectorsAndUnalignedMatrixArrays) {
  CUDIST_REQUIRE_BACKEND();
  expect_strided_on_unaligned_arrays(test::regular_rows(257, 130, 40, 8));
}

TEST_P(Spmv, PlanServesRepeatedProducts) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  reference::Csr const a = test::random_ragged(500, 400, 30, 12);
  sparse::CsrMatrix const m = test::to_backend(a, types());
  auto const plan = sparse::make_spmv_plan(res, m.view());
  for (int it = 0; it < 4; ++it) {
    std::vector<double> const x = test::random_integers(400, -8, 8, 100 + it);
    std::vector<double> const y0 = test::random_integers(500, -8, 8, 200 + it);
    Array const xd = test::backend_array(x, 1, 400, types().value);
    Array yd = test::backend_array(y0, 1, 500, types().value);
    sparse::spmv(res, plan, xd.view(), yd.view(), it, 1.0 - it);
    CUDIST_EXPECT_SAME_VALUES(test::to_doubles(yd.view()),
                              reference::spmv(a, false, x, y0, it, 1.0 - it));
  }
}

TEST_P(Spmv, SpmmMatchesReferenceInBothLayouts) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  reference::Csr const a = test::one_heavy_row(301, 203, 100, 5000, 14);
  sparse::CsrMatrix const m = test::to_backend(a, types());
  for (bool transpose : {false, true}) {
    std::int64_t const k = transpose ? a.rows : a.cols, rows = transpose ? a.cols : a.rows;
    auto const plan = sparse::make_spmv_plan(
        res, m.view(), {transpose ? Operation::kTranspose : Operation::kNone});
    for (std::int64_t n : {1, 2, 4, 7}) {
      std::vector<double> const x = test::random_integers(k * n, -8, 8, 30 + n);      // (k, n)
      std::vector<double> const y0 = test::random_integers(rows * n, -8, 8, 40 + n);  // (rows, n)
      std::vector<double> const want = reference::spmm(a, transpose, x, y0, n, 2.0, -1.0);
      for (Layout layout : {Layout::kRowMajor, Layout::kColMajor}) {
        SCOPED_TRACE("n " + std::to_string(n) +
                     (layout == Layout::kRowMajor ? " row-major" : " col-major") +
                     (transpose ? " transposed" : ""));
        bool const row_major = layout == Layout::kRowMajor;
        // Column-major storage of X is the row-major storage of X^T.
        std::vector<double> xs(x.size()), ys(y0.size());
        for (std::int64_t i = 0; i < k; ++i)
          for (std::int64_t c = 0; c < n; ++c) xs[row_major ? i * n + c : c * k + i] = x[i * n + c];
        for (std::int64_t i = 0; i < rows; ++i)
          for (std::int64_t c = 0; c < n; ++c)
            ys[row_major ? i * n + c : c * rows + i] = y0[i * n + c];
        Array const xd = row_major ? test::backend_array(xs, k, n, types().value)
                                   : test::backend_array(xs, n, k, types().value);
        Array yd = row_major ? test::backend_array(ys, rows, n, types().value)
                             : test::backend_array(ys, n, rows, types().value);
        sparse::spmm(res, plan, xd.view(), yd.view(), 2.0, -1.0, layout);
        std::vector<double> const stored = test::to_doubles(yd.view());
        std::vector<double> got(stored.size());
        for (std::int64_t i = 0; i < rows; ++i)
          for (std::int64_t c = 0; c < n; ++c)
            got[i * n + c] = stored[row_major ? i * n + c : c * rows + i];
        CUDIST_EXPECT_SAME_VALUES(got, want);
      }
    }
  }
}

TEST_P(Spmv, MinPlusRelaxationMatchesReferenceWithInfinities) {
  CUDIST_REQUIRE_BACKEND();
  reference::Csr const a = test::random_ragged(203, 129, 10, 17);
  for (bool transpose : {false, true}) expect_min_plus(a, transpose);
}

TEST_P(Spmv, MinPlusStepsComputeShortestPaths) {
  CUDIST_REQUIRE_BACKEND();
  // Edges i -> j with weight w stored as A(i, j) = w; relaxing along A^T moves distances forward:
  // 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (2), 1 -> 3 (1), 3 -> 4 (-2), with vertex 5 unreachable.
  reference::Csr a;
  a.rows = a.cols = 6;
  a.offsets = {0, 2, 3, 4, 5, 5, 5};
  a.col_indices = {1, 2, 3, 1, 4};
  a.values = {4.0, 1.0, 1.0, 2.0, -2.0};
  Resources const res = test::backend_resources();
  sparse::CsrMatrix const m = test::to_backend(a, types());
  auto const plan = sparse::make_spmv_plan(res, m.view(), {Operation::kTranspose});
  Array dist = test::backend_array({0.0, kInf, kInf, kInf, kInf, kInf}, 1, 6, types().value);
  Array next = test::backend_array(std::vector<double>(6, 0.0), 1, 6, types().value);
  for (int step = 0; step < 5; ++step) {  // |V| - 1 relaxations
    copy(dist.view(), next.view());
    sparse::spmv_min_plus(res, plan, dist.view(), next.view());
    copy(next.view(), dist.view());
  }
  CUDIST_EXPECT_SAME_VALUES(test::to_doubles(dist.view()),
                            (std::vector<double>{0, 3, 1, 4, 2, kInf}));
}

/// y = A x for the shipped real matrices, against sums computed with scipy (x_j = (7j mod 11) - 5).
struct RealMatrix {
  char const* file;
  std::int64_t rows, nnz;
  double sum_y, y_first, y_last, norm_y, sum_yt;
};

TEST_P(Spmv, RealMatricesMatchScipy) {
  CUDIST_REQUIRE_BACKEND();
  RealMatrix const cases[] = {
      {"uscounties.mtx", 3111, 18202, 7.8635728015801831, 2.3328344111876635, -1.7889831493633415,
       71.739842313115105, 7.8635728015801831},
      {"pores_1.mtx", 30, 180, 26257664.811706498, 50484.174709308005, -1501504.3594239999,
       71597391.163643882, -17083342.168080263},
      {"lund_a.mtx", 147, 2449, -2583572111.8086486, -281837636.38, 5187181.7609999999,
       4117203771.5320272, -2583572111.8086486},
      {"jgl009.mtx", 9, 50, -30, -5, -2, 11.045361017187261, -14},
  };
  Resources const res = test::backend_resources();
  // float32 keeps about 7 digits, and these sums cancel: compare relative to |y|.
  double const tolerance = types().value == DType::kFloat32 ? 1e-5 : 1e-12;
  for (RealMatrix const& c : cases) {
    SCOPED_TRACE(c.file);
    sparse::CsrMatrix const host = io::read_matrix_market(
        test::data_path(std::string("sparse/") + c.file), types().value, types().index);
    ASSERT_EQ(host.rows(), c.rows);
    ASSERT_EQ(host.nnz(), c.nnz);
    sparse::CsrMatrix const m = sparse::CsrMatrix::copy_of(host.view(), test::backend_device());
    for (bool transpose : {false, true}) {
      std::vector<double> x(c.rows);
      for (std::int64_t j = 0; j < c.rows; ++j) x[j] = static_cast<double>((j * 7) % 11) - 5;
      Array const xd = test::backend_array(x, 1, c.rows, types().value);
      Array yd = test::backend_array(std::vector<double>(c.rows, 0.0), 1, c.rows, types().value);
      sparse::spmv(res, m.view(), xd.view(), yd.view(), 1.0, 0.0,
                   transpose ? Operation::kTranspose : Operation::kNone);
      std::vector<double> const y = test::to_doubles(yd.view());
      double sum = 0, norm = 0;
      for (double v : y) {
        sum += v;
        norm += v * v;
      }
      norm = std::sqrt(norm);
      double const scale = c.norm_y * tolerance;
      EXPECT_NEAR(sum, transpose ? c.sum_yt : c.sum_y, scale * std::sqrt(double(c.rows)));
      if (!transpose) {
        EXPECT_NEAR(y.front(), c.y_first, scale);
        EXPECT_NEAR(y.back(), c.y_last, scale);
        EXPECT_NEAR(norm, c.norm_y, scale);
      }
    }
  }
}

TEST_P(Spmv, RejectsBadOperands) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  reference::Csr const a = test::random_ragged(5, 4, 3, 1);
  sparse::CsrMatrix const m = test::to_backend(a, types());
  auto const plan = sparse::make_spmv_plan(res, m.view());
  DType const other = types().value == DType::kFloat32 ? DType::kFloat64 : DType::kFloat32;
  Array const x = test::backend_array({1, 2, 3, 4}, 1, 4, types().value);
  Array y = test::backend_array({0, 0, 0, 0, 0}, 1, 5, types().value);
  auto expect_error = [](auto const& call, std::string const& needle) {
    try {
      call();
      ADD_FAILURE() << "no InvalidArgument; expected one mentioning '" << needle << "'";
    } catch (InvalidArgument const& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  Array const x_short = test::backend_array({1, 2, 3}, 1, 3, types().value);
  expect_error([&] { sparse::spmv(res, plan, x_short.view(), y.view()); },
               "x must be a vector of 4");
  Array y_long = test::backend_array({0, 0, 0, 0, 0, 0}, 1, 6, types().value);
  expect_error([&] { sparse::spmv(res, plan, x.view(), y_long.view()); },
               "y must be a vector of 5");
  Array const x_other = test::backend_array({1, 2, 3, 4}, 1, 4, other);
  expect_error([&] { sparse::spmv(res, plan, x_other.view(), y.view()); },
               "x is " + std::string(dtype_name(other)));
  Array const x_matrix = test::backend_array({1, 2, 3, 4}, 2, 2, types().value);
  expect_error([&] { sparse::spmv(res, plan, x_matrix.view(), y.view()); },
               "one row or one column");
  expect_error([&] { sparse::spmv(res, sparse::SpmvPlan{}, x.view(), y.view()); }, "plan is empty");
  Resources const elsewhere(test::backend_device().is_cuda() ? Device::cpu() : Device::cuda(0));
  expect_error([&] { sparse::spmv(elsewhere, plan, x.view(), y.view()); }, "the plan was made for");
  // spmm: X must have op(A).cols rows; X and Y the same number of columns.
  Array const x3 = test::backend_array(std::vector<double>(12, 1.0), 4, 3, types().value);
  Array y2 = test::backend_array(std::vector<double>(10, 0.0), 5, 2, types().value);
  expect_error([&] { sparse::spmm(res, plan, x3.view(), y2.view()); },
               "X has 3 columns but Y has 2");
  expect_error([&] { sparse::spmm(res, plan, x3.view(), y2.view(), 1, 0, Layout::kColMajor); },
               "X has 3 rows");
  if (test::backend_device().is_cuda()) {
    Array const x_host = test::host_array({1, 2, 3, 4}, 1, 4, types().value);
    expect_error([&] { sparse::spmv(res, plan, x_host.view(), y.view()); }, "x is in host memory");
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Spmv, ::testing::ValuesIn(test::all_sparse_types()),
                         [](auto const& info) { return test::types_name(info.param); });

}  // namespace
}  // namespace cudist
