#include "cudist/core/device.hpp"

#include <cstdlib>
#include <string>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"

namespace cudist {

bool cuda_compiled() { return detail::cuda_backend_compiled(); }

int cuda_device_count() {
  static int const count = detail::cuda_runtime_device_count();  // the driver's answer is fixed
  return count;
}

Device Device::best_available() { return cuda_device_count() > 0 ? cuda(0) : cpu(); }

Device Device::parse(std::string_view text) {
  if (text == "cpu") return cpu();
  if (text == "auto") return best_available();
  if (text == "cuda" || text == "gpu") return cuda(0);
  if (text.substr(0, 5) == "cuda:" && text.size() > 5) {
    std::string const digits(text.substr(5));
    char* end = nullptr;
    long const index = std::strtol(digits.c_str(), &end, 10);
    if (*end == '\0' && index >= 0 && index < 1024) return cuda(static_cast<int>(index));
  }
  CUDIST_THROW(InvalidArgument,
               "device: '" << text << "' is not a device (expected cpu, cuda, cuda:N or auto)");
}

std::string Device::str() const {
  return is_cuda() ? "cuda:" + std::to_string(index) : std::string("cpu");
}

void require_device(Device device, std::string_view who) {
  if (!device.is_cuda()) return;
  if (!cuda_compiled()) {
    CUDIST_THROW(DeviceUnavailable, who << ": device " << device.str()
                                        << " requested, but this build of cudist has no CUDA "
                                           "backend; use device cpu");
  }
  int const count = cuda_device_count();
  if (device.index >= count) {
    CUDIST_THROW(DeviceUnavailable, who << ": device " << device.str() << " requested, but "
                                        << (count == 0 ? std::string("no CUDA GPU is present")
                                                       : std::to_string(count) + " CUDA GPU(s) are present")
                                        << "; use device cpu");
  }
}

}  // namespace cudist
