// cdist / pdist against the float64 reference on every metric, dtype and layout, on ragged shapes.
// Built once per backend (pairwise_test_cpu, pairwise_test_cuda).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/compare.hpp"
#include "common/data.hpp"
#include "common/padded_output.hpp"
#include "common/reduced.hpp"
#include "cudist/distance/pairwise.hpp"
#include "reference/pairwise_ref.hpp"

namespace cudist {
namespace {

using test::matches;
using test::TestMatrix;
using test::Tolerance;

// Ragged on purpose: none is a multiple of any tile, plus 1-row/1-column edges.
struct Shape {
  std::int64_t m, n, d;
};
constexpr Shape kShapes[] = {{1, 1, 1}, {2, 31, 3}, {33, 1, 17}, {113, 203, 65}, {129, 127, 300},
                             {31, 239, 2}, {200, 33, 129}};

Array run_cdist(TestMatrix const& x, TestMatrix const& y, Metric metric, MetricParams const& p = {}) {
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  return test::to_host(cdist(test::backend_resources(), xb, yb, metric, p));
}

Array run_pdist(TestMatrix const& x, Metric metric, MetricParams const& p = {}) {
  Array const xb = test::to_backend(x.array);
  return test::to_host(pdist(test::backend_resources(), xb, metric, p));
}

Tolerance tolerance_for(Metric metric, DType dtype, std::int64_t d) {
  if (dtype == DType::kFloat64) return {1e-10, 1e-12 * static_cast<double>(d)};
  if (metric == Metric::kInnerProduct) return {1e-5, 1e-6 * static_cast<double>(d)};
  if (metric == Metric::kJensenShannon || metric == Metric::kMahalanobis) return {2e-4, 1e-4};
  return {1e-4, 1e-5};
}

std::string label(Metric metric, DType dtype, Shape s) {
  return std::string(metric_name(metric)) + " " + std::string(dtype_name(dtype)) + " m=" +
         std::to_string(s.m) + " n=" + std::to_string(s.n) + " d=" + std::to_string(s.d);
}

/// Data suited to each metric's domain (0/1 for boolean metrics, positive for jensenshannon...).
TestMatrix data_for(Metric metric, std::int64_t rows, std::int64_t d, DType dtype, std::uint64_t seed) {
  switch (metric) {
    case Metric::kJensenShannon: return test::random_reals(rows, d, dtype, 0.0, 1.0, seed);
    case Metric::kHamming:
    case Metric::kJaccard: return test::random_integers(rows, d, dtype, 0, 2, seed);
    case Metric::kDice:
    case Metric::kKulczynski1:
    case Metric::kRogersTanimoto:
    case Metric::kRussellRao:
    case Metric::kSokalMichener:
    case Metric::kSokalSneath:
    case Metric::kYule: return test::random_integers(rows, d, dtype, 0, 1, seed);
    default: return test::random_reals(rows, d, dtype, -1.0, 1.0, seed);
  }
}

/// Explicit V / VI so the reference needs no estimation: V in [0.5, 2), VI = A A^T + d I.
MetricParams params_for(Metric metric, std::int64_t d, std::uint64_t seed) {
  MetricParams p;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 2.0), a(-1.0, 1.0);
  if (metric == Metric::kSEuclidean) {
    for (std::int64_t k = 0; k < d; ++k) p.V.push_back(u(rng));
  }
  if (metric == Metric::kMahalanobis) {
    std::vector<double> A(d * d);
    for (auto& v : A) v = a(rng);
    p.VI.assign(d * d, 0.0);
    for (std::int64_t i = 0; i < d; ++i)
      for (std::int64_t j = 0; j < d; ++j) {
        for (std::int64_t k = 0; k < d; ++k) p.VI[i * d + j] += A[i * d + k] * A[j * d + k];
        if (i == j) p.VI[i * d + j] += static_cast<double>(d);
      }
  }
  if (metric == Metric::kMinkowski) p.p = 3.0;
  return p;
}

TEST(Pairwise, IntegerDataIsExact) {
  CUDIST_REQUIRE_BACKEND();
  test::CombinationSampler sample(3);  // reduced runs: a third of the combinations
  for (Metric metric : {Metric::kSqEuclidean, Metric::kCityblock, Metric::kChebyshev, Metric::kInnerProduct}) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kUInt8}) {
      for (Shape s : kShapes) {
        if (!sample.keep()) continue;
        int const lo = dtype == DType::kUInt8 ? 0 : -8;
        int const hi = dtype == DType::kUInt8 ? 255 : 8;
        if (dtype == DType::kUInt8 && metric == Metric::kInnerProduct && s.d > 250) continue;  // > 2^24
        auto const x = test::random_integers(s.m, s.d, dtype, lo, hi, 1000 + s.m * 7 + s.d);
        auto const y = test::random_integers(s.n, s.d, dtype, lo, hi, 2000 + s.n * 5 + s.d);
        auto const want = reference::cdist(x.values, y.values, metric);
        EXPECT_TRUE(matches(run_cdist(x, y, metric), want)) << label(metric, dtype, s);
      }
    }
  }
}

