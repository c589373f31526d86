// Precision::kTf32 (cudist/distance/pairwise.hpp, docs/accuracy.md): on the GPU, sqeuclidean,
// euclidean, inner product and cosine through a TF32 GEMM are within the stated bound of the exact
// path entry by entry, the entries whose bound could exceed a 16th of their value (identical rows,
// rows offset far from the origin, non-finite values) are the exact path's bit for bit, and the
// TF32 path is taken (some entries differ from the exact ones); in output windows and for pdist
// too. Other metrics, float64 and the CPU backend stay exact under it. Built per backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "common/backend.hpp"
#include "common/data.hpp"
#include "common/expect_error.hpp"
#include "common/padded_output.hpp"
#include "cudist/distance/pairwise.hpp"
#include "distance/detail/tf32_bound.hpp"
#if CUDIST_WITH_CUDA
#include "core/cuda/cublas_library.hpp"
#endif

namespace cudist {
namespace {

MetricParams tf32() {
  MetricParams p;
  p.precision = Precision::kTf32;
  return p;
}

/// Whether this backend runs the TF32 path: the CUDA one, with cuBLAS found.
bool tf32_runs() {
#if CUDIST_WITH_CUDA
  return test::backend_device().is_cuda() && cudist::detail::cuda::cublas_available();
#else
  return false;
#endif
}

double squared_norm(float const* row, std::int64_t d) {
  double s = 0;
  for (std::int64_t k = 0; k < d; ++k) s += double(row[k]) * row[k];
  return s;
}

/// Rows of the test: uniform reals, with a NaN row, an infinite value, an x row copied into y
/// (identical rows) and, from `offset_from` on, rows moved by 1e3 from the origin.
test::TestMatrix rows_of(std::int64_t rows, std::int64_t d, std::uint64_t seed, std::int64_t offset_from) {
  test::TestMatrix t = test::random_reals(rows, d, DType::kFloat32, -1, 1, seed);
  auto* v = static_cast<float*>(t.array.data());
  for (std::int64_t i = offset_from; i < rows; ++i)
    for (std::int64_t k = 0; k < d; ++k) v[i * d + k] += 1e3f;
  if (rows > 5) v[5 * d] = std::numeric_limits<float>::quiet_NaN();
  if (rows > 7) v[7 * d + 1] = std::numeric_limits<float>::infinity();
  return t;
}

struct Compared {
  std::int64_t differing = 0;  // entries not equal to the exact path's
};

/// Every entry of `got` against `exact`: equal, or (on the TF32 path) within the bound of its
/// metric (E on sum |x_k y_k|, plus the exact path's own float32 error, gamma), and kept from the
/// GEMM only where the bound is at most a 16th of the value.
Compared compare(Array const& got, Array const& exact, Array const& x, Array const& y, Metric metric) {
  std::int64_t const m = x.rows(), n = y.rows(), d = x.cols();
  double const gamma = static_cast<double>(d + 2) * std::ldexp(1.0, -24);  // the exact path's own error
  double const flushed = detail::tf32_flushed_products(d);
  auto const* g = got.data_as<float>();
  auto const* want = exact.data_as<float>();
  Compared c;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double const a = g[i * n + j], b = want[i * n + j];
      if (a == b || (std::isnan(a) && std::isnan(b))) continue;
      ++c.differing;
      double const sx = squared_norm(x.data_as<float>() + i * d, d), sy = squared_norm(y.data_as<float>() + j * d, d);
      std::string const at = std::string(metric_name(metric)) + " (" + std::to_string(i) + ", " + std::to_string(j) +
                             "): " + std::to_string(a) + " against exact " + std::to_string(b);
      // Within the bound plus the exact path's own error, and kept from the GEMM only where the
      // bound (the part the keep rule is about) is at most a 16th of the value.
      switch (metric) {
        case Metric::kSqEuclidean: {
          double const e = detail::tf32_squares_error(d);
          EXPECT_LE(std::fabs(a - b), ((e + gamma) * (sx + sy) + 2 * flushed) * (1 + 1e-6)) << at;
          EXPECT_GE(b, 15 * e * (sx + sy) * (1 - 1e-3)) << at << ": kept where the bound exceeds a 16th";
          break;
        }
        case Metric::kEuclidean: {
          double const e = detail::tf32_squares_error(d);
          EXPECT_LE(std::fabs(a - b), ((e + gamma) * (sx + sy) + 2 * flushed) / (a + b) * (1 + 1e-6)) << at;
          EXPECT_GE(b * b, 15 * e * (sx + sy) * (1 - 1e-3)) << at << ": kept where the bound exceeds a 16th";
          break;
        }
        case Metric::kInnerProduct:
          EXPECT_LE(std::fabs(a - b), ((detail::tf32_dot_error(d) + 0x1p-21 + gamma) * std::sqrt(sx * sy) + flushed) *
                                          (1 + 1e-6))
              << at;
          break;
        default: {  // cosine
          double const e = detail::tf32_cosine_error(d);
          EXPECT_LE(std::fabs(a - b), (e + flushed + gamma) * (1 + 1e-6)) << at;
          EXPECT_GE(b, 15 * e * (1 - 1e-3)) << at << ": kept where the bound exceeds a 16th";
          break;
        }
      }
    }
  }
  return c;
}

