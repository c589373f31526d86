// float32 accuracy against the float64 reference (docs/accuracy.md): real SIFT descriptors, the
// same rows offset by 1e4 and scaled to ~1e-3 and ~1e6, per metric with its stated bound; values
// whose squares overflow or underflow float32 (the results are representable: they must be right);
// and the neighbour consumers on rows scaled by powers of two, whose answers must be exactly the
// unscaled ones scaled. Built once per backend (precision_test_cpu, precision_test_cuda).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/compare.hpp"
#include "common/reduced.hpp"
#include "cudist/distance/pairwise.hpp"
#include "cudist/io/npy.hpp"
#include "cudist/neighbors/knn.hpp"
#include "reference/pairwise_ref.hpp"

namespace cudist {
namespace {

constexpr double kUnit = 0x1p-24;  // float32 rounding

/// A float32 input on the host and the float64 values it holds.
struct Input {
  Array array;
  reference::Matrix values;
};

Input from_values(std::int64_t rows, std::int64_t cols, std::vector<double> const& v) {
  Input in{Array::allocate(rows, cols, DType::kFloat32, Device::cpu()), {rows, cols, {}}};
  in.values.v.resize(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    in.array.data_as<float>()[k] = static_cast<float>(v[k]);
    in.values.v[k] = in.array.data_as<float>()[k];
  }
  return in;
}

/// The first `rows` SIFT descriptors (uint8, 128-D) of `file`, as f(value) in float32.
Input sift(std::string const& file, std::int64_t rows, std::function<double(double)> const& f) {
  Array const raw = io::read_npy(test::data_path("descriptors/" + file));
  std::int64_t const d = raw.cols();
  std::vector<double> v(static_cast<std::size_t>(rows * d));
  for (std::int64_t k = 0; k < rows * d; ++k) v[k] = f(raw.data_as<std::uint8_t>()[k]);
  return from_values(rows, d, v);
}

/// The reference rounded to float32, which is what a float32 result can at best be.
reference::Matrix rounded(reference::Matrix m) {
  for (double& v : m.v) v = static_cast<float>(v);
  return m;
}

Array on_host(Array const& a) { return test::to_host(a.view()); }

struct MetricCase {
  Metric metric;
  double rtol;  // relative bound, docs/accuracy.md (d = 128 here)
  MetricParams params;
  double atol = 0;  // absolute bound (cosine: 1 - c with c rounded to float32)
};

/// got (host) against want within the case's bounds; the largest relative error is printed,
/// the measurement docs/accuracy.md quotes.
::testing::AssertionResult within_bound(Array const& got, reference::Matrix const& want,
                                        MetricCase const& c, char const* what) {
  double worst = 0;
  for (std::int64_t k = 0; k < got.rows() * got.cols(); ++k) {
    double const g = test::value_at(got, k), w = want.v[k];
    if (std::isfinite(w) && w != 0) worst = std::max(worst, std::fabs(g - w) / std::fabs(w));
  }
  std::printf("  %-12s %-5s max relative error %.2e\n", std::string(metric_name(c.metric)).c_str(), what, worst);
  return test::matches(got, want, {c.rtol, c.atol});
}

/// Parameters scaled with the data: seuclidean's V and mahalanobis's VI in units of scale^2, so
/// the distances stay comparable.
/// Mahalanobis transforms each row (x L) before the difference: its error is relative to the
/// rows' magnitude, not the distance's, hence the looser bound on rows offset far from 0.
std::vector<MetricCase> metric_cases(std::int64_t d, double scale, bool offset) {
  MetricParams seu, mah, mink;
  for (std::int64_t k = 0; k < d; ++k) seu.V.push_back((1 + k % 5) * scale * scale);
  mah.VI.resize(static_cast<std::size_t>(d * d));
  for (std::int64_t r = 0; r < d; ++r)
    for (std::int64_t c = 0; c < d; ++c)
      mah.VI[r * d + c] = std::pow(0.5, static_cast<double>(std::abs(r - c))) / (scale * scale);
  mink.p = 3;
  double const sums = static_cast<double>(d + 2) * kUnit;  // a sum of d non-negative terms
  return {{Metric::kSqEuclidean, sums, {}},
          {Metric::kEuclidean, sums, {}},
          {Metric::kSEuclidean, sums, seu},
          {Metric::kMahalanobis, offset ? 2e-4 : sums, mah},
          {Metric::kMinkowski, 2 * sums, mink},
          {Metric::kCosine, 2e-5, {}, sums},
          {Metric::kCorrelation, 1e-5, {}}};
}

struct Scaling {
  char const* name;
  double scale;   // of the differences between rows
  double offset;  // added to every value
};

constexpr Scaling kScalings[] = {{"raw", 1, 0}, {"offset 1e4", 1, 1e4}, {"around 1e-3", 1e-5, 0},
                                 {"around 1e6", 1e4, 0}};

TEST(Precision, SiftDescriptorsOffsetAndScaledWithinTheStatedBoundPerMetric) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  std::int64_t const m = test::reduced_run() ? 40 : 150, n = test::reduced_run() ? 50 : 250;
  for (Scaling const& s : kScalings) {
    auto const f = [s](double v) { return v * s.scale + s.offset; };
    Input const x = sift("box_a_sift_u8.npy", m, f), y = sift("box_b_sift_u8.npy", n, f);
    Array const xd = test::to_backend(x.array), yd = test::to_backend(y.array);
    std::printf("%s\n", s.name);
    for (MetricCase const& c : metric_cases(x.values.cols, s.scale, s.offset != 0)) {
      SCOPED_TRACE(std::string(s.name) + ", " + std::string(metric_name(c.metric)));
      // correlation and cosine are translation-sensitive by definition: the offset changes them,
      // the reference sees the same offset.
      reference::Matrix const want = rounded(reference::cdist(x.values, y.values, c.metric, c.params));
      EXPECT_TRUE(within_bound(on_host(cdist(res, xd, yd, c.metric, c.params)), want, c, "cdist"));
      reference::Matrix const want_p = rounded(reference::pdist(y.values, c.metric, c.params));
      EXPECT_TRUE(within_bound(on_host(pdist(res, yd, c.metric, c.params)), want_p, c, "pdist"));
    }
  }
}

/// Rows whose squares (or products) overflow or underflow float32 while the distances do not.
std::vector<std::pair<Input, Input>> extreme_pairs() {
  std::vector<std::pair<Input, Input>> pairs;
  pairs.emplace_back(from_values(1, 2, {1e20, 0}), from_values(1, 2, {0, 0}));      // issue 9
  pairs.emplace_back(from_values(1, 2, {3e-25, 4e-25}), from_values(1, 2, {0, 0}));  // issue 9
  pairs.emplace_back(from_values(2, 3, {1e20, 2e20, -3e20, 3e-25, -4e-25, 1e-25}),
                     from_values(3, 3, {0, 1e20, 5e19, -2e-25, 1e-25, 5e-26, 1, 2, 3}));
  // 130 columns of 2e19: the float sum of squares overflows, the distance is 2.3e20.
  std::int64_t const d = 130;
  std::vector<double> big(2 * d), small(2 * d), zero(d, 0.0);
  for (std::int64_t k = 0; k < 2 * d; ++k) {
    big[k] = (k < d ? 2e19 : -1e19) * (1 + 0.01 * (k % 7));
    small[k] = (k < d ? 3e-24 : -2e-24) * (1 + 0.01 * (k % 5));
  }
  pairs.emplace_back(from_values(2, d, big), from_values(1, d, zero));
  pairs.emplace_back(from_values(2, d, small), from_values(1, d, zero));
  return pairs;
}

TEST(Precision, SquaresThatOverflowOrUnderflowGiveTheRepresentableResult) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  for (auto const& [x, y] : extreme_pairs()) {
    std::int64_t const d = x.values.cols;
    Array const xd = test::to_backend(x.array), yd = test::to_backend(y.array);
    MetricParams unit_v, unit_vi, p3;
    unit_v.V.assign(static_cast<std::size_t>(d), 1.0);
    unit_vi.VI.assign(static_cast<std::size_t>(d * d), 0.0);
    for (std::int64_t k = 0; k < d; ++k) unit_vi.VI[k * d + k] = 1;
    p3.p = 3;
    double const sums = static_cast<double>(d + 2) * kUnit;
    std::vector<MetricCase> const cases = {
        {Metric::kEuclidean, sums, {}},      {Metric::kSqEuclidean, sums, {}},
        {Metric::kSEuclidean, sums, unit_v}, {Metric::kMahalanobis, sums, unit_vi},
        {Metric::kMinkowski, 2 * sums, p3},  {Metric::kCosine, 1e-6, {}},
        {Metric::kCorrelation, 1e-6, {}}};
    for (MetricCase const& c : cases) {
      SCOPED_TRACE(std::string(metric_name(c.metric)) + ", d = " + std::to_string(d) +
                   ", x[0][0] = " + std::to_string(x.values.v[0]));
      reference::Matrix const want = rounded(reference::cdist(x.values, y.values, c.metric, c.params));
      EXPECT_TRUE(test::matches(on_host(cdist(res, xd, yd, c.metric, c.params)), want, {c.rtol, 0}));
      if (x.values.rows > 1) {
        reference::Matrix const want_p = rounded(reference::pdist(x.values, c.metric, c.params));
        EXPECT_TRUE(test::matches(on_host(pdist(res, xd, c.metric, c.params)), want_p, {c.rtol, 0}));
      }
    }
  }
}

