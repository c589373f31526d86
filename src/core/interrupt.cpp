#include "cudist/core/interrupt.hpp"

#include <atomic>
#include <cstdint>

#include "core/detail/interrupt_check.hpp"

namespace cudist {
namespace {

// Lock-free, so that setting it from a signal handler is safe.
std::atomic<bool> interrupt_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free, "request_interrupt must be async-signal-safe");
// Every request counted: a call that notes the count when it starts still sees a request that
// another thread's clear_interrupt() withdrew before the call looked.
std::atomic<std::uint64_t> request_count{0};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "request_interrupt must be async-signal-safe");

// The count of requests as running GPU kernels read it (page-locked host memory mapped into
// every device, see kernel_interrupt_word): a plain store reaches them, from a signal handler too.
std::atomic<std::uint64_t*> kernel_word{nullptr};
static_assert(std::atomic<std::uint64_t*>::is_always_lock_free, "request_interrupt must be async-signal-safe");

void store_kernel_word(std::uint64_t count) noexcept {
  if (std::uint64_t* const word = kernel_word.load(std::memory_order_acquire)) {
    *static_cast<std::uint64_t volatile*>(word) = count;
  }
}

}  // namespace

void request_interrupt() noexcept {
  interrupt_flag.store(true, std::memory_order_relaxed);
  store_kernel_word(request_count.fetch_add(1, std::memory_order_relaxed) + 1);
}

void clear_interrupt() noexcept { interrupt_flag.store(false, std::memory_order_relaxed); }

bool interrupt_requested() noexcept { return interrupt_flag.load(std::memory_order_relaxed); }

namespace detail {

void throw_if_interrupted(char const* who) {
  if (interrupt_requested()) CUDIST_THROW(Interrupted, who << ": interrupted");
}

std::uint64_t interrupt_requests() noexcept { return request_count.load(std::memory_order_relaxed); }

void throw_if_interrupted(char const* who, std::uint64_t since) {
  if (interrupt_requested() || interrupt_requests() != since) CUDIST_THROW(Interrupted, who << ": interrupted");
}

void publish_kernel_interrupt_word(std::uint64_t* word) noexcept {
  kernel_word.store(word, std::memory_order_release);
  store_kernel_word(interrupt_requests());  // after the store: a request in between is not lost
}

}  // namespace detail
}  // namespace cudist