TEST(Tf32, NamesAndErrors) {
  EXPECT_EQ(precision_from_name("exact"), Precision::kExact);
  EXPECT_EQ(precision_from_name("tf32"), Precision::kTf32);
  EXPECT_EQ(precision_name(Precision::kTf32), "tf32");
  test::expect_error<InvalidArgument>([] { precision_from_name("fp8"); }, "valid values: exact, tf32");
}

TEST(Tf32, WithinTheBoundAndExactWhereItCouldNotHold) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  // d = 37: the augmented rows' tail and padding (their width rounds d + 4 up to 4) misaligned.
  for (std::int64_t const d : {100, 37}) {
    std::int64_t const m = 70, n = 230;
    test::TestMatrix x = rows_of(m, d, 1, m - 10), y = rows_of(n, d, 2, n - 20);
    auto* yv = static_cast<float*>(y.array.data());
    auto const* xv = static_cast<float const*>(x.array.data());
    for (std::int64_t k = 0; k < d; ++k) yv[3 * d + k] = xv[2 * d + k];  // x row 2 = y row 3
    Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
    for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean, Metric::kInnerProduct, Metric::kCosine}) {
      SCOPED_TRACE(std::string(metric_name(metric)) + ", d = " + std::to_string(d));
      Array const exact = test::to_host(cdist(res, xb, yb, metric).view());
      Array const got = test::to_host(cdist(res, xb, yb, metric, tf32()).view());
      Compared const c = compare(got, exact, x.array, y.array, metric);
      if (tf32_runs()) {
        EXPECT_GT(c.differing, 0) << "the TF32 path was not taken";
      } else {
        EXPECT_EQ(c.differing, 0) << "the CPU backend is exact under tf32";
      }
      if (metric != Metric::kInnerProduct) {  // identical rows: the exact value (0 for the distances)
        EXPECT_EQ(got.data_as<float>()[2 * n + 3], exact.data_as<float>()[2 * n + 3]);
      }
    }
  }
}

