// knn, self_knn and knn_batched against the reference, tie-aware, on every metric family and
// dtype, ragged shapes, every k regime (1, 2, the on-chip buckets, beyond them, n), NaN rows,
// padding and empty inputs. Built once per backend (knn_test_cpu, knn_test_cuda).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cudist/neighbors/knn.hpp"
#include "neighbors/knn_compare.hpp"
#include "neighbors/neighbors_test_util.hpp"
#include "reference/knn_ref.hpp"
#include "common/reduced.hpp"

namespace cudist {
namespace {

using test::KnnExpectation;
using test::knn_matches;

struct Shape {
  std::int64_t m, n, d;
};
// Ragged on purpose: none a multiple of a tile; n spans one tile, several, and a column split.
constexpr Shape kShapes[] = {{1, 1, 1}, {2, 31, 3}, {33, 129, 17}, {113, 203, 65}, {129, 1023, 9},
                             {300, 2500, 128}};

std::vector<std::int64_t> ks_for(std::int64_t n) {
  std::vector<std::int64_t> ks;
  for (std::int64_t k : {1, 2, 3, 10, 16, 33, 64, 65, 200}) {
    if (k <= n) ks.push_back(k);
  }
  ks.push_back(n);
  return ks;
}

TEST(Knn, IntegerDataIsExactAndTiesGoToTheSmallerIndex) {
  CUDIST_REQUIRE_BACKEND();
  test::CombinationSampler sample(7);  // reduced runs: a seventh of the combinations
  for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean, Metric::kCityblock, Metric::kChebyshev,
                        Metric::kInnerProduct}) {
    for (Shape s : kShapes) {
      // Values in [-3, 3]: many equal distances, so the tie rule decides most answers.
      auto const x = test::random_integers(s.m, s.d, DType::kFloat32, -3, 3, 10 + s.m + s.d);
      auto const y = test::random_integers(s.n, s.d, DType::kFloat32, -3, 3, 20 + s.n + s.d);
      reference::Matrix const d = reference::cdist(x.values, y.values, metric);
      for (std::int64_t k : ks_for(s.n)) {
        if (!sample.keep()) continue;
        auto const got = test::run_knn(x, y, k, metric);
        KnnExpectation e(d);
        e.similarity = metric == Metric::kInnerProduct;
        e.exact = true;   // euclidean: the square roots of exact squares keep their order
        e.tol = {1e-6, 0};
        EXPECT_TRUE(knn_matches(got.distances, got.indices, e))
            << test::label(metric, DType::kFloat32, s.m, s.n, s.d, k);
      }
    }
  }
}

TEST(Knn, EveryMetricMatchesTheReference) {
  CUDIST_REQUIRE_BACKEND();
  test::CombinationSampler sample(3);  // reduced runs: a third of the combinations
  for (Metric metric : all_metrics()) {
    if (metric == Metric::kHammingBits) continue;  // bytes: below
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      Shape const s{37, 300, 7};
      std::uint64_t const seed = 300 + static_cast<std::uint64_t>(metric);
      auto const x = test::metric_data(metric, s.m, s.d, dtype, seed);
      auto const y = test::metric_data(metric, s.n, s.d, dtype, seed + 1);
      MetricParams const p = test::metric_params(metric, s.d, seed);
      reference::Matrix const d = reference::cdist(x.values, y.values, metric, p);
      for (std::int64_t k : {1, 2, 5, 40, 100}) {
        if (!sample.keep()) continue;
        KnnOptions opt;
        opt.params = p;
        auto const got = test::run_knn(x, y, k, metric, opt);
        KnnExpectation e(d);
        e.similarity = metric == Metric::kInnerProduct;
        e.tol = dtype == DType::kFloat64 ? test::Tolerance{1e-10, 1e-12} : test::Tolerance{2e-4, 1e-4};
        EXPECT_TRUE(knn_matches(got.distances, got.indices, e)) << test::label(metric, dtype, s.m, s.n, s.d, k);
      }
    }
  }
}

