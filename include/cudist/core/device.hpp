// Where a computation runs: the CPU backend or one CUDA device.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

/// Several devices for one call, in the order given. A call on a set of two or more devices
/// splits its work over them (database rows for knn / match / radius, output rows for cdist,
/// matrix rows for SpMV / SpMM), runs the parts concurrently and returns its result on the first
/// device of the set (docs/multi_gpu.md). A set of one device is that device.
struct DeviceSet {
  std::vector<Device> devices;

  DeviceSet() = default;
  DeviceSet(Device d) : devices{d} {}  // NOLINT(google-explicit-constructor): one device is a set
  explicit DeviceSet(std::vector<Device> d) : devices(std::move(d)) {}

  /// Parses a single device (as Device::parse), "cuda:0,1,..." (CUDA ordinals, comma-separated)
  /// or "cuda:all" (every CUDA GPU present). Throws InvalidArgument for a malformed list or a
  /// device named twice, DeviceUnavailable for "cuda:all" without a GPU.
  static DeviceSet parse(std::string_view text);

  std::size_t size() const { return devices.size(); }
  bool empty() const { return devices.empty(); }
  Device primary() const { return devices.front(); }  ///< where results are returned
  std::string str() const;  ///< "cuda:0,1" for a set, the device's name for one device
};

/// True when this build contains the CUDA backend (it may still find no GPU at run time).
bool cuda_compiled();

/// Number of usable CUDA devices; 0 without a GPU, without a driver or without the CUDA backend.
int cuda_device_count();

/// Throws DeviceUnavailable, naming `who`, unless `device` can run work in this process.
void require_device(Device device, std::string_view who);

/// Throws, naming `who`, unless every device of `set` can run work here: InvalidArgument for an
/// empty set, a device named twice or a set mixing the CPU with GPUs; DeviceUnavailable for a
/// GPU that is not present.
void require_device_set(DeviceSet const& set, std::string_view who);

}  // namespace cudist