// Problems of at least 264 large tiles (the GPU's large 128 x 128 tiles: policy.hpp), with a ragged
// last row and column of tiles and d not a multiple of the 16-column slab: the interior tiles load
// all but their last slab or two without bounds (pairwise_kernel.cuh, InteriorChunks), the edge
// tiles and the last slabs with them. Integer data: every value exact; cosine within its bound.
TEST(Pairwise, LargeTilesInteriorAndEdgesAreExact) {
  CUDIST_REQUIRE_BACKEND();
  for (std::int64_t d : {45, 77}) {
    auto const x = test::random_integers(2200, d, DType::kFloat32, -8, 8, 500 + d);
    auto const y = test::random_integers(1999, d, DType::kFloat32, -8, 8, 600 + d);
    for (Metric metric : {Metric::kSqEuclidean, Metric::kCityblock, Metric::kChebyshev, Metric::kInnerProduct}) {
      EXPECT_TRUE(matches(run_cdist(x, y, metric), reference::cdist(x.values, y.values, metric)))
          << label(metric, DType::kFloat32, Shape{2200, 1999, d});
    }
    EXPECT_TRUE(matches(run_cdist(x, y, Metric::kCosine), reference::cdist(x.values, y.values, Metric::kCosine),
                        tolerance_for(Metric::kCosine, DType::kFloat32, d)))
        << label(Metric::kCosine, DType::kFloat32, Shape{2200, 1999, d});
  }
}

// Condensed rows of interior tiles go out through shared memory, shifted to the output's 16-byte
// grid (pairwise_kernel.cuh, store_condensed_segment): every alignment of a row's segment, in
// shallow and deep slabs, and rows whose sums leave float's range, rewritten after those stores.
TEST(Pairwise, CondensedInteriorTilesAreExact) {
  CUDIST_REQUIRE_BACKEND();
  for (std::int64_t d : {2, 20}) {
    auto x = test::random_integers(2100, d, DType::kFloat32, -8, 8, 700 + d);  // 17 x 17 large tiles
    for (Metric metric : {Metric::kSqEuclidean, Metric::kCityblock}) {
      EXPECT_TRUE(matches(run_pdist(x, metric), reference::pdist(x.values, metric))) << "d=" << d;
    }
    for (std::int64_t k = 0; k < d; ++k) {
      for (std::int64_t row : {300, 1500}) {  // squares beyond float with every other row
        x.values.v[row * d + k] = test::store(x.array, row * d + k, 3e20 * (k % 2 ? -1.0 : 1.0));
      }
      for (std::int64_t row : {900, 901}) {  // a square below float's normal range between them
        x.values.v[row * d + k] = test::store(x.array, row * d + k, 1e-30 * static_cast<double>(row - 899 + k));
      }
    }
    EXPECT_TRUE(matches(run_pdist(x, Metric::kEuclidean), reference::pdist(x.values, Metric::kEuclidean), {1e-6, 0}))
        << "d=" << d;
  }
}