TEST(Knn, EveryInputDtype) {
  CUDIST_REQUIRE_BACKEND();
  struct Case {
    DType dtype;
    Metric metric;
    std::int64_t d;
    int lo, hi;
    bool exact;
  };
  // uint8 euclidean with d % 4 == 0 takes the GPU's packed path (int8 MMA on sm_80+, dp4a below); d = 7 does not.
  Case const cases[] = {{DType::kUInt8, Metric::kSqEuclidean, 128, 0, 255, true},
                        {DType::kUInt8, Metric::kEuclidean, 128, 0, 255, false},
                        {DType::kUInt8, Metric::kSqEuclidean, 7, 0, 255, true},
                        {DType::kUInt8, Metric::kCityblock, 33, 0, 255, true},
                        {DType::kUInt8, Metric::kInnerProduct, 20, 0, 255, true},
                        {DType::kUInt8, Metric::kCosine, 20, 0, 255, false},
                        // int8: the exact integer path of the same ops (not packed), the rest in float32.
                        {DType::kInt8, Metric::kSqEuclidean, 128, -128, 127, true},
                        {DType::kInt8, Metric::kEuclidean, 36, -128, 127, false},
                        {DType::kInt8, Metric::kCityblock, 33, -128, 127, true},
                        {DType::kInt8, Metric::kChebyshev, 12, -128, 127, true},
                        {DType::kInt8, Metric::kInnerProduct, 64, -128, 127, true},
                        {DType::kInt8, Metric::kCosine, 20, -128, 127, false},
                        {DType::kFloat16, Metric::kEuclidean, 40, -8, 8, false},
                        {DType::kBFloat16, Metric::kCityblock, 40, -8, 8, true},
                        {DType::kFloat64, Metric::kSqEuclidean, 40, -8, 8, true}};
  for (Case const& c : cases) {
    auto const x = test::random_integers(75, c.d, c.dtype, c.lo, c.hi, 500 + c.d);
    auto const y = test::random_integers(700, c.d, c.dtype, c.lo, c.hi, 600 + c.d);
    reference::Matrix const d = reference::cdist(x.values, y.values, c.metric);
    for (std::int64_t k : {1, 2, 10, 64, 100}) {
      auto const got = test::run_knn(x, y, k, c.metric);
      EXPECT_EQ(got.distances.dtype(), distance_output_dtype(c.dtype));
      KnnExpectation e(d);
      e.similarity = c.metric == Metric::kInnerProduct;
      e.exact = c.exact;
      e.tol = c.exact ? test::Tolerance{} : test::Tolerance{1e-5, 1e-6};
      EXPECT_TRUE(knn_matches(got.distances, got.indices, e)) << test::label(c.metric, c.dtype, 75, 700, c.d, k);
    }
  }
}

TEST(Knn, HammingBitsOnPackedBytesAndWords) {
  CUDIST_REQUIRE_BACKEND();
  for (std::int64_t bytes : {32, 5}) {  // 32: whole 32-bit words; 5: single bytes
    auto const x = test::random_integers(90, bytes, DType::kUInt8, 0, 255, 41 + bytes);
    auto const y = test::random_integers(517, bytes, DType::kUInt8, 0, 255, 42 + bytes);
    reference::Matrix const d = reference::cdist(x.values, y.values, Metric::kHammingBits);
    for (std::int64_t k : {1, 2, 7, 50, 517}) {
      auto const got = test::run_knn(x, y, k, Metric::kHammingBits);
      KnnExpectation e(d);
      e.exact = true;
      EXPECT_TRUE(knn_matches(got.distances, got.indices, e)) << bytes << " bytes, k=" << k;
    }
  }
}

