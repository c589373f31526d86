// Bad arguments to knn, match and radius throw InvalidArgument naming the argument.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "common/backend.hpp"
#include "common/data.hpp"
#include "common/expect_error.hpp"
#include "cudist/core/error.hpp"
#include "cudist/neighbors/knn.hpp"

namespace cudist {
namespace {

using test::expect_error;

class NeighborsErrors : public ::testing::Test {
 protected:
  void SetUp() override { CUDIST_REQUIRE_BACKEND(); }
  Resources res = test::backend_resources();
  Array x = test::random_reals(10, 4, DType::kFloat32, 0, 1, 1).array;
  Array y = test::random_reals(6, 4, DType::kFloat32, 0, 1, 2).array;
};

TEST_F(NeighborsErrors, K) {
  expect_error([&] { knn(res, x, y, 0, Metric::kEuclidean); }, "k = 0");
  expect_error([&] { knn(res, x, y, -3, Metric::kEuclidean); }, "k = -3");
  expect_error([&] { knn(res, x, y, 7, Metric::kEuclidean); }, "only 6 candidate");
  expect_error([&] { self_knn(res, x, 10, Metric::kEuclidean); }, "itself excluded");
  EXPECT_NO_THROW(self_knn(res, x, 10, Metric::kEuclidean, SelfJoin::kIncludeSelf));
}

TEST_F(NeighborsErrors, ShapesAndDtypes) {
  Array const y3 = test::random_reals(6, 3, DType::kFloat32, 0, 1, 3).array;
  Array const y64 = test::random_reals(6, 4, DType::kFloat64, 0, 1, 4).array;
  expect_error([&] { knn(res, x, y3, 1, Metric::kEuclidean); }, "x has 4 columns but y has 3");
  expect_error([&] { knn(res, x, y64, 1, Metric::kEuclidean); }, "x is float32 but y is float64");
  expect_error([&] { match(res, x, y3, Metric::kEuclidean); }, "columns");
  expect_error([&] { radius(res, x, y64, 1.0, Metric::kEuclidean); }, "float64");
  Array d = Array::allocate(10, 2, DType::kFloat64, Device::cpu());
  Array i = Array::allocate(10, 2, DType::kInt64, Device::cpu());
  expect_error([&] { knn(res, x, y, 2, Metric::kEuclidean, d.view(), i.view()); }, "distances is float64");
  Array i3 = Array::allocate(10, 3, DType::kInt64, Device::cpu());
  Array d2 = Array::allocate(10, 2, DType::kFloat32, Device::cpu());
  expect_error([&] { knn(res, x, y, 2, Metric::kEuclidean, d2.view(), i3.view()); }, "indices is (10, 3)");
}

TEST_F(NeighborsErrors, MatchCriteria) {
  for (double ratio : {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    MatchOptions o;
    o.ratio = ratio;
    expect_error([&] { match(res, x, y, Metric::kEuclidean, o); }, "ratio");
  }
  MatchOptions o;
  o.max_distance = -1;
  expect_error([&] { match(res, x, y, Metric::kEuclidean, o); }, "max_distance");
  expect_error([&] { match(res, x, y, Metric::kInnerProduct); }, "similarity");
}

TEST_F(NeighborsErrors, Radius) {
  expect_error([&] { radius(res, x, y, -0.5, Metric::kEuclidean); }, "r = -0.5");
  expect_error([&] { radius(res, x, y, std::nan(""), Metric::kEuclidean); }, "r = nan");
  expect_error([&] { radius(res, x, y, std::nan(""), Metric::kInnerProduct); }, "r is NaN");
  EXPECT_NO_THROW(radius(res, x, y, -0.5, Metric::kInnerProduct));
}

TEST_F(NeighborsErrors, Batch) {
  Batch const short_batch{{0, 10}, {0, 5}};
  expect_error([&] { knn_batched(res, x, y, short_batch, 1, Metric::kEuclidean); }, "batch.y_offsets ends at 5");
  Batch const uneven{{0, 4, 10}, {0, 6}};
  expect_error([&] { knn_batched(res, x, y, uneven, 1, Metric::kEuclidean); }, "batch.x_offsets has 3 entries");
  Batch const decreasing{{0, 6, 4, 10}, {0, 2, 4, 6}};
  expect_error([&] { match_batched(res, x, y, decreasing, Metric::kEuclidean); }, "decreases");
  Batch const small{{0, 5, 10}, {0, 1, 6}};
  expect_error([&] { knn_batched(res, x, y, small, 2, Metric::kEuclidean); }, "only 1 candidate");
}

}  // namespace
}  // namespace cudist
