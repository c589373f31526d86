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
  /// Several devices: when it names two or more, a call that supports it splits its work over
  /// them and returns its result on the first, which must be `device`; `stream` is then that
  /// device's stream and the others use their legacy default streams. Such a call synchronizes.
  /// Empty or one device: `device` alone.
  DeviceSet devices;

  Resources() = default;
  explicit Resources(Device d, void* s = nullptr) : device(d), stream(s) {}
  explicit Resources(DeviceSet const& set, void* s = nullptr)
      : device(set.empty() ? Device::cpu() : set.primary()), stream(s), devices(set) {}

  /// True when the call is split over several devices.
  bool is_split() const { return devices.size() > 1; }
};

}  // namespace cudist
