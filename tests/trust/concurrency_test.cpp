// Many host threads calling cdist / knn / match / spmv / apsp at once get exactly the answers of a
// single thread: on the CPU backend, and on CUDA both with every thread on one stream and with a
// stream per thread. scripts/tsan.sh runs the CPU build of this test under ThreadSanitizer.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#ifdef CUDIST_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include "common/reduced.hpp"
#include "trust/workloads.hpp"

namespace cudist::test {
namespace {

constexpr int kThreads = 8;

/// How many times every thread runs every family: one round under compute-sanitizer (the threads
/// still overlap every pair of families, since each thread starts at a different one).
int rounds_per_thread() { return reduced_run() ? 1 : 6; }

/// Runs kThreads threads, thread t on resources_for(t), each calling every family (in an order
/// that differs between threads, so that different families overlap) and comparing with `expected`.
template <class ResourcesFor>
void expect_threads_agree(Workloads const& w, std::map<Family, std::string> const& expected,
                          ResourcesFor const& resources_for) {
  std::atomic<int> mismatches{0};
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        Resources const res = resources_for(t);
        for (int i = 0; i < rounds_per_thread() * 5; ++i) {
          Family const f = kAllFamilies[(i + t) % 5];
          if (w.run(f, res) != expected.at(f)) {
            ++mismatches;
            failures[t] = std::string(family_name(f)) + " differs from the single-thread result";
          }
        }
      } catch (std::exception const& e) {
        ++mismatches;
        failures[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

std::map<Family, std::string> single_thread_answers(Workloads const& w, Resources const& res) {
  std::map<Family, std::string> answers;
  for (Family f : kAllFamilies) answers[f] = w.run(f, res);
  return answers;
}

TEST(Concurrency, ThreadsSharingResourcesGetTheSingleThreadAnswers) {
  CUDIST_REQUIRE_BACKEND();
  Workloads const w;
  Resources const shared = backend_resources();  // CUDA: every thread on the legacy default stream
  auto const expected = single_thread_answers(w, shared);
  expect_threads_agree(w, expected, [&](int) { return shared; });
}

#ifdef CUDIST_WITH_CUDA
TEST(Concurrency, ThreadsOnTheirOwnStreamsGetTheSingleThreadAnswers) {
  CUDIST_REQUIRE_BACKEND();
  if (!backend_device().is_cuda()) GTEST_SKIP() << "streams are a CUDA backend matter";
  Workloads const w;
  auto const expected = single_thread_answers(w, backend_resources());
  std::vector<cudaStream_t> streams(kThreads);
  for (auto& s : streams) ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  expect_threads_agree(w, expected, [&](int t) { return Resources(backend_device(), streams[t]); });
  for (auto s : streams) cudaStreamDestroy(s);
}
#endif

}  // namespace
}  // namespace cudist::test