TEST(Knn, NanDistancesRankAfterEveryOther) {
  CUDIST_REQUIRE_BACKEND();
  double const nan = std::numeric_limits<double>::quiet_NaN();
  double const inf = std::numeric_limits<double>::infinity();
  auto x = test::random_integers(40, 6, DType::kFloat32, -4, 4, 71);
  auto y = test::random_integers(150, 6, DType::kFloat32, -4, 4, 72);
  x.values.v[3 * 6 + 1] = test::store(x.array, 3 * 6 + 1, nan);  // every distance of row 3 is NaN
  for (std::int64_t j : {0, 17, 140}) y.values.v[j * 6 + 2] = test::store(y.array, j * 6 + 2, nan);
  y.values.v[60 * 6 + 4] = test::store(y.array, 60 * 6 + 4, inf);  // +inf distances, before NaN
  reference::Matrix const d = reference::cdist(x.values, y.values, Metric::kSqEuclidean);
  for (std::int64_t k : {1, 2, 5, 148, 150}) {
    auto const got = test::run_knn(x, y, k, Metric::kSqEuclidean);
    KnnExpectation e(d);
    e.exact = true;
    EXPECT_TRUE(knn_matches(got.distances, got.indices, e)) << "k=" << k;
  }
}

TEST(Knn, SelfJoinWithAndWithoutEachPoint) {
  CUDIST_REQUIRE_BACKEND();
  // Duplicated rows: other points at distance 0 stay neighbours when the point itself is excluded.
  auto x = test::random_integers(260, 5, DType::kFloat32, -2, 2, 81);
  for (std::int64_t i = 0; i < 40; ++i) {
    for (std::int64_t c = 0; c < 5; ++c) x.values.v[(i + 200) * 5 + c] = test::store(x.array, (i + 200) * 5 + c, x.values(i, c));
  }
  reference::Matrix const d = reference::cdist(x.values, x.values, Metric::kEuclidean);
  Array const xb = test::to_backend(x.array);
  for (SelfJoin self : {SelfJoin::kIncludeSelf, SelfJoin::kExcludeSelf}) {
    for (std::int64_t k : {1, 2, 9, 70, 259}) {
      auto const got = test::to_host(self_knn(test::backend_resources(), xb, k, Metric::kEuclidean, self));
      KnnExpectation e(d);
      e.exclude_self = self == SelfJoin::kExcludeSelf;
      e.exact = true;  // distances sqrt(integer): the tie rule decides every answer
      e.tol = {1e-6, 0};
      EXPECT_TRUE(knn_matches(got.distances, got.indices, e))
          << (e.exclude_self ? "excluding" : "including") << " self, k=" << k;
    }
  }
}

TEST(Knn, KEqualToNAndPaddingBeyondIt) {
  CUDIST_REQUIRE_BACKEND();
  auto const x = test::random_integers(21, 4, DType::kFloat32, -3, 3, 91);
  auto const y = test::random_integers(13, 4, DType::kFloat32, -3, 3, 92);
  reference::Matrix const d = reference::cdist(x.values, y.values, Metric::kCityblock);
  KnnExpectation e(d);
  e.exact = true;
  auto const all = test::run_knn(x, y, 13, Metric::kCityblock);
  EXPECT_TRUE(knn_matches(all.distances, all.indices, e));
  KnnOptions pad;
  pad.pad = true;
  for (std::int64_t k : {14, 100}) {
    auto const padded = test::run_knn(x, y, k, Metric::kCityblock, pad);
    EXPECT_TRUE(knn_matches(padded.distances, padded.indices, e)) << "k=" << k;
  }
}