// Every depth from 1 to 17 on small problems (the GPU's small tiles run only a slab's real
// columns: policy.hpp), with n not a multiple of any tile's width. Integer data: every value exact.
TEST(Pairwise, ShallowRowsAtEveryDepthAreExact) {
  CUDIST_REQUIRE_BACKEND();
  test::CombinationSampler sample(3);
  for (std::int64_t d = 1; d <= 17; ++d) {
    for (Shape s : {Shape{1, 1, d}, Shape{37, 203, d}, Shape{130, 9, d}}) {
      auto const x = test::random_integers(s.m, d, DType::kFloat32, -8, 8, 300 + d * 3 + s.m);
      auto const y = test::random_integers(s.n, d, DType::kFloat32, -8, 8, 400 + d * 5 + s.n);
      for (Metric metric : {Metric::kSqEuclidean, Metric::kCityblock, Metric::kChebyshev, Metric::kInnerProduct}) {
        if (!sample.keep()) continue;
        EXPECT_TRUE(matches(run_cdist(x, y, metric), reference::cdist(x.values, y.values, metric)))
            << label(metric, DType::kFloat32, s);
      }
      EXPECT_TRUE(matches(run_cdist(x, y, Metric::kEuclidean), reference::cdist(x.values, y.values, Metric::kEuclidean),
                          {1e-7, 0}))
          << label(Metric::kEuclidean, DType::kFloat32, s);
    }
  }
}

// Sums of squares beyond float's range (rows near 3e20: euclidean still representable) and below
// it (rows near 1e-30) at shallow depths: those entries are recomputed from the rows in double,
// next to ordinary ones (the small tiles' unchecked root is only valid in range).
TEST(Pairwise, ShallowRowsRecomputeSumsOutsideFloatRange) {
  CUDIST_REQUIRE_BACKEND();
  for (std::int64_t d : {1, 2, 3, 7, 16}) {
    auto x = test::random_reals(9, d, DType::kFloat32, -1.0, 1.0, 500 + d);
    auto y = test::random_reals(11, d, DType::kFloat32, -1.0, 1.0, 600 + d);
    for (std::int64_t k = 0; k < d; ++k) {
      y.values.v[5 * d + k] = test::store(y.array, 5 * d + k, 1e-30 * static_cast<double>(k + 1));
      x.values.v[7 * d + k] = test::store(x.array, 7 * d + k, 2e-30 * static_cast<double>(k + 1));
    }
    // Subnormal and zero squares: the double sum rounded to float, within half its last place.
    EXPECT_TRUE(matches(run_cdist(x, y, Metric::kSqEuclidean), reference::cdist(x.values, y.values, Metric::kSqEuclidean),
                        {1e-6, 1e-45}))
        << "d=" << d;
    for (std::int64_t k = 0; k < d; ++k) {
      x.values.v[2 * d + k] = test::store(x.array, 2 * d + k, 3e20 * (k % 2 ? -1.0 : 1.0));
    }
    EXPECT_TRUE(matches(run_cdist(x, y, Metric::kEuclidean), reference::cdist(x.values, y.values, Metric::kEuclidean),
                        {1e-6, 0}))
        << "d=" << d;
  }
}

// An output row stride that defeats 16-byte stores (odd), the gaps between rows untouched.
TEST(Pairwise, ShallowRowsIntoAnOutputWithAnOddStride) {
  CUDIST_REQUIRE_BACKEND();
  auto const x = test::random_integers(21, 5, DType::kFloat32, -8, 8, 701);
  auto const y = test::random_integers(130, 5, DType::kFloat32, -8, 8, 702);
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  test::PaddedOutput out(21, 130, 131);
  cdist(test::backend_resources(), xb, yb, out.view(), Metric::kCityblock);
  Array dense;
  ASSERT_TRUE(out.read(dense));
  EXPECT_TRUE(matches(dense, reference::cdist(x.values, y.values, Metric::kCityblock)));
}

