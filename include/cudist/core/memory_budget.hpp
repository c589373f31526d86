// How much memory a request may still take, and refusing one that cannot fit before any work
// starts: a clear OutOfMemory naming the size, instead of std::bad_alloc, a failed kernel half
// way, or the kernel's OOM killer ending the process when an overcommitted allocation is touched.
#pragma once

#include <cstdint>
#include <string>

#include "cudist/core/device.hpp"

namespace cudist {

/// Bytes that can be allocated on `device` now. CPU: the kernel's MemAvailable plus free swap,
/// within the control group's memory limit when one is set (containers); the largest
/// std::uint64_t when /proc/meminfo cannot be read. CUDA: the free bytes cudaMemGetInfo reports
/// for that device.
std::uint64_t available_memory(Device device);

/// Throws OutOfMemory when `bytes` exceeds available_memory(device), with the message
/// "who: what needs <size> of <host|GPU> memory, but only <size> is available".
void expect_memory_available(Device device, double bytes, std::string const& who, std::string const& what);

/// expect_memory_available for an allocation of `bytes` large enough to be worth the check (64 MB
/// and more: below, the look at /proc/meminfo or cudaMemGetInfo costs more than it can save).
/// Array::allocate calls it, and so do the Python wrappers before allocating a result.
void expect_allocation_fits(Device device, std::uint64_t bytes, std::string const& who, std::string const& what);

/// "1.5 GB", "12.0 MB": a size for messages.
std::string format_bytes(double bytes);

}  // namespace cudist
