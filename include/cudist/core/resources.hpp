// What a call runs on: the device and, for CUDA, the caller's stream. Nothing in cudist
// synchronises behind the caller's back; a function that does says so in its documentation.
#pragma once

#include "cudist/core/device.hpp"

namespace cudist {

struct Resources {
  Device device = Device::best_available();
  void* stream = nullptr;  ///< cudaStream_t; nullptr = the legacy default stream

  Resources() = default;
  explicit Resources(Device d, void* s = nullptr) : device(d), stream(s) {}
};

}  // namespace cudist
