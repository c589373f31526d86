// cudist::request_interrupt(): a long call stops soon after it with cudist::Interrupted, a call
// started while it is pending stops at its first poll, and clear_interrupt() lets calls run again.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "cudist/core/interrupt.hpp"
#include "trust/workloads.hpp"

namespace cudist::test {
namespace {

/// Clears any request when a test ends, whatever happened in it.
struct ClearedInterrupt {
  ~ClearedInterrupt() { clear_interrupt(); }
};

TEST(Interrupt, ARequestFromAnotherThreadStopsALongCpuCall) {
  CUDIST_REQUIRE_BACKEND();
  if (backend_device().is_cuda()) GTEST_SKIP() << "one CUDA kernel runs to its end; see the apsp test";
  ClearedInterrupt const cleared;
  // A self-join of 8000 x 256 rows: seconds on two cores, so only the request ends it this soon.
  Array const x = random_reals(8000, 256, DType::kFloat32, -1, 1, 31).array;
  std::chrono::steady_clock::time_point requested;
  std::thread requester([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    requested = std::chrono::steady_clock::now();
    request_interrupt();
  });
  EXPECT_THROW(knn(backend_resources(), x, x, 5, Metric::kEuclidean), Interrupted);
  auto const stopped = std::chrono::steady_clock::now();
  requester.join();
  EXPECT_LT(std::chrono::duration<double>(stopped - requested).count(), 1.0);
}

TEST(Interrupt, APendingRequestStopsCallsAtTheirFirstPollUntilCleared) {
  CUDIST_REQUIRE_BACKEND();
  ClearedInterrupt const cleared;
  Workloads const w;
  Resources const res = backend_resources();
  std::string const expected = w.run(Family::kApsp, res);
  request_interrupt();
  EXPECT_THROW(w.run(Family::kApsp, res), Interrupted);  // polled between block steps, both backends
  if (!res.device.is_cuda()) {
    EXPECT_THROW(w.run(Family::kCdist, res), Interrupted);  // polled between tiles
    EXPECT_THROW(w.run(Family::kKnn, res), Interrupted);
  }
  clear_interrupt();
  EXPECT_EQ(w.run(Family::kApsp, res), expected);
}

}  // namespace
}  // namespace cudist::test
