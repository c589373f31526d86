// The kernels' side of cudist::request_interrupt(): long-running kernels poll it and stop early;
// the host code after such a launch throws Interrupted (throw_if_interrupted with the count of
// requests at the call's start), so what a stopped kernel left behind is never returned.
//
// request_interrupt() stores its running count of requests in one word of page-locked host
// memory mapped into every device (kernel_interrupt_word). Reading it crosses the bus, and reads
// of one host address from many SMs are served one at a time (measured on the H100: a read per
// block start made a 2.7 ms cdist take 52 ms). So the word is read at most once a millisecond per
// device and module: the block whose poll finds the relay older than that reads it and publishes
// the count in device memory (relay_seen); every other poll reads only that (L2).
#pragma once

#include <cstdint>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/interrupt_check.hpp"

namespace cudist::detail::cuda {

/// What a launch hands its kernel: the word and the count of requests when it was launched.
struct InterruptPoll {
  std::uint64_t const* word;  // null: never stop
  std::uint64_t since;        // stop once a later request is seen (0 when one was pending)
};

/// Contractions at least this deep poll when each output-tile block starts: a 128 x 128 tile of
/// depth 256 is ~4 M multiply-adds, tens of microseconds of an SM, against a poll of two L2
/// reads. Shallower launches are bounded by their output: one that fills an 80 GB GPU at depth
/// 255 is well under a second of fp32 work, so they run to their end and the host stops after.
constexpr std::int64_t kPolledDepth = 256;

/// The poll for a launch made now (host).
inline InterruptPoll interrupt_poll() {
  return {kernel_interrupt_word(), interrupt_requested() ? 0 : interrupt_requests()};
}

/// The poll for a grid of output-tile blocks contracting over `depth`: none when too shallow.
inline InterruptPoll interrupt_poll_for_depth(std::int64_t depth) {
  return depth >= kPolledDepth ? interrupt_poll() : InterruptPoll{nullptr, 0};
}

namespace interrupt_relay {
// Per device and translation unit (static: each module's kernels share one pair; zero at load).
static __device__ unsigned long long last_read_ns;  // %globaltimer of the last read of the word
static __device__ unsigned long long seen;          // the largest count read so far
constexpr unsigned long long kReadEveryNs = 1000000;
}  // namespace interrupt_relay

/// Whether a request came after the launch (one thread calls it; see the file comment).
__device__ inline bool interrupt_seen(InterruptPoll const& poll) {
  namespace relay = interrupt_relay;
  if (poll.word == nullptr) return false;
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  unsigned long long const last = *static_cast<unsigned long long volatile*>(&relay::last_read_ns);
  if (now - last > relay::kReadEveryNs && atomicCAS(&relay::last_read_ns, last, now) == last) {
    atomicMax(&relay::seen, static_cast<unsigned long long>(*static_cast<std::uint64_t const volatile*>(poll.word)));
  }
  return *static_cast<unsigned long long volatile*>(&relay::seen) > poll.since;
}

/// The block's poll: thread 0 reads (interrupt_seen) and the block votes, so that every thread
/// leaves together; false at once without a word. Every thread of the block calls it.
__device__ inline bool block_interrupted(InterruptPoll const& poll) {
  if (poll.word == nullptr) return false;
  return __syncthreads_or(threadIdx.x == 0 && interrupt_seen(poll));
}

}  // namespace cudist::detail::cuda
