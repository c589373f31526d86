// cudist::request_interrupt(): a long call stops soon after it with cudist::Interrupted (on the
// GPU from inside a kernel that would run for seconds), a call started while it is pending stops
// at its first poll, and clear_interrupt() lets calls run again with the same answers.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "common/compare.hpp"
#include "neighbors/neighbors_test_util.hpp"
#include "cudist/core/interrupt.hpp"
#include "trust/workloads.hpp"

namespace cudist::test {
namespace {

/// Clears any request when a test ends, whatever happened in it.
struct ClearedInterrupt {
  ~ClearedInterrupt() { clear_interrupt(); }
};

/// Seconds from a request made 200 ms into `call` to the Interrupted it must throw.
double seconds_to_stop(std::function<void()> const& call) {
  std::chrono::steady_clock::time_point requested;
  std::thread requester([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    requested = std::chrono::steady_clock::now();
    request_interrupt();
  });
  EXPECT_THROW(call(), Interrupted);
  auto const stopped = std::chrono::steady_clock::now();
  requester.join();
  return std::chrono::duration<double>(stopped - requested).count();
}

/// The first `n` rows of v.
template <class View>
View top_rows(View v, std::int64_t n) {
  v.rows = n;
  return v;
}

/// (rows, cols) on the device: a seeded random block (float32 in [-1, 1], or uint8) repeated down
/// the rows (big inputs without generating every value on the host).
Array repeated_on_device(std::int64_t rows, std::int64_t cols, std::uint64_t seed, DType dtype = DType::kFloat32) {
  std::int64_t const block = std::min<std::int64_t>(rows, 1 << 14);
  Array const host = dtype == DType::kUInt8 ? random_integers(block, cols, dtype, 0, 255, seed).array
                                            : random_reals(block, cols, DType::kFloat32, -1, 1, seed).array;
  Array a = Array::allocate(rows, cols, host.dtype(), backend_device());
  for (std::int64_t r0 = 0; r0 < rows; r0 += block) {
    MatrixView to = top_rows(a.view(), std::min(block, rows - r0));
    to.data = static_cast<unsigned char*>(a.data()) + r0 * cols * size_of(a.dtype());
    copy(top_rows(host.view(), to.rows), to);
  }
  return a;
}

TEST(Interrupt, ARequestFromAnotherThreadStopsALongCpuCall) {
  CUDIST_REQUIRE_BACKEND();
  if (backend_device().is_cuda()) GTEST_SKIP() << "the GPU's kernels: the HugeGpuKernel tests";
  ClearedInterrupt const cleared;
  // A self-join of 8000 x 256 rows: seconds on two cores, so only the request ends it this soon.
  Array const x = random_reals(8000, 256, DType::kFloat32, -1, 1, 31).array;
  EXPECT_LT(seconds_to_stop([&] { knn(backend_resources(), x, x, 5, Metric::kEuclidean); }), 1.0);
}

/// Stops `call` (a knn over x's rows into host memory, which waits for it) within a second, and
/// checks that the library then gives `small`'s answer again after clear_interrupt().
void expect_stopped_and_working(std::function<void()> const& call, std::function<KnnResult()> const& small) {
  KnnResult const before = small();
  EXPECT_LT(seconds_to_stop(call), 1.0);
  clear_interrupt();
  EXPECT_TRUE(identical(small(), before));
}

// One launch of the fused SIMT top-k kernel that would run for seconds on an H100 (32768
// queries x 4 M database rows x 64 of cityblock: ~8.6e12 operations; each block sweeps its whole
// chunk of the database): its blocks poll the interrupt word between column tiles.
TEST(Interrupt, ARequestStopsAHugeGpuKernelOfKnnWithinASecond) {
  CUDIST_REQUIRE_BACKEND();
  if (!backend_device().is_cuda()) GTEST_SKIP() << "a GPU kernel";
  ClearedInterrupt const cleared;
  Array const x = repeated_on_device(32768, 64, 41), y = repeated_on_device(4 << 20, 64, 42);
  std::vector<float> d(32768);
  std::vector<std::int64_t> i(32768);
  expect_stopped_and_working(
      [&] { knn(backend_resources(), x, y, 1, Metric::kCityblock, view(d.data(), 32768, 1), view(i.data(), 32768, 1)); },
      [&] { return knn(backend_resources(), top_rows(x.view(), 300), top_rows(y.view(), 5000), 3, Metric::kCityblock); });
}

// The tensor-core search of euclidean knn (bounded_search_kernel.cuh) polls the same way. It does
// 32768 x 4 M x 64 in about a quarter of a second on the H100 (finished before a request 200 ms
// in), so this one has 16 times the queries: seconds of work.
TEST(Interrupt, ARequestStopsAHugeTensorCoreKnnWithinASecond) {
  CUDIST_REQUIRE_BACKEND();
  if (!backend_device().is_cuda()) GTEST_SKIP() << "a GPU kernel";
  ClearedInterrupt const cleared;
  std::int64_t const m = 16 * 32768;
  Array const x = repeated_on_device(m, 64, 43), y = repeated_on_device(4 << 20, 64, 44);
  std::vector<float> d(m);
  std::vector<std::int64_t> i(m);
  expect_stopped_and_working(
      [&] { knn(backend_resources(), x, y, 1, Metric::kEuclidean, view(d.data(), m, 1), view(i.data(), m, 1)); },
      [&] { return knn(backend_resources(), top_rows(x.view(), 300), top_rows(y.view(), 5000), 3, Metric::kEuclidean); });
}

// The byte rows' tensor-core search (exact_u8_l2_kernel.cuh) stops too; on Hopper without a block
// barrier: the warp that issues y's next copy polls and ends the block at that tile
// (tile_pipeline.cuh). 256 K uint8
// queries x 8 M rows of 128 bytes, k = 10: ~2e12 pairs, more than a second on an H200.
TEST(Interrupt, ARequestStopsAHugeByteSearchWithinASecond) {
  CUDIST_REQUIRE_BACKEND();
  if (!backend_device().is_cuda()) GTEST_SKIP() << "a GPU kernel";
  ClearedInterrupt const cleared;
  std::int64_t const m = 1 << 18;
  Array const x = repeated_on_device(m, 128, 45, DType::kUInt8);
  Array const y = repeated_on_device(8 << 20, 128, 46, DType::kUInt8);
  Array d = Array::allocate(m, 10, distance_output_dtype(DType::kUInt8), Device::cpu());
  Array i = Array::allocate(m, 10, DType::kInt64, Device::cpu());
  expect_stopped_and_working(
      [&] { knn(backend_resources(), x, y, 10, Metric::kSqEuclidean, d.view(), i.view()); },
      [&] { return knn(backend_resources(), top_rows(x.view(), 300), top_rows(y.view(), 5000), 10, Metric::kSqEuclidean); });
}

// One launch of the pairwise kernel, minkowski p = 3 (a pow per term) over depth 4096 into host
// memory, several seconds of work: its blocks poll the word when they start.
TEST(Interrupt, ARequestStopsAHugeGpuKernelOfCdistWithinASecond) {
  CUDIST_REQUIRE_BACKEND();
  if (!backend_device().is_cuda()) GTEST_SKIP() << "a GPU kernel";
  ClearedInterrupt const cleared;
  Array const x = repeated_on_device(16384, 4096, 43);
  std::vector<float> out(std::size_t{16384} * 16384, -1.0f);
  MetricParams p;
  p.p = 3;
  auto const call = [&] {
    cdist(backend_resources(), x, x, view(out.data(), 16384, 16384), Metric::kMinkowski, p);
  };
  EXPECT_LT(seconds_to_stop(call), 1.0);
  EXPECT_EQ(out.front(), -1.0f) << "an interrupted call copies nothing of its unfinished result";
}

TEST(Interrupt, APendingRequestStopsCallsAtTheirFirstPollUntilCleared) {
  CUDIST_REQUIRE_BACKEND();
  ClearedInterrupt const cleared;
  Workloads const w;
  Resources const res = backend_resources();
  std::string const expected = w.run(Family::kApsp, res);
  request_interrupt();
  // Every family stops: between tiles (CPU), block steps (APSP), or after kernels that left at
  // once (GPU).
  for (Family const f : {Family::kApsp, Family::kCdist, Family::kKnn, Family::kMatch}) {
    EXPECT_THROW(w.run(f, res), Interrupted) << family_name(f);
  }
  clear_interrupt();
  EXPECT_EQ(w.run(Family::kApsp, res), expected);
}

}  // namespace
}  // namespace cudist::test
