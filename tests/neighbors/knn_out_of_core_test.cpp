// knn over a database in host memory larger than the memory budget: streamed in chunks of rows
// and merged, with exactly the in-memory call's answer (same distances, same indices, ties
// included). A small Resources::memory_budget forces the chunks on small problems.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "common/backend.hpp"
#include "common/data.hpp"
#include "common/expect_error.hpp"
#include "cudist/core/error.hpp"
#include "cudist/core/interrupt.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/detail/database_chunks.hpp"
#include "neighbors/detail/plan.hpp"
#include "neighbors/neighbors_test_util.hpp"

namespace cudist {
namespace {

/// A budget of `rows` database rows (a staged and a prepared copy of each).
Resources budget_of_rows(std::int64_t rows, Array const& y) {
  Resources res = test::backend_resources();
  res.memory_budget = static_cast<std::uint64_t>(rows * 2 * y.cols()) * size_of(y.dtype());
  return res;
}

/// knn with the database y in host memory, the answer brought to the host.
KnnResult knn_of_host_database(Resources const& res, Array const& x, Array const& y, std::int64_t k,
                               Metric metric, KnnOptions const& options = {}) {
  KnnResult r = knn(res, test::to_backend(x), y, k, metric, options);
  return {test::to_host(r.distances), test::to_host(r.indices)};
}

/// Integer data (many ties), one NaN row and one infinite row in the database.
Array database(std::int64_t rows, std::int64_t d, DType dtype, std::uint64_t seed) {
  Array y = test::random_integers(rows, d, dtype, -3, 3, seed).array;
  if (dtype == DType::kFloat32) {
    y.data_as<float>()[5 * d] = std::numeric_limits<float>::quiet_NaN();
    y.data_as<float>()[9 * d + 1] = std::numeric_limits<float>::infinity();
  }
  return y;
}

struct ChunkCase {
  Metric metric;
  std::int64_t k, chunk_rows;
};

TEST(KnnOutOfCore, ChunkedDatabaseGivesTheInMemoryAnswer) {
  CUDIST_REQUIRE_BACKEND();
  Array const x = test::random_integers(57, 6, DType::kFloat32, -3, 3, 1).array;
  Array const y = database(203, 6, DType::kFloat32, 2);
  // k below, equal to and above the chunk's rows; every ranking rule (sqrt deferred, similarity).
  ChunkCase const cases[] = {{Metric::kEuclidean, 5, 17},  {Metric::kSqEuclidean, 1, 2},
                             {Metric::kCityblock, 12, 7},  {Metric::kInnerProduct, 9, 31},
                             {Metric::kCosine, 4, 100},    {Metric::kChebyshev, 30, 64},
                             {Metric::kEuclidean, 203, 50}};
  for (ChunkCase const& c : cases) {
    SCOPED_TRACE(std::string(metric_name(c.metric)) + " k=" + std::to_string(c.k) + " chunk=" +
                 std::to_string(c.chunk_rows));
    KnnResult const whole = knn_of_host_database(test::backend_resources(), x, y, c.k, c.metric);
    KnnResult const chunked = knn_of_host_database(budget_of_rows(c.chunk_rows, y), x, y, c.k, c.metric);
    EXPECT_TRUE(test::identical(chunked, whole));
  }
}

TEST(KnnOutOfCore, ChunksLargeEnoughStreamIntoTheirSearch) {
  // Chunks of kStreamedDatabaseBytes and more are streamed into their search on a GPU
  // (database_chunks.cpp): the same answer as the whole database on the device.
  CUDIST_REQUIRE_BACKEND();
  std::int64_t const d = 64, n = 150000;
  Array const x = test::random_integers(500, d, DType::kFloat32, -3, 3, 11).array;
  Array const y = database(n, d, DType::kFloat32, 12);
  Resources const res = budget_of_rows(100000, y);
  std::int64_t const chunk_rows = neighbors::detail::database_chunk_rows(res, y.view(), Metric::kEuclidean);
  ASSERT_GT(chunk_rows, 0) << "the budget must split the database";
  ASSERT_LT(chunk_rows, n);
  if (res.device.is_cuda()) {
    ASSERT_GE(static_cast<std::size_t>(n - chunk_rows) * d * sizeof(float), neighbors::detail::kStreamedDatabaseBytes)
        << "every chunk must be large enough to stream";
  }
  for (Metric metric : {Metric::kEuclidean, Metric::kInnerProduct}) {
    SCOPED_TRACE(metric_name(metric));
    KnnResult const want = knn(test::backend_resources(), test::to_backend(x), test::to_backend(y), 10, metric);
    KnnResult const got = knn_of_host_database(res, x, y, 10, metric);
    EXPECT_TRUE(test::identical(got, KnnResult{test::to_host(want.distances), test::to_host(want.indices)}));
  }
}

/// KnnOptions::rank_values, in memory and through the chunks' merge: the same neighbours, and
/// values whose roots are the distances where the metric ranks on squares (the distances
/// themselves elsewhere).
TEST(KnnOutOfCore, RankValuesAreTheSquaresOfTheRootMetrics) {
  CUDIST_REQUIRE_BACKEND();
  Array const x = test::random_reals(31, 5, DType::kFloat32, -2, 2, 3).array;
  Array const y = test::random_reals(97, 5, DType::kFloat32, -2, 2, 4).array;
  KnnOptions ranked;
  ranked.rank_values = true;
  for (Metric const metric : {Metric::kEuclidean, Metric::kCityblock, Metric::kInnerProduct}) {
    for (std::int64_t const chunk : {std::int64_t{0}, std::int64_t{13}}) {
      SCOPED_TRACE(std::string(metric_name(metric)) + " chunk=" + std::to_string(chunk));
      Resources const res = chunk == 0 ? test::backend_resources() : budget_of_rows(chunk, y);
      KnnResult const distances = knn_of_host_database(res, x, y, 6, metric);
      KnnResult const values = knn_of_host_database(res, x, y, 6, metric, ranked);
      ASSERT_TRUE(test::identical(values.indices.view(), distances.indices.view()));
      for (std::int64_t e = 0; e < x.rows() * 6; ++e) {
        float const v = values.distances.data_as<float>()[e];
        float const expected = metric == Metric::kEuclidean ? std::sqrt(v) : v;
        ASSERT_EQ(expected, distances.distances.data_as<float>()[e]) << "entry " << e;
      }
    }
  }
}

TEST(KnnOutOfCore, EstimatedParametersComeFromTheWholeDatabase) {
  CUDIST_REQUIRE_BACKEND();
  Array const x = test::random_reals(20, 3, DType::kFloat64, -1, 1, 3).array;
  Array const y = test::random_reals(90, 3, DType::kFloat64, -1, 1, 4).array;
  for (Metric metric : {Metric::kSEuclidean, Metric::kMahalanobis}) {
    KnnResult const whole = knn_of_host_database(test::backend_resources(), x, y, 6, metric);
    EXPECT_TRUE(test::identical(knn_of_host_database(budget_of_rows(8, y), x, y, 6, metric), whole))
        << metric_name(metric);
  }
}

TEST(KnnOutOfCore, ExactIntegerDistancesAndPadding) {
  CUDIST_REQUIRE_BACKEND();
  Array const x = test::random_integers(40, 16, DType::kUInt8, 0, 3, 5).array;
  Array const y = test::random_integers(33, 16, DType::kUInt8, 0, 3, 6).array;
  KnnOptions padded;
  padded.pad = true;
  KnnResult const whole = knn_of_host_database(test::backend_resources(), x, y, 40, Metric::kEuclidean, padded);
  EXPECT_TRUE(test::identical(knn_of_host_database(budget_of_rows(5, y), x, y, 40, Metric::kEuclidean, padded), whole));
  EXPECT_EQ(whole.indices.data_as<std::int64_t>()[39], -1);  // 33 rows: the last 7 slots are padding
}

// Byte rows keep their bytes for the exact integer metrics and get float32 copies for the others:
// the chunks leave room for the copies (6 bytes a value against 2), and both answers are the
// in-memory call's.
TEST(KnnOutOfCore, ByteRowsChunkedForTheCopiesTheirMetricNeeds) {
  CUDIST_REQUIRE_BACKEND();
  for (DType dtype : {DType::kUInt8, DType::kInt8}) {
    int const lo = dtype == DType::kInt8 ? -100 : 0;
    Array const x = test::random_integers(30, 16, dtype, lo, lo + 200, 7).array;
    Array const y = test::random_integers(120, 16, dtype, lo, lo + 200, 8).array;
    Resources const res = budget_of_rows(24, y);
    std::int64_t const exact = neighbors::detail::database_chunk_rows(res, y, Metric::kCityblock);
    std::int64_t const copied = neighbors::detail::database_chunk_rows(res, y, Metric::kCanberra);
    EXPECT_EQ(exact, 24) << dtype_name(dtype);
    EXPECT_EQ(copied, 8) << dtype_name(dtype);
    for (Metric metric : {Metric::kCityblock, Metric::kCanberra}) {
      EXPECT_TRUE(test::identical(knn_of_host_database(res, x, y, 5, metric),
                                  knn_of_host_database(test::backend_resources(), x, y, 5, metric)))
          << dtype_name(dtype) << " " << metric_name(metric);
    }
  }
}

TEST(KnnOutOfCore, AnInterruptStopsBetweenChunks) {
  CUDIST_REQUIRE_BACKEND();
  Array const x = test::random_reals(10, 4, DType::kFloat32, -1, 1, 7).array;
  Array const y = test::random_reals(50, 4, DType::kFloat32, -1, 1, 8).array;
  request_interrupt();
  test::expect_error<Interrupted>([&] { knn_of_host_database(budget_of_rows(10, y), x, y, 3, Metric::kEuclidean); },
                                  "knn: interrupted");
  clear_interrupt();
}

}  // namespace
}  // namespace cudist