// An output past the CPU backend's streaming threshold (64 MiB: pairwise_tiles.hpp), full and
// condensed, with n not a multiple of a row segment: every entry exact on integer data.
TEST(Pairwise, OutputsBeyondTheCachesAreExact) {
  CUDIST_REQUIRE_BACKEND();
  auto const x = test::random_integers(4101, 3, DType::kFloat32, -8, 8, 801);
  auto const y = test::random_integers(4099, 3, DType::kFloat32, -8, 8, 802);
  EXPECT_TRUE(matches(run_cdist(x, y, Metric::kSqEuclidean), reference::cdist(x.values, y.values, Metric::kSqEuclidean)));
  auto const z = test::random_integers(11600, 2, DType::kFloat32, -8, 8, 803);  // 67 M entries condensed
  EXPECT_TRUE(matches(run_pdist(z, Metric::kCityblock), reference::pdist(z.values, Metric::kCityblock)));
}

TEST(Pairwise, EveryMetricMatchesTheReference) {
  CUDIST_REQUIRE_BACKEND();
  for (Metric metric : all_metrics()) {
    if (metric == Metric::kHammingBits) continue;  // bytes, tested below
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      for (Shape s : {Shape{1, 2, 1}, Shape{37, 129, 5}, Shape{113, 67, 130}}) {
        std::uint64_t const seed = 77 + static_cast<std::uint64_t>(metric) * 131 + s.d;
        auto const x = data_for(metric, s.m, s.d, dtype, seed);
        auto const y = data_for(metric, s.n, s.d, dtype, seed + 1);
        MetricParams const p = params_for(metric, s.d, seed);
        auto const want = reference::cdist(x.values, y.values, metric, p);
        EXPECT_TRUE(matches(run_cdist(x, y, metric, p), want, tolerance_for(metric, dtype, s.d)))
            << label(metric, dtype, s);
      }
    }
  }
}

TEST(Pairwise, WeightsMatchScipysWeightedDefinitions) {
  CUDIST_REQUIRE_BACKEND();
  Shape const s{41, 53, 19};
  std::vector<double> w;
  std::mt19937_64 rng(5);
  for (std::int64_t k = 0; k < s.d; ++k) w.push_back(k % 5 == 0 ? 0.0 : std::uniform_real_distribution<double>(0.1, 3.0)(rng));
  for (Metric metric : {Metric::kEuclidean, Metric::kSqEuclidean, Metric::kCityblock, Metric::kChebyshev,
                        Metric::kMinkowski, Metric::kCosine, Metric::kCorrelation, Metric::kCanberra,
                        Metric::kBraycurtis, Metric::kHamming, Metric::kJaccard, Metric::kDice,
                        Metric::kRogersTanimoto, Metric::kRussellRao, Metric::kSokalSneath, Metric::kYule,
                        Metric::kKulczynski1}) {
    auto const x = data_for(metric, s.m, s.d, DType::kFloat64, 9);
    auto const y = data_for(metric, s.n, s.d, DType::kFloat64, 10);
    MetricParams p = params_for(metric, s.d, 11);
    p.w = w;
    auto const want = reference::cdist(x.values, y.values, metric, p);
    EXPECT_TRUE(matches(run_cdist(x, y, metric, p), want, tolerance_for(metric, DType::kFloat64, s.d)))
        << metric_name(metric);
  }
}

TEST(Pairwise, MinkowskiAnyP) {
  CUDIST_REQUIRE_BACKEND();
  auto const x = test::random_reals(45, 23, DType::kFloat32, -2, 2, 3);
  auto const y = test::random_reals(38, 23, DType::kFloat32, -2, 2, 4);
  for (double p : {0.5, 1.0, 1.5, 2.0, 3.0, 7.0, std::numeric_limits<double>::infinity()}) {
    MetricParams prm;
    prm.p = p;
    auto const want = reference::cdist(x.values, y.values, Metric::kMinkowski, prm);
    EXPECT_TRUE(matches(run_cdist(x, y, Metric::kMinkowski, prm), want, {1e-4, 1e-5})) << "p=" << p;
  }
}

