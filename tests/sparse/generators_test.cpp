// The benchmark generators (structure, determinism, the shape of their row-length
// distributions) and the CUDA backend's kernel choice for the benchmark cases, which is host
// code and is checked here without a GPU.
#include "cudist/sparse/generators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/backend.hpp"
#include "cudist/core/error.hpp"
#include "sparse/detail/cuda/policy.hpp"
#include "sparse/sparse_fixtures.hpp"

namespace cudist {
namespace {

std::vector<std::int64_t> row_lengths(reference::Csr const& a) {
  std::vector<std::int64_t> lengths(a.rows);
  for (std::int64_t r = 0; r < a.rows; ++r) lengths[r] = a.offsets[r + 1] - a.offsets[r];
  return lengths;
}

void expect_sorted_distinct_columns(reference::Csr const& a) {
  for (std::int64_t r = 0; r < a.rows; ++r) {
    for (std::int64_t k = a.offsets[r] + 1; k < a.offsets[r + 1]; ++k) {
      ASSERT_LT(a.col_indices[k - 1], a.col_indices[k]) << "row " << r;
    }
  }
}

TEST(Generators, UniformRandomHasExactRowLengthsAndIsReproducible) {
  for (std::int64_t per_row : {0, 1, 7, 90, 100}) {  // 90 and 100 of 100: the dense-row path
    SCOPED_TRACE(per_row);
    sparse::CsrMatrix const m = sparse::uniform_random_csr(300, 100, per_row, 42);
    EXPECT_NO_THROW(sparse::validate_csr(Resources(Device::cpu()), m.view()));
    reference::Csr const a = test::from_library(m);
    for (std::int64_t length : row_lengths(a)) EXPECT_EQ(length, per_row);
    expect_sorted_distinct_columns(a);
    for (double v : a.values) EXPECT_TRUE(v != 0 && v >= -8 && v <= 8 && v == static_cast<int>(v));
    reference::Csr const again =
        test::from_library(sparse::uniform_random_csr(300, 100, per_row, 42));
    EXPECT_EQ(again.col_indices, a.col_indices);
    EXPECT_EQ(again.values, a.values);
  }
  EXPECT_THROW(sparse::uniform_random_csr(3, 5, 6, 1), InvalidArgument);
}

TEST(Generators, RmatRowsFollowAPowerLaw) {
  sparse::CsrMatrix const m = sparse::rmat_csr(12, 16, 7, {}, DType::kFloat64, DType::kInt64);
  EXPECT_NO_THROW(sparse::validate_csr(Resources(Device::cpu()), m.view()));
  reference::Csr const a = test::from_library(m);
  EXPECT_EQ(a.rows, 4096);
  EXPECT_LE(m.nnz(), 16 * 4096);
  EXPECT_GT(m.nnz(), 8 * 4096) << "repeated edges merge, but not most of them";
  expect_sorted_distinct_columns(a);
  std::vector<std::int64_t> lengths = row_lengths(a);
  std::int64_t const empty = std::count(lengths.begin(), lengths.end(), 0);
  std::int64_t const longest = *std::max_element(lengths.begin(), lengths.end());
  EXPECT_GT(empty, 4096 / 10) << "many vertices have no out-edge";
  EXPECT_GT(longest, 20 * m.nnz() / 4096) << "hubs hold many times the mean";
  reference::Csr const again =
      test::from_library(sparse::rmat_csr(12, 16, 7, {}, DType::kFloat64, DType::kInt64));
  EXPECT_EQ(again.col_indices, a.col_indices);
}

TEST(Generators, PoissonIsTheSevenPointLaplacian) {
  reference::Csr const a = test::from_library(sparse::poisson3d_csr(4));
  ASSERT_EQ(a.rows, 64);
  EXPECT_EQ(static_cast<std::int64_t>(a.values.size()), 7 * 64 - 6 * 16);
  expect_sorted_distinct_columns(a);
  for (std::int64_t r = 0; r < a.rows; ++r) {
    double sum = 0;
    std::int64_t const neighbours = a.offsets[r + 1] - a.offsets[r] - 1;
    for (std::int64_t k = a.offsets[r]; k < a.offsets[r + 1]; ++k) {
      sum += a.values[k];
      EXPECT_EQ(a.values[k], a.col_indices[k] == r ? 6.0 : -1.0);
      std::int64_t const d = std::abs(a.col_indices[k] - r);
      EXPECT_TRUE(d == 0 || d == 1 || d == 4 || d == 16) << "row " << r;
    }
    EXPECT_EQ(sum, 6.0 - neighbours);
  }
  EXPECT_EQ(row_lengths(a)[0], 4);   // a corner: three neighbours
  EXPECT_EQ(row_lengths(a)[21], 7);  // (1, 1, 1): interior
}

TEST(KernelChoice, MatchesTheBenchmarkCases) {
  using sparse::SpmvAlgorithm;
  using sparse::detail::cuda::choose_spmv_algorithm;
  using sparse::detail::cuda::row_split_group_size;
  using sparse::detail::cuda::RowStats;
  RowStats const s1{52000, 52000 * 520, 575};       // 1% uniform: long, even rows
  RowStats const s2{1 << 22, 60'000'000, 150'000};  // R-MAT: hubs and empty rows
  RowStats const s2u{1 << 22, 16 << 22, 16};        // 16 per row
  RowStats const s3{4'096'000, 28'518'400, 7};      // 7-point stencil
  EXPECT_EQ(choose_spmv_algorithm(s1), SpmvAlgorithm::kRowSplit);
  EXPECT_EQ(choose_spmv_algorithm(s2), SpmvAlgorithm::kMergePath);
  EXPECT_EQ(choose_spmv_algorithm(s2u), SpmvAlgorithm::kThreadPerRow);
  EXPECT_EQ(choose_spmv_algorithm(s3), SpmvAlgorithm::kThreadPerRow);
  EXPECT_EQ(row_split_group_size(s1, 4), 32);
  EXPECT_EQ(row_split_group_size(s2u, 4), 4);  // 19 elements at worst = 5 chunks: 4 lanes x 2
  EXPECT_EQ(row_split_group_size(s3, 4), 2);
  EXPECT_EQ(row_split_group_size(s3, 1), 4);
}

TEST(KernelChoice, RowSplitStagesXWhereItFitsAndTheGathersPayForTheCopy) {
  using sparse::detail::cuda::row_split_stages_x;
  std::size_t const h100 = 227 * 1024;
  std::int64_t const s1_nnz = 52000 * 520;
  EXPECT_TRUE(row_split_stages_x(52000, s1_nnz, 4, h100, 132));    // S1: 203 KB of x
  EXPECT_FALSE(row_split_stages_x(52000, s1_nnz, 8, h100, 132));   // S1 in float64: 406 KB
  EXPECT_FALSE(row_split_stages_x(52000, s1_nnz, 4, 99 * 1024, 132));  // sm_86's 99 KB
  EXPECT_TRUE(row_split_stages_x(58112, s1_nnz, 4, h100, 132));    // exactly 227 KB
  EXPECT_FALSE(row_split_stages_x(58113, s1_nnz, 4, h100, 132));   // 4 bytes more
  // Each block copies all of x: fewer than two gathers per copied element do not pay for it.
  EXPECT_TRUE(row_split_stages_x(1000, 2 * 132 * 1000, 4, h100, 132));
  EXPECT_FALSE(row_split_stages_x(1000, 2 * 132 * 1000 - 1, 4, h100, 132));
  EXPECT_FALSE(row_split_stages_x(0, 0, 4, h100, 1));  // nothing to copy or gather
  EXPECT_FALSE(row_split_stages_x(1000, 0, 4, h100, 0));  // no rows: no blocks
}

TEST(KernelChoice, ThreadPerRowTakesShortEvenRowsOnly) {
  using sparse::SpmvAlgorithm;
  using sparse::detail::cuda::choose_spmv_algorithm;
  using sparse::detail::cuda::RowStats;
  using sparse::detail::cuda::thread_per_row_rows_per_block;
  std::int64_t const rows = 1000;
  auto stats = [&](double mean, std::int64_t longest) {
    return RowStats{rows, static_cast<std::int64_t>(mean * rows), longest};
  };
  EXPECT_EQ(choose_spmv_algorithm(stats(30, 32)), SpmvAlgorithm::kThreadPerRow);
  EXPECT_EQ(choose_spmv_algorithm(stats(1, 4)), SpmvAlgorithm::kThreadPerRow);
  EXPECT_EQ(choose_spmv_algorithm(stats(32, 32)), SpmvAlgorithm::kRowSplit);   // row-split first
  EXPECT_EQ(choose_spmv_algorithm(stats(20, 33)), SpmvAlgorithm::kMergePath);  // longest > 32
  EXPECT_EQ(choose_spmv_algorithm(stats(2, 9)), SpmvAlgorithm::kMergePath);    // > 4x the mean
  // No entries at all: every row is empty, so any kernel only scales y; thread-per-row's rule
  // holds (0 <= 32 and 0 <= 4 x 0).
  EXPECT_EQ(choose_spmv_algorithm(RowStats{}), SpmvAlgorithm::kThreadPerRow);

  // Rows per block: as many as 8 KB of products hold at the longest row, at most 256.
  RowStats const s2u{1 << 22, 16 << 22, 16};
  RowStats const s3{4'096'000, 28'518'400, 7};
  EXPECT_EQ(thread_per_row_rows_per_block(s3, sizeof(float)), 256);
  EXPECT_EQ(thread_per_row_rows_per_block(s3, sizeof(double)), 146);
  EXPECT_EQ(thread_per_row_rows_per_block(s2u, sizeof(float)), 128);
  EXPECT_EQ(thread_per_row_rows_per_block(s2u, sizeof(double)), 64);
  EXPECT_EQ(thread_per_row_rows_per_block(RowStats{}, sizeof(float)), 256);
  EXPECT_EQ(thread_per_row_rows_per_block(stats(3, 5000), sizeof(float)), 1);  // several passes
}

}  // namespace
}  // namespace cudist
