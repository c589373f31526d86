#include "cudist/core/progress.hpp"

#include <atomic>

#include "core/detail/progress_report.hpp"

namespace cudist {
namespace {

std::atomic<ProgressHook> hook_in_use{nullptr};

}  // namespace

ProgressHook set_progress_hook(ProgressHook hook) noexcept { return hook_in_use.exchange(hook); }

namespace detail {

void report_progress(char const* who, std::int64_t done, std::int64_t total) {
  if (ProgressHook const hook = hook_in_use.load()) hook(who, done, total);
}

}  // namespace detail
}  // namespace cudist
