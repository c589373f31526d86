// cdist split over several shards (the rows of x; distance/detail/split_pairwise.hpp) writes
// exactly the unsplit call's matrix, bit for bit, into host and backend outputs with any row
// stride, including shards left without rows. The shards are copies of the backend under test,
// so one GPU or the CPU exercises the split path; a device set with cuda:all gives the same.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/compare.hpp"
#include "common/data.hpp"
#include "common/progress_count.hpp"
#include "cudist/distance/pairwise.hpp"
#include "distance/detail/split_pairwise.hpp"

namespace cudist {
namespace {

TEST(SplitCdist, EqualsTheUnsplitCall) {
  CUDIST_REQUIRE_BACKEND();
  std::uint64_t seed = 3;
  for (Metric metric : {Metric::kEuclidean, Metric::kCosine, Metric::kCityblock, Metric::kInnerProduct}) {
    for (std::int64_t m : {1, 5, 37}) {
      test::TestMatrix x = test::random_reals(m, 7, DType::kFloat32, -1, 1, ++seed);
      test::TestMatrix const y = test::random_reals(29, 7, DType::kFloat32, -1, 1, ++seed);
      test::store(x.array, 0, std::numeric_limits<double>::quiet_NaN());
      Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
      Array const want = test::to_host(cdist(test::backend_resources(), xb, yb, metric));
      for (std::size_t shards : {2u, 3u, 8u}) {  // 8 > m for two of the shapes: empty shards
        std::vector<Resources> const set(shards, test::backend_resources());
        std::string const label = std::string(metric_name(metric)) + " m=" + std::to_string(m) +
                                  " shards=" + std::to_string(shards);
        // Backend memory, dense.
        Array out = Array::allocate(m, 29, DType::kFloat32, test::backend_device());
        detail::split_cdist("cdist", set, xb, yb, out.view(), metric, {});
        EXPECT_TRUE(test::identical(out, want)) << label;
        // Host memory with a row stride wider than a row.
        Array wide = Array::allocate(m, 40, DType::kFloat32, Device::cpu());
        MatrixView const strided{wide.data(), m, 29, 40, DType::kFloat32, Memory::kHost};
        detail::split_cdist("cdist", set, x.array, y.array, strided, metric, {});
        EXPECT_TRUE(test::identical(strided, want)) << label << " (strided host output)";
      }
    }
  }
}

TEST(SplitCdist, SelfJoinKeepsTheExactZeroDiagonal) {
  CUDIST_REQUIRE_BACKEND();
  // cosine and correlation of a row against a copy of itself need not be 0; cdist(x, x) writes 0.
  std::uint64_t seed = 30;
  for (Metric metric : {Metric::kCosine, Metric::kCorrelation, Metric::kEuclidean, Metric::kInnerProduct}) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      test::TestMatrix x = test::random_reals(45, 11, dtype, -1, 1, ++seed);
      test::store(x.array, 2 * 11, std::numeric_limits<double>::quiet_NaN());  // a NaN diagonal stays NaN
      Array const xb = test::to_backend(x.array);
      Array const want = test::to_host(cdist(test::backend_resources(), xb, xb, metric));
      for (std::size_t shards : {2u, 7u, 50u}) {
        std::vector<Resources> const set(shards, test::backend_resources());
        Array out = Array::allocate(45, 45, want.dtype(), test::backend_device());
        detail::split_cdist("cdist", set, xb, xb, out.view(), metric, {});
        EXPECT_TRUE(test::identical(out, want))
            << metric_name(metric) << " " << dtype_name(dtype) << " shards=" << shards;
      }
    }
  }
}

TEST(SplitPdist, EqualsTheUnsplitCall) {
  CUDIST_REQUIRE_BACKEND();
  std::uint64_t seed = 50;
  for (Metric metric : {Metric::kEuclidean, Metric::kCosine, Metric::kChebyshev}) {
    for (std::int64_t n : {2, 3, 40}) {
      test::TestMatrix x = test::random_reals(n, 6, DType::kFloat32, -1, 1, ++seed);
      test::store(x.array, 6 * (n - 1), std::numeric_limits<double>::quiet_NaN());
      Array const xb = test::to_backend(x.array);
      Array const want = test::to_host(pdist(test::backend_resources(), xb, metric));
      for (std::size_t shards : {2u, 3u, 50u}) {  // 50 > rows: parts without pairs
        std::vector<Resources> const set(shards, test::backend_resources());
        std::string const label = std::string(metric_name(metric)) + " n=" + std::to_string(n) +
                                  " shards=" + std::to_string(shards);
        Array out = Array::allocate(1, n * (n - 1) / 2, DType::kFloat32, test::backend_device());
        detail::split_pdist("pdist", set, xb, out.view(), metric, {});
        EXPECT_TRUE(test::identical(out, want)) << label;
        Array host_out = Array::allocate(1, n * (n - 1) / 2, DType::kFloat32, Device::cpu());
        detail::split_pdist("pdist", set, x.array, host_out.view(), metric, {});
        EXPECT_TRUE(test::identical(host_out, want)) << label << " (host output)";
      }
    }
  }
}

// A condensed output in host memory larger than each shard's budget: every shard writes its rows'
// pairs straight into their stretch, window by window, and the result is still the unsplit
// pdist's, bit for bit.
TEST(SplitPdist, HostOutputsBeyondTheShardsBudgetGoInWindows) {
  CUDIST_REQUIRE_BACKEND();
  test::TestMatrix x = test::random_reals(300, 5, DType::kFloat32, -1, 1, 81);  // 44850 pairs, 179 KB
  test::store(x.array, 5 * 7, std::numeric_limits<double>::quiet_NaN());
  Array const want = test::to_host(pdist(test::backend_resources(), test::to_backend(x.array), Metric::kEuclidean));
  for (std::size_t shards : {1u, 3u}) {
    std::vector<Resources> set(shards, test::backend_resources());
    for (Resources& shard : set) shard.memory_budget = 16 << 10;
    test::ProgressCount const windows;  // out-of-core runs report one per window
    Array out = Array::allocate(1, 300 * 299 / 2, DType::kFloat32, Device::cpu());
    detail::split_pdist("pdist", set, x.array, out.view(), Metric::kEuclidean, {});
    EXPECT_TRUE(test::identical(out, want)) << shards << " shards";
    EXPECT_GT(windows.seen(), 10) << shards << " shards: windows of at most 8 KB";
  }
}

TEST(SplitCdist, PublicDeviceSetGivesTheSingleDeviceAnswer) {
  CUDIST_REQUIRE_BACKEND();
  Resources const one = test::backend_resources();
  Resources const all = test::all_backend_devices();
  test::TestMatrix const x = test::random_reals(41, 9, DType::kFloat32, -1, 1, 71);
  test::TestMatrix const y = test::random_reals(23, 9, DType::kFloat32, -1, 1, 72);
  Array const want = test::to_host(cdist(one, x.array, y.array, Metric::kEuclidean));
  EXPECT_TRUE(test::identical(cdist(all, x.array, y.array, Metric::kEuclidean), want));
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  EXPECT_TRUE(test::identical(cdist(all, xb, yb, Metric::kEuclidean), want)) << "device inputs";
  Array const p_want = test::to_host(pdist(one, xb, Metric::kCosine));
  EXPECT_TRUE(test::identical(pdist(all, xb, Metric::kCosine), p_want)) << "pdist";
}

}  // namespace
}  // namespace cudist
