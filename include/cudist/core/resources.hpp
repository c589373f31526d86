// What a call runs on: the device and, for CUDA, the caller's stream. Nothing in cudist
// synchronises behind the caller's back; a function that does says so in its documentation.
#pragma once

#include <cstdint>

#include "cudist/core/device.hpp"

namespace cudist {

struct Resources {
  Device device = Device::best_available();
  void* stream = nullptr;  ///< cudaStream_t; nullptr = the legacy default stream
  /// Bytes of device memory (host memory for the CPU) a call may hold at once for what it streams:
  /// the output windows of a cdist / pdist whose output is in host memory, the chunks of a knn
  /// database in host memory. 0: the device's free memory. A result or database larger than this
  /// is streamed through it in pieces (out of core).
  std::uint64_t memory_budget = 0;

  Resources() = default;
  explicit Resources(Device d, void* s = nullptr) : device(d), stream(s) {}
};

}  // namespace cudist
