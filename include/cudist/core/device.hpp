// Where a computation runs: the CPU backend or one CUDA device.
#pragma once

#include <string>
#include <string_view>

namespace cudist {

enum class DeviceKind { kCpu, kCuda };

struct Device {
  DeviceKind kind = DeviceKind::kCpu;
  int index = 0;  ///< CUDA ordinal; 0 for the CPU

  static Device cpu() { return {DeviceKind::kCpu, 0}; }
  static Device cuda(int index = 0) { return {DeviceKind::kCuda, index}; }

  /// The first CUDA device when one is present and this build has CUDA, else the CPU.
  static Device best_available();

  /// Parses "cpu", "cuda", "cuda:N" or "auto" (= best_available()); throws InvalidArgument.
  static Device parse(std::string_view text);

  bool is_cuda() const { return kind == DeviceKind::kCuda; }
  std::string str() const;
  friend bool operator==(Device a, Device b) { return a.kind == b.kind && a.index == b.index; }
  friend bool operator!=(Device a, Device b) { return !(a == b); }
};

/// True when this build contains the CUDA backend (it may still find no GPU at run time).
bool cuda_compiled();

/// Number of usable CUDA devices; 0 without a GPU, without a driver or without the CUDA backend.
int cuda_device_count();

/// Throws DeviceUnavailable, naming `who`, unless `device` can run work in this process.
void require_device(Device device, std::string_view who);

}  // namespace cudist