TEST(Precision, IssueExamplesGiveScipysValues) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  Array const zero = test::to_backend(from_values(1, 2, {0, 0}).array);
  Array const big = test::to_backend(from_values(1, 2, {1e20, 0}).array);
  Array const tiny = test::to_backend(from_values(1, 2, {3e-25, 4e-25}).array);
  EXPECT_EQ(on_host(cdist(res, big, zero, Metric::kEuclidean)).data_as<float>()[0], 1e20f);
  EXPECT_EQ(on_host(cdist(res, tiny, zero, Metric::kEuclidean)).data_as<float>()[0], 5e-25f);
}

// Out-of-core windows (a small memory budget, output in host memory): the entries recomputed
// after a tile land in the window's own rows, in the full and the condensed layout.
TEST(Precision, OutOfCoreWindowsGetTheRecomputedEntriesInPlace) {
  CUDIST_REQUIRE_BACKEND();
  std::int64_t const m = 37, d = 5;
  std::vector<double> v;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t k = 0; k < d; ++k)
      v.push_back((i % 3 == 0 ? 1e19 : i % 3 == 1 ? 1e-24 : 1.0) * (1 + 0.1 * ((i * 5 + k) % 7)) * (k % 2 ? -1 : 1));
  Input const x = from_values(m, d, v);
  Array const xd = test::to_backend(x.array);
  Resources res = test::backend_resources();
  res.memory_budget = static_cast<std::uint64_t>(8 * m * 4);  // windows of a few rows
  for (Metric metric : {Metric::kEuclidean, Metric::kSqEuclidean}) {
    SCOPED_TRACE(std::string(metric_name(metric)));
    MetricCase const c{metric, static_cast<double>(d + 2) * kUnit, {}};
    Array full = Array::allocate(m, m, DType::kFloat32, Device::cpu());
    cdist(res, xd, xd, full.view(), metric);
    EXPECT_TRUE(within_bound(full, rounded(reference::cdist(x.values, x.values, metric)), c, "cdist"));
    Array condensed = Array::allocate(1, m * (m - 1) / 2, DType::kFloat32, Device::cpu());
    pdist(res, xd, condensed.view(), metric);
    EXPECT_TRUE(within_bound(condensed, rounded(reference::pdist(x.values, metric)), c, "pdist"));
  }
}

