// Smaller runs of the heaviest tests under compute-sanitizer (CUDIST_TESTS_REDUCED=1, set by
// scripts/gpu_check.sh sanitize): instrumentation slows kernels 10-100x, and every tool over every
// binary must finish in one 10-minute call. A reduced loop still visits every value of each of
// its dimensions (every metric, dtype, shape and k) at least once, only not every combination:
// so every kernel variant and every edge shape is still launched.
#pragma once

#include <cstdlib>
#include <string_view>

namespace cudist::test {

inline bool reduced_run() {
  char const* const flag = std::getenv("CUDIST_TESTS_REDUCED");
  return flag != nullptr && std::string_view(flag) != "" && std::string_view(flag) != "0";
}

/// Keeps one combination in `stride` of a nested loop in a reduced run, all of them otherwise:
///   CombinationSampler sample(3);
///   for (...) for (...) { if (!sample.keep()) continue; ... }
/// Choose `stride` coprime to the innermost loop's length, so every value of it is kept.
class CombinationSampler {
 public:
  explicit CombinationSampler(int stride) : stride_(reduced_run() ? stride : 1) {}
  bool keep() { return count_++ % stride_ == 0; }

 private:
  int stride_;
  long count_ = 0;
};

}  // namespace cudist::test
