// cdist / pdist whose output in host memory exceeds the memory budget: computed in windows of
// rows (out of core), with exactly the in-memory call's answer, progress after each window, and
// an interrupt between windows. A small Resources::memory_budget forces the windows on small
// problems; on the CPU backend the windows are written straight into the output.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/compare.hpp"
#include "common/data.hpp"
#include "common/expect_error.hpp"
#include "cudist/core/error.hpp"
#include "cudist/core/interrupt.hpp"
#include "cudist/core/progress.hpp"
#include "cudist/distance/pairwise.hpp"
#include "reference/pairwise_ref.hpp"

#if defined(CUDIST_WITH_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace cudist {
namespace {

/// Resources with a budget of `rows` rows of `row_bytes`: windows of rows / 2 rows each (two are
/// in flight on a GPU).
Resources budget_of_rows(std::int64_t rows, std::int64_t row_bytes) {
  Resources res = test::backend_resources();
  res.memory_budget = static_cast<std::uint64_t>(rows * row_bytes);
  return res;
}

/// Bitwise equality, so that NaN entries compare equal to NaN entries in the same places.
::testing::AssertionResult same_bits(Array const& got, Array const& want) {
  if (got.rows() != want.rows() || got.cols() != want.cols() || got.dtype() != want.dtype()) {
    return ::testing::AssertionFailure() << "shape or dtype differ";
  }
  if (std::memcmp(got.data(), want.data(), got.bytes()) != 0) {
    for (std::int64_t i = 0; i < got.size(); ++i) {
      double const a = test::value_at(got, i), b = test::value_at(want, i);
      if (!(a == b || (std::isnan(a) && std::isnan(b)))) {
        return ::testing::AssertionFailure() << "entry " << i << ": " << a << " streamed, " << b << " in memory";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

Array cdist_into_host(Resources const& res, Array const& x, Array const& y, Metric metric,
                      MetricParams const& p = {}) {
  Array out = Array::allocate(x.rows(), y.rows(), distance_output_dtype(x.dtype()), Device::cpu());
  cdist(res, test::to_backend(x), test::to_backend(y), out.view(), metric, p);
  return out;
}

Array pdist_into_host(Resources const& res, Array const& x, Metric metric) {
  Array out = Array::allocate(1, x.rows() * (x.rows() - 1) / 2, distance_output_dtype(x.dtype()), Device::cpu());
  pdist(res, test::to_backend(x), out.view(), metric);
  return out;
}

/// Some NaN and infinite inputs, so that the windows must carry them to the right places.
Array with_nonfinite(Array a) {
  auto* v = a.data_as<float>();
  v[3] = std::numeric_limits<float>::quiet_NaN();
  v[a.cols() * 7 + 1] = std::numeric_limits<float>::infinity();
  return a;
}

struct StreamedCase {
  Metric metric;
  std::int64_t m, n, d, budget_rows;
};

TEST(OutOfCore, CdistInWindowsEqualsTheInMemoryCall) {
  CUDIST_REQUIRE_BACKEND();
  // Ragged shapes; metrics that read per-row data in the epilogue (cosine, correlation: norms
  // indexed by the row of the whole result) and one whose default V is estimated from all rows.
  StreamedCase const cases[] = {{Metric::kEuclidean, 113, 203, 65, 6},  {Metric::kCosine, 129, 31, 17, 2},
                                {Metric::kCorrelation, 33, 127, 9, 5},   {Metric::kSEuclidean, 67, 45, 3, 4},
                                {Metric::kCityblock, 200, 129, 33, 130}, {Metric::kChebyshev, 31, 2, 1, 2}};
  for (StreamedCase const& c : cases) {
    SCOPED_TRACE(std::string(metric_name(c.metric)) + " m=" + std::to_string(c.m));
    Array x = test::random_reals(c.m, c.d, DType::kFloat32, -2, 2, 11).array;
    if (c.metric != Metric::kSEuclidean) x = with_nonfinite(x);  // (its variances would be NaN)
    Array const y = test::random_reals(c.n, c.d, DType::kFloat32, -2, 2, 12).array;
    Array const whole = cdist_into_host(test::backend_resources(), x, y, c.metric);
    Array const streamed = cdist_into_host(budget_of_rows(c.budget_rows, c.n * 4), x, y, c.metric);
    EXPECT_TRUE(same_bits(streamed, whole));
  }
}

TEST(OutOfCore, CdistInWindowsMatchesTheReferenceExactlyOnIntegers) {
  CUDIST_REQUIRE_BACKEND();
  test::TestMatrix const x = test::random_integers(77, 19, DType::kFloat32, -9, 9, 21);
  test::TestMatrix const y = test::random_integers(54, 19, DType::kFloat32, -9, 9, 22);
  for (Metric metric : {Metric::kSqEuclidean, Metric::kCityblock, Metric::kInnerProduct}) {
    Array const streamed = cdist_into_host(budget_of_rows(4, 54 * 4), x.array, y.array, metric);
    EXPECT_TRUE(test::matches(streamed, reference::cdist(x.values, y.values, metric), {0, 0}))
        << metric_name(metric);
  }
}

TEST(OutOfCore, SelfCdistKeepsAnExactZeroDiagonalAcrossWindows) {
  CUDIST_REQUIRE_BACKEND();
  Array const x = test::random_reals(90, 7, DType::kFloat32, 50, 150, 5).array;
  Array const xb = test::to_backend(x);
  Array out = Array::allocate(90, 90, DType::kFloat32, Device::cpu());
  cdist(budget_of_rows(6, 90 * 4), xb, xb, out.view(), Metric::kEuclidean);
  Array const whole = cdist_into_host(test::backend_resources(), x, x, Metric::kEuclidean);
  EXPECT_TRUE(same_bits(out, whole));
  for (std::int64_t i = 0; i < 90; ++i) EXPECT_EQ(out.data_as<float>()[i * 91], 0.0f) << i;
}

TEST(OutOfCore, FloatSixtyFourAndStridedOutput) {
  CUDIST_REQUIRE_BACKEND();
  Array const x = test::random_reals(41, 5, DType::kFloat64, -1, 1, 7).array;
  Array const y = test::random_reals(23, 5, DType::kFloat64, -1, 1, 8).array;
  Array wide = Array::allocate(41, 30, DType::kFloat64, Device::cpu());
  std::fill(wide.data_as<double>(), wide.data_as<double>() + wide.size(), -7.0);
  MatrixView const out(wide.data(), 41, 23, 30, DType::kFloat64, Memory::kHost);
  cdist(budget_of_rows(3, 23 * 8), test::to_backend(x), test::to_backend(y), out, Metric::kEuclidean);
  Array const whole = cdist_into_host(test::backend_resources(), x, y, Metric::kEuclidean);
  for (std::int64_t i = 0; i < 41; ++i) {
    for (std::int64_t j = 0; j < 30; ++j) {
      double const got = wide.data_as<double>()[i * 30 + j];
      EXPECT_EQ(got, j < 23 ? whole.data_as<double>()[i * 23 + j] : -7.0) << i << "," << j;  // padding untouched
    }
  }
}

#if defined(CUDIST_WITH_CUDA)
TEST(OutOfCore, PageLockedOutputIsWrittenStraightFromTheDevice) {
  CUDIST_REQUIRE_BACKEND();
  if (!test::backend_device().is_cuda()) GTEST_SKIP() << "page-locked memory matters to the GPU only";
  Array const x = test::random_reals(75, 9, DType::kFloat32, -1, 1, 13).array;
  Array const y = test::random_reals(61, 9, DType::kFloat32, -1, 1, 14).array;
  float* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), 75 * 64 * sizeof(float)), cudaSuccess);
  MatrixView const out(pinned, 75, 61, 64, DType::kFloat32, Memory::kHost);  // strided rows
  cdist(budget_of_rows(8, 61 * 4), test::to_backend(x), test::to_backend(y), out, Metric::kEuclidean);
  Array const whole = cdist_into_host(test::backend_resources(), x, y, Metric::kEuclidean);
  for (std::int64_t i = 0; i < 75; ++i) {
    EXPECT_EQ(std::memcmp(pinned + i * 64, whole.data_as<float>() + i * 61, 61 * sizeof(float)), 0) << "row " << i;
  }
  cudaFreeHost(pinned);
}
#endif

TEST(OutOfCore, PdistInWindowsEqualsTheInMemoryCall) {
  CUDIST_REQUIRE_BACKEND();
  for (std::int64_t n : {2, 3, 130, 257}) {
    for (std::int64_t budget_rows : {2, 5, 64}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " budget rows=" + std::to_string(budget_rows));
      Array const x = test::random_reals(n, 12, DType::kFloat32, -1, 1, 9).array;
      Array const whole = pdist_into_host(test::backend_resources(), x, Metric::kCosine);
      EXPECT_TRUE(same_bits(pdist_into_host(budget_of_rows(budget_rows, n * 4), x, Metric::kCosine), whole));
    }
  }
}

std::vector<std::int64_t> progress_seen;
void record_progress(char const* who, std::int64_t done, std::int64_t total) {
  EXPECT_STREQ(who, "cdist");
  progress_seen.push_back(done);
  EXPECT_LE(done, total);
}

/// Restores the hook and clears any interrupt when a test ends, whatever happened in it.
struct HookInstalled {
  explicit HookInstalled(ProgressHook hook) : previous(set_progress_hook(hook)) {}
  ~HookInstalled() {
    set_progress_hook(previous);
    clear_interrupt();
  }
  ProgressHook previous;
};

TEST(OutOfCore, ProgressIsReportedAfterEachWindowInOrder) {
  CUDIST_REQUIRE_BACKEND();
  HookInstalled const installed(record_progress);
  progress_seen.clear();
  Array const x = test::random_reals(50, 4, DType::kFloat32, -1, 1, 1).array;
  cdist_into_host(budget_of_rows(8, 50 * 4), x, x, Metric::kSqEuclidean);  // windows of 4 rows
  std::vector<std::int64_t> expected;
  for (std::int64_t done = 4; done < 50; done += 4) expected.push_back(done);
  expected.push_back(50);
  EXPECT_EQ(progress_seen, expected);
}

void interrupt_after_first_window(char const*, std::int64_t, std::int64_t) { request_interrupt(); }

TEST(OutOfCore, AnInterruptStopsBetweenWindows) {
  CUDIST_REQUIRE_BACKEND();
  HookInstalled const installed(interrupt_after_first_window);
  Array const x = test::random_reals(60, 4, DType::kFloat32, -1, 1, 2).array;
  test::expect_error<Interrupted>([&] { cdist_into_host(budget_of_rows(4, 60 * 4), x, x, Metric::kEuclidean); },
                                  "cdist: interrupted");
}

TEST(OutOfCore, ABudgetBelowTwoRowsIsAClearError) {
  CUDIST_REQUIRE_BACKEND();
  Array const x = test::random_reals(10, 4, DType::kFloat32, -1, 1, 3).array;
  test::expect_error<OutOfMemory>(
      [&] { cdist_into_host(budget_of_rows(1, 10 * 4), x, x, Metric::kEuclidean); }, "two windows of one row");
}

TEST(OutOfCore, AnOutputWithinTheBudgetIsComputedWhole) {
  CUDIST_REQUIRE_BACKEND();
  HookInstalled const installed(record_progress);
  progress_seen.clear();
  Array const x = test::random_reals(20, 4, DType::kFloat32, -1, 1, 4).array;
  cdist_into_host(budget_of_rows(20, 20 * 4), x, x, Metric::kEuclidean);
  EXPECT_TRUE(progress_seen.empty());  // no windows, so no steps to report
}

}  // namespace
}  // namespace cudist