TEST(Knn, EmptyInputs) {
  CUDIST_REQUIRE_BACKEND();
  auto const none = test::random_reals(0, 4, DType::kFloat32, 0, 1, 1);
  auto const some = test::random_reals(6, 4, DType::kFloat32, 0, 1, 2);
  auto const empty_x = test::run_knn(none, some, 3, Metric::kEuclidean);
  EXPECT_EQ(empty_x.indices.rows(), 0);
  EXPECT_EQ(empty_x.indices.cols(), 3);
  KnnOptions pad;
  pad.pad = true;
  auto const empty_y = test::run_knn(some, none, 2, Metric::kEuclidean, pad);
  ASSERT_EQ(empty_y.indices.size(), 12);
  for (std::int64_t e = 0; e < 12; ++e) {
    EXPECT_EQ(empty_y.indices.data_as<std::int64_t>()[e], -1);
    EXPECT_TRUE(std::isnan(empty_y.distances.data_as<float>()[e]));
  }
}

TEST(Knn, BatchedProblemsMatchEachProblemAlone) {
  CUDIST_REQUIRE_BACKEND();
  // Sizes include an empty problem, a one-row one, and one spanning several tiles.
  std::vector<std::int64_t> const rows_x = {17, 0, 1, 140, 33, 5};
  std::vector<std::int64_t> const rows_y = {40, 9, 12, 300, 129, 25};
  Batch const batch = test::batch_of(rows_x, rows_y);
  auto const x = test::random_integers(batch.x_offsets.back(), 12, DType::kFloat32, -3, 3, 111);
  auto const y = test::random_integers(batch.y_offsets.back(), 12, DType::kFloat32, -3, 3, 112);
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  for (std::int64_t k : {1, 2, 9}) {
    auto const got = test::to_host(knn_batched(test::backend_resources(), xb, yb, batch, k, Metric::kSqEuclidean));
    for (std::size_t b = 0; b < rows_x.size(); ++b) {
      reference::Matrix const d = reference::cdist(test::rows_of(x.values, batch.x_offsets[b], batch.x_offsets[b + 1]),
                                                   test::rows_of(y.values, batch.y_offsets[b], batch.y_offsets[b + 1]),
                                                   Metric::kSqEuclidean);
      KnnExpectation e(d);
      e.row_offset = batch.x_offsets[b];
      e.exact = true;
      EXPECT_TRUE(knn_matches(got.distances, got.indices, e)) << "problem " << b << ", k=" << k;
    }
  }
}

TEST(Knn, StridedInputsAndCallerOutputsInAnyMemory) {
  CUDIST_REQUIRE_BACKEND();
  auto const wide_x = test::random_integers(29, 20, DType::kFloat32, -3, 3, 121);
  auto const wide_y = test::random_integers(235, 20, DType::kFloat32, -3, 3, 122);
  Array const xb = test::to_backend(wide_x.array), yb = test::to_backend(wide_y.array);
  ConstMatrixView const xv(static_cast<float const*>(xb.data()) + 3, 29, 13, 20, DType::kFloat32);
  ConstMatrixView const yv(static_cast<float const*>(yb.data()) + 3, 235, 13, 20, DType::kFloat32);
  reference::Matrix const d = reference::cdist(test::columns_of(wide_x.values, 3, 16),
                                               test::columns_of(wide_y.values, 3, 16), Metric::kSqEuclidean);
  // Host outputs with a row stride wider than k, whatever the backend.
  Array dist = Array::allocate(29, 8, DType::kFloat32, Device::cpu());
  Array idx = Array::allocate(29, 8, DType::kInt64, Device::cpu());
  knn(test::backend_resources(), xv, yv, 5, Metric::kSqEuclidean, MatrixView(dist.data(), 29, 5, 8, DType::kFloat32),
      MatrixView(idx.data(), 29, 5, 8, DType::kInt64));
  Array const dense_d = test::to_host(ConstMatrixView(dist.data(), 29, 5, 8, DType::kFloat32));
  Array const dense_i = test::to_host(ConstMatrixView(idx.data(), 29, 5, 8, DType::kInt64));
  KnnExpectation e(d);
  e.exact = true;
  EXPECT_TRUE(knn_matches(dense_d, dense_i, e));
}

}  // namespace
}  // namespace cudist
