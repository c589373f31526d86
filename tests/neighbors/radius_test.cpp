// radius against brute force over the reference distances: every pair within r, per row in
// increasing index order, CSR offsets; exact on integer data. Built once per backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include "common/backend.hpp"
#include "common/data.hpp"
#include "cudist/neighbors/knn.hpp"
#include "reference/pairwise_ref.hpp"

namespace cudist {
namespace {

::testing::AssertionResult same_pairs(RadiusResult const& result, reference::Matrix const& d, double r,
                                      bool similarity, double rtol) {
  Array const offsets = test::to_host(result.offsets);
  Array const indices = test::to_host(result.indices);
  Array const distances = test::to_host(result.distances);
  std::ostringstream err;
  if (offsets.cols() != d.rows + 1) return ::testing::AssertionFailure() << "offsets has " << offsets.cols() << " entries";
  auto const* off = offsets.data_as<std::int64_t>();
  if (off[0] != 0 || off[d.rows] != indices.cols()) err << "\n  offsets span " << off[0] << ".." << off[d.rows];
  for (std::int64_t i = 0; i < d.rows && err.str().empty(); ++i) {
    std::vector<std::int64_t> want;
    for (std::int64_t j = 0; j < d.cols; ++j) {
      // The test is on the distance reported, rounded to the output dtype.
      double const v = distances.dtype() == DType::kFloat32 ? static_cast<float>(d(i, j)) : d(i, j);
      if (similarity ? v >= r : v <= r) want.push_back(j);
    }
    if (off[i + 1] - off[i] != static_cast<std::int64_t>(want.size())) {
      err << "\n  row " << i << ": " << off[i + 1] - off[i] << " pairs, want " << want.size();
      break;
    }
    for (std::size_t e = 0; e < want.size(); ++e) {
      std::int64_t const j = indices.data_as<std::int64_t>()[off[i] + e];
      double const got = distances.dtype() == DType::kFloat64 ? distances.data_as<double>()[off[i] + e]
                                                               : distances.data_as<float>()[off[i] + e];
      if (j != want[e]) err << "\n  row " << i << " entry " << e << ": index " << j << ", want " << want[e];
      else if (std::fabs(got - d(i, j)) > rtol * std::fabs(d(i, j))) err << "\n  row " << i << " col " << j << ": distance " << got << ", want " << d(i, j);
    }
  }
  if (err.str().empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << err.str();
}

RadiusResult run_radius(test::TestMatrix const& x, test::TestMatrix const& y, double r, Metric metric) {
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  return radius(test::backend_resources(), xb, yb, r, metric);
}

TEST(Radius, EveryPairWithinTheRadius) {
  CUDIST_REQUIRE_BACKEND();
  struct Shape {
    std::int64_t m, n, d;
  };
  for (Shape s : {Shape{1, 1, 1}, Shape{33, 129, 7}, Shape{150, 1100, 12}}) {
    auto const x = test::random_integers(s.m, s.d, DType::kFloat32, -3, 3, 3 * s.m + s.d);
    auto const y = test::random_integers(s.n, s.d, DType::kFloat32, -3, 3, 5 * s.n + s.d);
    for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean, Metric::kCityblock, Metric::kChebyshev}) {
      reference::Matrix const d = reference::cdist(x.values, y.values, metric);
      // 0: exact duplicates only; then radii landing exactly on distances (ties at the boundary).
      for (double r : {0.0, 3.0, std::sqrt(20.0), 10.0, 25.0, std::numeric_limits<double>::infinity()}) {
        EXPECT_TRUE(same_pairs(run_radius(x, y, r, metric), d, r, false, 1e-6))
            << metric_name(metric) << " m=" << s.m << " n=" << s.n << " r=" << r;
      }
    }
  }
}

TEST(Radius, InnerProductKeepsSimilaritiesAtLeastR) {
  CUDIST_REQUIRE_BACKEND();
  auto const x = test::random_integers(70, 5, DType::kFloat32, -3, 3, 41);
  auto const y = test::random_integers(300, 5, DType::kFloat32, -3, 3, 42);
  reference::Matrix const d = reference::cdist(x.values, y.values, Metric::kInnerProduct);
  for (double r : {-4.0, 0.0, 6.0, 100.0}) {
    EXPECT_TRUE(same_pairs(run_radius(x, y, r, Metric::kInnerProduct), d, r, true, 0)) << "r=" << r;
  }
}

TEST(Radius, HammingBitsAndUint8AndDouble) {
  CUDIST_REQUIRE_BACKEND();
  auto const xb = test::random_integers(60, 32, DType::kUInt8, 0, 255, 51);
  auto const yb = test::random_integers(400, 32, DType::kUInt8, 0, 255, 52);
  EXPECT_TRUE(same_pairs(run_radius(xb, yb, 118, Metric::kHammingBits),
                         reference::cdist(xb.values, yb.values, Metric::kHammingBits), 118, false, 0));
  auto const xu = test::random_integers(60, 64, DType::kUInt8, 0, 255, 53);
  auto const yu = test::random_integers(400, 64, DType::kUInt8, 0, 255, 54);
  reference::Matrix const du = reference::cdist(xu.values, yu.values, Metric::kEuclidean);
  EXPECT_TRUE(same_pairs(run_radius(xu, yu, 800.0, Metric::kEuclidean), du, 800.0, false, 1e-6));
  auto const xd = test::random_reals(45, 9, DType::kFloat64, -1, 1, 55);
  auto const yd = test::random_reals(230, 9, DType::kFloat64, -1, 1, 56);
  EXPECT_TRUE(same_pairs(run_radius(xd, yd, 1.1, Metric::kCosine),
                         reference::cdist(xd.values, yd.values, Metric::kCosine), 1.1, false, 1e-12));
}

TEST(Radius, NanDistancesAreNeverWithinTheRadius) {
  CUDIST_REQUIRE_BACKEND();
  auto x = test::random_integers(10, 3, DType::kFloat32, -2, 2, 61);
  auto const y = test::random_integers(40, 3, DType::kFloat32, -2, 2, 62);
  x.values.v[4] = test::store(x.array, 4, std::numeric_limits<double>::quiet_NaN());
  reference::Matrix const d = reference::cdist(x.values, y.values, Metric::kCityblock);
  EXPECT_TRUE(same_pairs(run_radius(x, y, std::numeric_limits<double>::infinity(), Metric::kCityblock), d,
                         std::numeric_limits<double>::infinity(), false, 0));
}

TEST(Radius, EmptyInputs) {
  CUDIST_REQUIRE_BACKEND();
  auto const none = test::random_reals(0, 4, DType::kFloat32, 0, 1, 1);
  auto const some = test::random_reals(6, 4, DType::kFloat32, 0, 1, 2);
  RadiusResult const a = run_radius(none, some, 1.0, Metric::kEuclidean);
  EXPECT_EQ(a.offsets.cols(), 1);
  EXPECT_EQ(a.indices.cols(), 0);
  RadiusResult const b = run_radius(some, none, 1.0, Metric::kEuclidean);
  EXPECT_EQ(b.offsets.cols(), 7);
  EXPECT_EQ(b.indices.cols(), 0);
}

}  // namespace
}  // namespace cudist
