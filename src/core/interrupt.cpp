#include "cudist/core/interrupt.hpp"

#include <atomic>

#include "core/detail/interrupt_check.hpp"

namespace cudist {
namespace {

// Lock-free, so that setting it from a signal handler is safe.
std::atomic<bool> interrupt_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free, "request_interrupt must be async-signal-safe");

}  // namespace

void request_interrupt() noexcept { interrupt_flag.store(true, std::memory_order_relaxed); }

void clear_interrupt() noexcept { interrupt_flag.store(false, std::memory_order_relaxed); }

bool interrupt_requested() noexcept { return interrupt_flag.load(std::memory_order_relaxed); }

namespace detail {

void throw_if_interrupted(char const* who) {
  if (interrupt_requested()) CUDIST_THROW(Interrupted, who << ": interrupted");
}

}  // namespace detail
}  // namespace cudist
