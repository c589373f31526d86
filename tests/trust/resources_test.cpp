// Resources: 10^4 calls leave host memory (RSS) and device memory flat; a request that cannot fit
// is refused before any work with the size it needed; an out-of-memory failure on the GPU is a
// clear error after which the library keeps working.
#include <gtest/gtest.h>

#include <omp.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "common/expect_error.hpp"
#include "core/detail/cuda_runtime.hpp"
#include "cudist/core/error.hpp"
#include "cudist/core/memory_budget.hpp"
#include "trust/workloads.hpp"

namespace cudist::test {
namespace {

/// This process's resident set in bytes (/proc/self/statm counts pages).
std::int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

/// Memory in use on the backend's device: host RSS on the CPU, total minus free on a GPU (after
/// the stream drained, so that stream-ordered frees have happened).
std::int64_t memory_in_use(Resources const& res) {
  if (!res.device.is_cuda()) return resident_bytes();
  detail::cuda_stream_synchronize(res.stream);
  return -static_cast<std::int64_t>(available_memory(res.device));
}

TEST(Resources, TenThousandCallsLeaveMemoryFlat) {
  CUDIST_REQUIRE_BACKEND();
  Workloads const w;
  Resources const res = backend_resources();
  constexpr int kCalls = 10000;
  // One-thread OpenMP teams: the test is about memory, and 10^4 calls' team start-ups on a loaded
  // two-core CI machine took 76 s instead of 3 s.
  int const threads = omp_get_max_threads();
  omp_set_num_threads(1);
  // A first round settles allocator pools, thread stacks and lazily made plans.
  for (int i = 0; i < 200; ++i) w.run(kAllFamilies[i % 5], res);
  std::int64_t const before = memory_in_use(res);
  for (int i = 0; i < kCalls; ++i) w.run(kAllFamilies[i % 5], res);
  std::int64_t const growth = memory_in_use(res) - before;
  omp_set_num_threads(threads);
  // One call's results are ~100 kB: a leak of any of them per call would be ~1 GB here.
  EXPECT_LT(growth, std::int64_t(8) << 20) << kCalls << " calls grew memory in use by " << growth << " bytes";
}

TEST(Resources, AnOutputThatCannotFitIsRefusedBeforeAnyWork) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = backend_resources();
  Array const x = to_backend(random_reals(3, 4, DType::kFloat32, -1, 1, 21).array);
  // 3 rows against 10^12 "rows" of y: the view is never read, the 12 TB output is refused first.
  ConstMatrixView const huge_y(x.data(), std::int64_t(1) << 40, 4, 4, DType::kFloat32, x.memory());
  expect_error<OutOfMemory>([&] { cdist(res, x, huge_y, Metric::kEuclidean); }, "needs 13194.1 GB of");
  expect_error<OutOfMemory>([&] { Array::allocate(std::int64_t(1) << 21, std::int64_t(1) << 21, DType::kFloat64, res.device); },
                 "a 2097152 x 2097152 float64 array needs 35184.4 GB");
  // A size that 64 bits cannot count is an argument error, not a wrapped-around small allocation.
  EXPECT_THROW(Array::allocate(std::int64_t(1) << 40, std::int64_t(1) << 40, DType::kFloat32, res.device),
               InvalidArgument);
}

TEST(Resources, GpuOutOfMemoryIsAClearErrorAndTheLibraryKeepsWorking) {
  CUDIST_REQUIRE_BACKEND();
  if (!backend_device().is_cuda()) GTEST_SKIP() << "a GPU allocation failure needs the CUDA backend";
  Resources const res = backend_resources();
  Workloads const w;
  std::string const expected = w.run(Family::kCdist, res);
  {
    // Exhaust the GPU with ballast, in ever smaller pieces down to 1 MB: one piece of "all but
    // 16 MB of what cudaMemGetInfo reports free" still let the call's allocation through on the
    // H100, so the test takes what the allocator actually gives.
    Array const big_x = to_backend(random_reals(3000, 33, DType::kFloat32, -1, 1, 22).array);
    std::vector<Array> ballast;
    for (std::int64_t piece = std::int64_t(1) << 30; piece >= (std::int64_t(1) << 20);) {
      try {
        ballast.push_back(Array::allocate(1, piece, DType::kUInt8, res.device));
      } catch (OutOfMemory const&) {
        piece /= 4;
      }
    }
    detail::cuda_stream_synchronize(res.stream);
    ASSERT_LT(available_memory(res.device), std::uint64_t(36) << 20) << "the ballast left too much free";
    EXPECT_THROW(cdist(res, big_x, big_x, Metric::kEuclidean), OutOfMemory);
  }
  EXPECT_EQ(w.run(Family::kCdist, res), expected);  // ballast freed: everything works again
}

}  // namespace
}  // namespace cudist::test