TEST(Tf32, SelfDistancesPdistAndWindows) {
  CUDIST_REQUIRE_BACKEND();
  Resources res = test::backend_resources();
  std::int64_t const m = 300, d = 64;
  test::TestMatrix x = rows_of(m, d, 3, m - 30);
  Array const xb = test::to_backend(x.array);
  for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean, Metric::kCosine}) {
    Array const exact = test::to_host(cdist(res, xb, xb, metric).view());
    Array const got = test::to_host(cdist(res, xb, xb, metric, tf32()).view());
    compare(got, exact, x.array, x.array, metric);
    for (std::int64_t i = 0; i < m; ++i) {
      if (i == 5 || i == 7) continue;  // NaN and inf rows: NaN on their diagonal too
      EXPECT_EQ(got.data_as<float>()[i * m + i], 0.0f) << metric_name(metric) << " diagonal " << i;
    }
    // pdist: the same entries as cdist's upper triangle, within the bound of the exact ones.
    Array const condensed = test::to_host(pdist(res, xb, metric, tf32()).view());
    Array const exact_condensed = test::to_host(pdist(res, xb, metric).view());
    Array full = Array::allocate(m, m, DType::kFloat32, Device::cpu());
    Array full_exact = Array::allocate(m, m, DType::kFloat32, Device::cpu());
    for (std::int64_t i = 0, e = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < m; ++j) {
        bool const upper = j > i;
        full.data_as<float>()[i * m + j] = upper ? condensed.data_as<float>()[e] : 0.0f;
        full_exact.data_as<float>()[i * m + j] = upper ? exact_condensed.data_as<float>()[e] : 0.0f;
        e += upper ? 1 : 0;
      }
    }
    compare(full, full_exact, x.array, x.array, metric);
  }
  // Output windows (a host output beyond a small budget): within the bound, window by window.
  res.memory_budget = 64 * 1024;
  Array windowed = Array::allocate(m, m, DType::kFloat32, Device::cpu());
  cdist(res, xb, xb, windowed.view(), Metric::kSqEuclidean, tf32());
  Array const exact = test::to_host(cdist(test::backend_resources(), xb, xb, Metric::kSqEuclidean).view());
  compare(windowed, exact, x.array, x.array, Metric::kSqEuclidean);
}

TEST(Tf32, IntoAnOutputViewWithAStride) {
  // The entries land in the view's rows, within the bound, and its stride padding stays as it was
  // (a column count that is a multiple of four and one that is not: 16-byte and 4-byte passes).
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  for (std::int64_t const n : {232, 230}) {
    std::int64_t const m = 40, d = 24, stride = n + 5;
    test::TestMatrix x = rows_of(m, d, 4, m), y = rows_of(n, d, 5, n);
    Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
    for (Metric metric : {Metric::kSqEuclidean, Metric::kCosine}) {
      SCOPED_TRACE(std::string(metric_name(metric)) + ", n = " + std::to_string(n));
      test::PaddedOutput out(m, n, stride);
      cdist(res, xb, yb, out.view(), metric, tf32());
      Array got;
      ASSERT_TRUE(out.read(got));
      compare(got, test::to_host(cdist(res, xb, yb, metric).view()), x.array, y.array, metric);
    }
  }
}

TEST(Tf32, OtherMetricsAndFloat64StayExact) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  test::TestMatrix const x = test::random_reals(40, 33, DType::kFloat32, -1, 1, 4);
  test::TestMatrix const y = test::random_reals(50, 33, DType::kFloat32, -1, 1, 5);
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  for (Metric metric : {Metric::kCityblock, Metric::kChebyshev, Metric::kCorrelation, Metric::kCanberra}) {
    Array const exact = test::to_host(cdist(res, xb, yb, metric).view());
    Array const got = test::to_host(cdist(res, xb, yb, metric, tf32()).view());
    Compared const c = compare(got, exact, x.array, y.array, metric);
    EXPECT_EQ(c.differing, 0) << metric_name(metric);
  }
  test::TestMatrix const x64 = test::random_reals(40, 33, DType::kFloat64, -1, 1, 6);
  Array const x64b = test::to_backend(x64.array);
  Array const exact = test::to_host(cdist(res, x64b, x64b, Metric::kSqEuclidean).view());
  Array const got = test::to_host(cdist(res, x64b, x64b, Metric::kSqEuclidean, tf32()).view());
  for (std::int64_t e = 0; e < exact.size(); ++e) ASSERT_EQ(got.data_as<double>()[e], exact.data_as<double>()[e]);
}

}  // namespace
}  // namespace cudist