/// SIFT rows times 2^e (exact in float32), and the raw rows.
Input sift_times_power_of_two(std::string const& file, std::int64_t rows, int e) {
  return sift(file, rows, [e](double v) { return std::ldexp(v, e); });
}

void expect_scaled(Array const& scaled, Array const& raw, double factor, char const* what) {
  ASSERT_EQ(scaled.rows() * scaled.cols(), raw.rows() * raw.cols()) << what;
  for (std::int64_t k = 0; k < raw.rows() * raw.cols(); ++k) {
    double const want = test::value_at(raw, k) * factor, got = test::value_at(scaled, k);
    if (std::isnan(want)) continue;  // padding
    ASSERT_EQ(got, static_cast<float>(want)) << what << " entry " << k;
  }
}

void expect_equal(Array const& a, Array const& b, char const* what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  for (std::int64_t k = 0; k < a.rows() * a.cols(); ++k)
    ASSERT_EQ(a.data_as<std::int64_t>()[k], b.data_as<std::int64_t>()[k]) << what << " entry " << k;
}

// Integer SIFT data: squared L2 is exact in float32 and in the double recomputation alike, so
// rows scaled by 2^-50 (squares near 2^-100: below the float fast path, recomputed in double)
// must select the same neighbours, with distances scaled exactly. Cosine scaled by 2^+-100
// (products far beyond float32) must not change at all.
TEST(Precision, NeighboursOnRowsScaledByPowersOfTwoAreTheUnscaledAnswers) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  std::int64_t const m = test::reduced_run() ? 40 : 200, n = test::reduced_run() ? 60 : 400;
  struct Case {
    Metric metric;
    int e;
    double distance_factor;
  };
  for (Case const c : {Case{Metric::kSqEuclidean, -50, 0x1p-100}, Case{Metric::kEuclidean, -50, 0x1p-50},
                       Case{Metric::kCosine, -100, 1}, Case{Metric::kCosine, 100, 1}}) {
    SCOPED_TRACE(std::string(metric_name(c.metric)) + " times 2^" + std::to_string(c.e));
    Array const x = test::to_backend(sift_times_power_of_two("box_a_sift_u8.npy", m, 0).array);
    Array const y = test::to_backend(sift_times_power_of_two("box_b_sift_u8.npy", n, 0).array);
    Array const xs = test::to_backend(sift_times_power_of_two("box_a_sift_u8.npy", m, c.e).array);
    Array const ys = test::to_backend(sift_times_power_of_two("box_b_sift_u8.npy", n, c.e).array);

    KnnResult const want = knn(res, x, y, 5, c.metric), got = knn(res, xs, ys, 5, c.metric);
    expect_equal(on_host(got.indices), on_host(want.indices), "knn indices");
    expect_scaled(on_host(got.distances), on_host(want.distances), c.distance_factor, "knn distances");

    MatchResult const mw = match(res, x, y, c.metric), mg = match(res, xs, ys, c.metric);
    expect_equal(on_host(mg.pairs), on_host(mw.pairs), "match pairs");
    expect_scaled(on_host(mg.distances), on_host(mw.distances), c.distance_factor, "match distances");

    double const r = c.metric == Metric::kCosine ? 0.2 : c.metric == Metric::kEuclidean ? 250 : 250.0 * 250;
    RadiusResult const rw = radius(res, x, y, r, c.metric);
    RadiusResult const rg = radius(res, xs, ys, r * c.distance_factor, c.metric);
    expect_equal(on_host(rg.offsets), on_host(rw.offsets), "radius offsets");
    expect_equal(on_host(rg.indices), on_host(rw.indices), "radius indices");
    expect_scaled(on_host(rg.distances), on_host(rw.distances), c.distance_factor, "radius distances");
  }
}

}  // namespace
}  // namespace cudist