TEST(Pairwise, DefaultVAndVIAreEstimatedFromBothInputs) {
  CUDIST_REQUIRE_BACKEND();
  auto const x = test::random_reals(40, 6, DType::kFloat64, -1, 1, 21);
  auto const y = test::random_reals(30, 6, DType::kFloat64, -3, 3, 22);
  // Independent estimate: column variance (ddof=1) of vstack(x, y); VI from an explicit inverse
  // is compared through the distances themselves, which do not depend on how VI is factored.
  std::vector<double> all = x.values.v;
  all.insert(all.end(), y.values.v.begin(), y.values.v.end());
  std::int64_t const r = 70, d = 6;
  MetricParams pv;
  for (std::int64_t k = 0; k < d; ++k) {
    double mean = 0, ss = 0;
    for (std::int64_t i = 0; i < r; ++i) mean += all[i * d + k] / r;
    for (std::int64_t i = 0; i < r; ++i) ss += (all[i * d + k] - mean) * (all[i * d + k] - mean);
    pv.V.push_back(ss / (r - 1));
  }
  EXPECT_TRUE(matches(run_cdist(x, y, Metric::kSEuclidean),
                      reference::cdist(x.values, y.values, Metric::kSEuclidean, pv), {1e-10, 1e-12}));
  // With VI = I * c the mahalanobis distance is sqrt(c) times the euclidean one.
  MetricParams pi;
  pi.VI.assign(d * d, 0.0);
  for (std::int64_t k = 0; k < d; ++k) pi.VI[k * d + k] = 4.0;
  auto const eu = reference::cdist(x.values, y.values, Metric::kEuclidean);
  auto twice = eu;
  for (auto& v : twice.v) v *= 2;
  EXPECT_TRUE(matches(run_cdist(x, y, Metric::kMahalanobis, pi), twice, {1e-10, 1e-12}));
}

TEST(Pairwise, PdistEstimatesVFromXAlone) {
  CUDIST_REQUIRE_BACKEND();
  // scipy's pdist estimates V from X; cdist(X, X) from vstack(X, X), which differs by ddof.
  auto const x = test::random_reals(30, 4, DType::kFloat64, -2, 2, 27);
  MetricParams pv;
  for (std::int64_t k = 0; k < 4; ++k) {
    double mean = 0, ss = 0;
    for (std::int64_t i = 0; i < 30; ++i) mean += x.values(i, k) / 30;
    for (std::int64_t i = 0; i < 30; ++i) ss += (x.values(i, k) - mean) * (x.values(i, k) - mean);
    pv.V.push_back(ss / 29);
  }
  EXPECT_TRUE(matches(run_pdist(x, Metric::kSEuclidean),
                      reference::pdist(x.values, Metric::kSEuclidean, pv), {1e-10, 1e-12}));
}

TEST(Pairwise, HalfAndBFloat16InputsAccumulateInFloat32) {
  CUDIST_REQUIRE_BACKEND();
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    for (Metric metric : {Metric::kEuclidean, Metric::kCityblock, Metric::kCosine, Metric::kChebyshev}) {
      auto const x = test::random_reals(57, 40, dtype, -4, 4, 31);
      auto const y = test::random_reals(61, 40, dtype, -4, 4, 32);
      auto const got = run_cdist(x, y, metric);
      EXPECT_EQ(got.dtype(), DType::kFloat32);
      EXPECT_TRUE(matches(got, reference::cdist(x.values, y.values, metric), {1e-4, 1e-5}))
          << metric_name(metric) << " " << dtype_name(dtype);
    }
  }
}

