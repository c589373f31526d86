// match and match_batched: OpenCV's ratio-test matches on the real box / box_in_scene SIFT (L2)
// and ORB (bit Hamming) descriptors, and the reference matcher (ratio, mutual, distance limit)
// on integer data full of ties. Built once per backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/backend.hpp"
#include "common/data.hpp"
#include "cudist/io/npy.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/neighbors_test_util.hpp"
#include "reference/knn_ref.hpp"

namespace cudist {
namespace {

struct HostMatches {
  Array pairs, distances, offsets;
};

HostMatches run_match(Array const& x, Array const& y, Metric metric, MatchOptions const& options) {
  Array const xb = test::to_backend(x), yb = test::to_backend(y);
  MatchResult const r = match(test::backend_resources(), xb, yb, metric, options);
  return {test::to_host(r.pairs), test::to_host(r.distances), test::to_host(r.offsets)};
}

reference::Matrix values_of(Array const& a) {
  reference::Matrix m{a.rows(), a.cols(), {}};
  for (std::int64_t e = 0; e < a.size(); ++e) {
    m.v.push_back(a.dtype() == DType::kUInt8 ? a.data_as<std::uint8_t>()[e] : a.data_as<float>()[e]);
  }
  return m;
}

double distance_at(Array const& distances, std::int64_t e) {
  return distances.dtype() == DType::kFloat64 ? distances.data_as<double>()[e] : distances.data_as<float>()[e];
}

/// The same queries matched, ordered by query; each train index the reference's or one at the
/// same distance (a tie); distances equal within `rtol`.
::testing::AssertionResult same_matches(HostMatches const& got, std::int64_t first, std::int64_t count,
                                        std::vector<reference::Match> const& want,
                                        reference::Matrix const& d, double rtol) {
  std::ostringstream err;
  if (count != static_cast<std::int64_t>(want.size())) err << "\n  " << count << " matches, want " << want.size();
  auto const* p = got.pairs.data_as<std::int64_t>();
  for (std::int64_t q = 0; q < count && q < static_cast<std::int64_t>(want.size()); ++q) {
    std::int64_t const i = p[2 * (first + q)], j = p[2 * (first + q) + 1];
    double const dist = distance_at(got.distances, first + q);
    reference::Match const& w = want[q];
    if (i != w.query) {
      err << "\n  match " << q << ": query " << i << ", want " << w.query;
      break;
    }
    if (j != w.train && d(i, j) != d(i, w.train)) err << "\n  query " << i << ": train " << j << ", want " << w.train;
    if (std::fabs(dist - w.distance) > rtol * std::fabs(w.distance)) err << "\n  query " << i << ": distance " << dist << ", want " << w.distance;
  }
  if (err.str().empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << err.str();
}

std::vector<reference::Match> opencv_matches(char const* file, reference::Matrix const& d) {
  Array const pairs = io::read_npy(test::data_path(std::string("descriptors/") + file));
  std::vector<reference::Match> out;
  for (std::int64_t q = 0; q < pairs.rows(); ++q) {
    std::int64_t const i = pairs.data_as<std::int32_t>()[2 * q], j = pairs.data_as<std::int32_t>()[2 * q + 1];
    out.push_back({i, j, d(i, j)});
  }
  return out;
}

/// Problem b of a batch on its own rows: their distances and the reference matcher's matches.
struct ProblemReference {
  reference::Matrix d;
  std::vector<reference::Match> want;
};
ProblemReference reference_of(test::TestMatrix const& x, test::TestMatrix const& y, Batch const& batch, std::size_t b,
                              Metric metric, MatchOptions const& o) {
  reference::Matrix const xs = test::rows_of(x.values, batch.x_offsets[b], batch.x_offsets[b + 1]);
  reference::Matrix const ys = test::rows_of(y.values, batch.y_offsets[b], batch.y_offsets[b + 1]);
  return {reference::cdist(xs, ys, metric), reference::match(xs, ys, metric, o.ratio, o.mutual, o.max_distance)};
}

TEST(Match, OpenCvRatioTestOnBoxSift) {
  CUDIST_REQUIRE_BACKEND();
  Array const a = io::read_npy(test::data_path("descriptors/box_a_sift_u8.npy"));
  Array const b = io::read_npy(test::data_path("descriptors/box_b_sift_u8.npy"));
  reference::Matrix const d = reference::cdist(values_of(a), values_of(b), Metric::kEuclidean);
  auto const want = opencv_matches("box_sift_ratio075_matches.npy", d);
  ASSERT_EQ(want.size(), 80u);
  auto const got = run_match(a, b, Metric::kEuclidean, {});
  EXPECT_TRUE(same_matches(got, 0, got.pairs.rows(), want, d, 1e-6)) << "uint8 SIFT";
  // OpenCV holds SIFT as integer-valued floats: the same answer from float32 input.
  Array af = Array::allocate(a.rows(), a.cols(), DType::kFloat32, Device::cpu());
  Array bf = Array::allocate(b.rows(), b.cols(), DType::kFloat32, Device::cpu());
  for (std::int64_t e = 0; e < a.size(); ++e) af.data_as<float>()[e] = a.data_as<std::uint8_t>()[e];
  for (std::int64_t e = 0; e < b.size(); ++e) bf.data_as<float>()[e] = b.data_as<std::uint8_t>()[e];
  auto const got_f = run_match(af, bf, Metric::kEuclidean, {});
  EXPECT_TRUE(same_matches(got_f, 0, got_f.pairs.rows(), want, d, 1e-6)) << "float32 SIFT";
}

TEST(Match, OpenCvRatioTestOnBoxOrb) {
  CUDIST_REQUIRE_BACKEND();
  Array const a = io::read_npy(test::data_path("descriptors/box_a_orb.npy"));
  Array const b = io::read_npy(test::data_path("descriptors/box_b_orb.npy"));
  reference::Matrix const d = reference::cdist(values_of(a), values_of(b), Metric::kHammingBits);
  auto const want = opencv_matches("box_orb_ratio075_matches.npy", d);
  ASSERT_EQ(want.size(), 53u);
  auto const got = run_match(a, b, Metric::kHammingBits, {});
  EXPECT_TRUE(same_matches(got, 0, got.pairs.rows(), want, d, 0));
  ASSERT_EQ(got.offsets.cols(), 2);
  EXPECT_EQ(got.offsets.data_as<std::int64_t>()[1], got.pairs.rows());
}

TEST(Match, RatioMutualAndDistanceLimitMatchTheReference) {
  CUDIST_REQUIRE_BACKEND();
  struct Shape {
    std::int64_t m, n, d;
  };
  for (Shape s : {Shape{1, 1, 3}, Shape{40, 2, 5}, Shape{150, 131, 9}, Shape{300, 2100, 16}}) {
    for (Metric metric : {Metric::kSqEuclidean, Metric::kCityblock}) {
      auto const x = test::random_integers(s.m, s.d, DType::kFloat32, -3, 3, 7 * s.m + s.d);
      auto const y = test::random_integers(s.n, s.d, DType::kFloat32, -3, 3, 11 * s.n + s.d);
      reference::Matrix const d = reference::cdist(x.values, y.values, metric);
      for (double ratio : {0.5, 0.8, 1.0}) {
        for (bool mutual : {false, true}) {
          for (double limit : {std::numeric_limits<double>::infinity(), 20.0}) {
            MatchOptions o;
            o.ratio = ratio;
            o.mutual = mutual;
            o.max_distance = limit;
            auto const want = reference::match(x.values, y.values, metric, ratio, mutual, limit);
            auto const got = run_match(x.array, y.array, metric, o);
            EXPECT_TRUE(same_matches(got, 0, got.pairs.rows(), want, d, 0))
                << metric_name(metric) << " m=" << s.m << " n=" << s.n << " ratio=" << ratio
                << " mutual=" << mutual << " limit=" << limit;
          }
        }
      }
    }
  }
}

TEST(Match, MutualCheckInDoublePrecision) {
  CUDIST_REQUIRE_BACKEND();
  auto const x = test::random_integers(90, 6, DType::kFloat64, -3, 3, 21);
  auto const y = test::random_integers(200, 6, DType::kFloat64, -3, 3, 22);
  reference::Matrix const d = reference::cdist(x.values, y.values, Metric::kCityblock);
  MatchOptions o;
  o.ratio = 0.9;
  o.mutual = true;
  auto const want = reference::match(x.values, y.values, Metric::kCityblock, o.ratio, true, o.max_distance);
  auto const got = run_match(x.array, y.array, Metric::kCityblock, o);
  EXPECT_EQ(got.distances.dtype(), DType::kFloat64);
  EXPECT_TRUE(same_matches(got, 0, got.pairs.rows(), want, d, 0));
}

TEST(Match, BatchedProblemsMatchEachProblemAlone) {
  CUDIST_REQUIRE_BACKEND();
  std::vector<std::int64_t> const rows_x = {30, 0, 7, 150, 1};
  Batch const batch = test::batch_of(rows_x, {50, 4, 1, 260, 0});
  auto const x = test::random_integers(batch.x_offsets.back(), 8, DType::kUInt8, 0, 9, 31);
  auto const y = test::random_integers(batch.y_offsets.back(), 8, DType::kUInt8, 0, 9, 32);
  MatchOptions o;
  o.ratio = 0.8;
  o.mutual = true;
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  MatchResult const r = match_batched(test::backend_resources(), xb, yb, batch, Metric::kSqEuclidean, o);
  HostMatches const got{test::to_host(r.pairs), test::to_host(r.distances), test::to_host(r.offsets)};
  ASSERT_EQ(got.offsets.cols(), static_cast<std::int64_t>(rows_x.size()) + 1);
  auto const* offsets = got.offsets.data_as<std::int64_t>();
  for (std::size_t b = 0; b < rows_x.size(); ++b) {
    auto const [d, want] = reference_of(x, y, batch, b, Metric::kSqEuclidean, o);
    EXPECT_TRUE(same_matches(got, offsets[b], offsets[b + 1] - offsets[b], want, d, 0)) << "problem " << b;
  }
}

// More queries than one block finishes (match_finish.cuh's kBlockFinishRows, 16384): the flags,
// the device-wide scan and the scatter of the grid, in two problems whose boundary falls inside a
// block of flags; and a problem alone of fewer queries, one block's finish over several passes.
TEST(Match, ManyQueriesAndTheirProblemsMatchTheReference) {
  CUDIST_REQUIRE_BACKEND();
  std::vector<std::int64_t> const rows_x = {12001, 8200};
  std::vector<std::int64_t> const rows_y = {40, 33};
  Batch const batch = test::batch_of(rows_x, rows_y);
  auto const x = test::random_integers(batch.x_offsets.back(), 4, DType::kFloat32, -3, 3, 51);
  auto const y = test::random_integers(batch.y_offsets.back(), 4, DType::kFloat32, -3, 3, 52);
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  for (bool mutual : {false, true}) {
    MatchOptions o;
    o.ratio = 0.8;
    o.mutual = mutual;
    MatchResult const r = match_batched(test::backend_resources(), xb, yb, batch, Metric::kSqEuclidean, o);
    HostMatches const got{test::to_host(r.pairs), test::to_host(r.distances), test::to_host(r.offsets)};
    auto const* offsets = got.offsets.data_as<std::int64_t>();
    for (std::size_t b = 0; b < rows_x.size(); ++b) {
      auto const [d, want] = reference_of(x, y, batch, b, Metric::kSqEuclidean, o);
      EXPECT_TRUE(same_matches(got, offsets[b], offsets[b + 1] - offsets[b], want, d, 0))
          << "problem " << b << (mutual ? ", mutual" : "");
      if (b == 0) {  // the first problem alone: 12001 queries, one block's finish in three passes
        auto const alone = run_match(x.array.leading_rows(rows_x[0]), y.array.leading_rows(rows_y[0]),
                                     Metric::kSqEuclidean, o);
        EXPECT_TRUE(same_matches(alone, 0, alone.pairs.rows(), want, d, 0)) << "problem 0 alone";
      }
    }
  }
}

TEST(Match, EmptyInputs) {
  CUDIST_REQUIRE_BACKEND();
  auto const none = test::random_reals(0, 4, DType::kFloat32, 0, 1, 41);
  auto const some = test::random_reals(6, 4, DType::kFloat32, 0, 1, 42);
  Array const noneb = test::to_backend(none.array), someb = test::to_backend(some.array);
  for (bool mutual : {false, true}) {
    MatchOptions o;
    o.mutual = mutual;
    for (auto const& [x, y] : {std::pair{&noneb, &someb}, std::pair{&someb, &noneb}}) {
      MatchResult const r = match(test::backend_resources(), *x, *y, Metric::kEuclidean, o);
      EXPECT_EQ(r.pairs.rows(), 0);
      EXPECT_EQ(r.pairs.cols(), 2);
      EXPECT_EQ(r.distances.rows(), 0);
      Array const offsets = test::to_host(r.offsets);
      ASSERT_EQ(offsets.cols(), 2);
      EXPECT_EQ(offsets.data_as<std::int64_t>()[0], 0);
      EXPECT_EQ(offsets.data_as<std::int64_t>()[1], 0);
    }
    // Three problems, none with a query row: every problem's range is empty.
    Batch const batch{{0, 0, 0, 0}, {0, 2, 2, 6}};
    MatchResult const r = match_batched(test::backend_resources(), noneb, someb, batch, Metric::kEuclidean, o);
    EXPECT_EQ(r.pairs.rows(), 0);
    Array const offsets = test::to_host(r.offsets);
    ASSERT_EQ(offsets.cols(), 4);
    for (int b = 0; b < 4; ++b) EXPECT_EQ(offsets.data_as<std::int64_t>()[b], 0) << b;
  }
}

}  // namespace
}  // namespace cudist
