// Where the backends poll cudist's interrupt request (see cudist/core/interrupt.hpp). Loops inside
// an OpenMP region cannot throw: they skip their remaining work while interrupt_requested() and
// the code after the region calls throw_if_interrupted. GPU kernels read the count of requests in
// page-locked memory (core/cuda/interrupt_word.cuh) and stop early; the host code after them
// throws, so no call returns what a stopped kernel left.
#pragma once

#include <cstdint>

#include "core/detail/expects.hpp"
#include "cudist/core/interrupt.hpp"

namespace cudist::detail {

/// Throws Interrupted ("who: interrupted") when an interrupt has been requested.
void throw_if_interrupted(char const* who);

/// How many interrupts have been requested so far: a call notes it when it starts.
std::uint64_t interrupt_requests() noexcept;

/// Throws Interrupted when a request is pending or one came after interrupt_requests() was
/// `since`. After GPU work: a kernel the request stopped left its output unfinished, even when
/// another thread has cleared the request since (Python clears it when a call starts).
void throw_if_interrupted(char const* who, std::uint64_t since);

/// From then on request_interrupt() also stores the count of requests in `word`, which GPU
/// kernels poll (kernel_interrupt_word() in cuda_runtime.hpp allocates and publishes it).
void publish_kernel_interrupt_word(std::uint64_t* word) noexcept;

}  // namespace cudist::detail