TEST(Pairwise, HammingBitsCountsDifferingBits) {
  CUDIST_REQUIRE_BACKEND();
  for (std::int64_t bytes : {32, 31, 1, 64, 5}) {  // 32 and 64: whole 32-bit words
    auto const x = test::random_integers(77, bytes, DType::kUInt8, 0, 255, 41 + bytes);
    auto const y = test::random_integers(90, bytes, DType::kUInt8, 0, 255, 42 + bytes);
    EXPECT_TRUE(matches(run_cdist(x, y, Metric::kHammingBits),
                        reference::cdist(x.values, y.values, Metric::kHammingBits)))
        << bytes << " bytes";
  }
}

TEST(Pairwise, PdistMatchesTheCondensedReference) {
  CUDIST_REQUIRE_BACKEND();
  for (Metric metric : {Metric::kEuclidean, Metric::kCityblock, Metric::kCosine, Metric::kHamming,
                        Metric::kSqEuclidean}) {
    for (std::int64_t n : {1, 2, 3, 31, 130, 257}) {
      auto const x = data_for(metric, n, 7, DType::kFloat32, 50 + n);
      auto const got = run_pdist(x, metric);
      EXPECT_TRUE(matches(got, reference::pdist(x.values, metric), tolerance_for(metric, DType::kFloat32, 7)))
          << metric_name(metric) << " n=" << n;
    }
  }
  auto const xi = test::random_integers(300, 9, DType::kUInt8, 0, 255, 61);
  EXPECT_TRUE(matches(run_pdist(xi, Metric::kSqEuclidean), reference::pdist(xi.values, Metric::kSqEuclidean)));
}

TEST(Pairwise, SelfDistancesHaveAnExactZeroDiagonal) {
  CUDIST_REQUIRE_BACKEND();
  // Rows offset by 100: the expanded ||x||^2 + ||y||^2 - 2xy form would lose the small distances.
  auto x = test::random_reals(150, 16, DType::kFloat32, 100.0, 100.01, 71);
  Array const xb = test::to_backend(x.array);
  for (Metric metric : {Metric::kEuclidean, Metric::kSqEuclidean, Metric::kCosine, Metric::kCorrelation,
                        Metric::kCityblock, Metric::kJensenShannon, Metric::kBraycurtis}) {
    Array const got = test::to_host(cdist(test::backend_resources(), xb, xb, metric));
    for (std::int64_t i = 0; i < 150; ++i) ASSERT_EQ(got.data_as<float>()[i * 150 + i], 0.0f) << metric_name(metric);
    if (metric == Metric::kEuclidean) {
      EXPECT_TRUE(matches(got, reference::cdist(x.values, x.values, metric), {1e-4, 1e-7}));
    }
  }
}

TEST(Pairwise, StridedInputsAndOutputs) {
  CUDIST_REQUIRE_BACKEND();
  // x and y are column windows of wider matrices; out is a window of a wider output.
  auto const wide_x = test::random_integers(29, 20, DType::kFloat32, -8, 8, 81);
  auto const wide_y = test::random_integers(35, 20, DType::kFloat32, -8, 8, 82);
  Array const xb = test::to_backend(wide_x.array), yb = test::to_backend(wide_y.array);
  ConstMatrixView const xv(static_cast<float const*>(xb.data()) + 3, 29, 13, 20, DType::kFloat32);
  ConstMatrixView const yv(static_cast<float const*>(yb.data()) + 3, 35, 13, 20, DType::kFloat32);
  Array out = Array::allocate(29, 40, DType::kFloat32, test::backend_device());
  MatrixView const ov(out.data(), 29, 35, 40, DType::kFloat32);
  cdist(test::backend_resources(), xv, yv, ov, Metric::kSqEuclidean);
  Array const host = test::to_host(ov);
  reference::Matrix xr{29, 13, {}}, yr{35, 13, {}};
  for (int i = 0; i < 29; ++i)
    for (int k = 0; k < 13; ++k) xr.v.push_back(wide_x.values(i, 3 + k));
  for (int i = 0; i < 35; ++i)
    for (int k = 0; k < 13; ++k) yr.v.push_back(wide_y.values(i, 3 + k));
  EXPECT_TRUE(matches(host, reference::cdist(xr, yr, Metric::kSqEuclidean)));
}

