// Counting the steps a stepped call reports (cudist/core/progress.hpp): the windows of an
// out-of-core pairwise output, the chunks of a streamed database.
#pragma once

#include <atomic>
#include <cstdint>

#include "cudist/core/progress.hpp"

namespace cudist::test {

/// While alive, counts every progress report in the process (from any thread), from 0; the
/// previous hook is restored after, whatever happened in the test.
class ProgressCount {
 public:
  ProgressCount() : previous_(set_progress_hook(&ProgressCount::count)) { reports() = 0; }
  ~ProgressCount() { set_progress_hook(previous_); }
  ProgressCount(ProgressCount const&) = delete;
  ProgressCount& operator=(ProgressCount const&) = delete;

  int seen() const { return reports().load(); }

 private:
  static std::atomic<int>& reports() {
    static std::atomic<int> n{0};
    return n;
  }
  static void count(char const*, std::int64_t, std::int64_t) { ++reports(); }

  ProgressHook previous_;
};

}  // namespace cudist::test