TEST(Pairwise, HostInputsAndOutputWithAnyDevice) {
  CUDIST_REQUIRE_BACKEND();
  auto const x = test::random_integers(20, 9, DType::kFloat32, -8, 8, 91);
  auto const y = test::random_integers(25, 9, DType::kFloat32, -8, 8, 92);
  Array out = Array::allocate(20, 25, DType::kFloat32, Device::cpu());
  cdist(test::backend_resources(), x.array, y.array, out.view(), Metric::kCityblock);
  EXPECT_TRUE(matches(out, reference::cdist(x.values, y.values, Metric::kCityblock)));
}

TEST(Pairwise, NanAndInfFollowScipy) {
  CUDIST_REQUIRE_BACKEND();
  double const nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  auto x = test::random_integers(3, 4, DType::kFloat32, -3, 3, 101);
  auto y = test::random_integers(3, 4, DType::kFloat32, -3, 3, 102);
  x.values.v[1 * 4 + 2] = test::store(x.array, 1 * 4 + 2, nan);
  y.values.v[2 * 4 + 0] = test::store(y.array, 2 * 4 + 0, inf);
  for (Metric metric : {Metric::kEuclidean, Metric::kCityblock, Metric::kChebyshev, Metric::kCosine,
                        Metric::kCanberra, Metric::kBraycurtis, Metric::kHamming, Metric::kSqEuclidean}) {
    EXPECT_TRUE(matches(run_cdist(x, y, metric), reference::cdist(x.values, y.values, metric), {1e-5, 1e-6}))
        << metric_name(metric);
  }
}

TEST(Pairwise, EmptyInputsGiveEmptyOutputs) {
  CUDIST_REQUIRE_BACKEND();
  auto const x = test::random_reals(0, 5, DType::kFloat32, 0, 1, 1);
  auto const y = test::random_reals(7, 5, DType::kFloat32, 0, 1, 2);
  EXPECT_EQ(run_cdist(x, y, Metric::kEuclidean).size(), 0);
  EXPECT_EQ(run_cdist(y, x, Metric::kEuclidean).rows(), 7);
  EXPECT_EQ(run_cdist(y, x, Metric::kEuclidean).cols(), 0);
  EXPECT_EQ(run_pdist(test::random_reals(1, 5, DType::kFloat32, 0, 1, 3), Metric::kEuclidean).size(), 0);
}

TEST(Pairwise, SixtyFourBitOutputIndexing) {
  CUDIST_REQUIRE_BACKEND();
  if (!test::backend_device().is_cuda()) GTEST_SKIP() << "2.3e9-entry output: GPU only";
  // 48000^2 = 2.3e9 entries > 2^31: any 32-bit index arithmetic would wrap. Check the far corner.
  std::int64_t const n = 48000;
  auto const x = test::random_integers(n, 2, DType::kFloat32, -8, 8, 111);
  Array const xb = test::to_backend(x.array);
  Array const out = cdist(test::backend_resources(), xb, xb, Metric::kSqEuclidean);
  std::vector<float> corner(64);
  copy(ConstMatrixView(static_cast<float const*>(out.data()) + (n - 1) * n + (n - 64), 1, 64, 64,
                       DType::kFloat32, Memory::kDevice),
       view(corner.data(), 1, 64));
  for (int c = 0; c < 64; ++c) {
    double const want = reference::distance(Metric::kSqEuclidean, x.values.row(n - 1), x.values.row(n - 64 + c), 2, {});
    ASSERT_EQ(corner[c], want) << "column " << n - 64 + c;
  }
}

}  // namespace
}  // namespace cudist
