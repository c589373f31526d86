#include "cudist/core/device.hpp"

#include <algorithm>
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

namespace {

// One CUDA ordinal of a list, or -1.
int parse_ordinal(std::string const& digits) {
  if (digits.empty() || digits.size() > 4) return -1;
  char* end = nullptr;
  long const index = std::strtol(digits.c_str(), &end, 10);
  return (*end == '\0' && digits.front() != '-' && digits.front() != '+' && index < 1024)
             ? static_cast<int>(index)
             : -1;
}

}  // namespace

DeviceSet DeviceSet::parse(std::string_view text) {
  if (text.substr(0, 5) != "cuda:" || (text != "cuda:all" && text.find(',') == text.npos)) {
    return DeviceSet(Device::parse(text));
  }
  DeviceSet set;
  if (text == "cuda:all") {
    int const count = cuda_device_count();
    if (count == 0) {
      CUDIST_THROW(DeviceUnavailable, "device: 'cuda:all' requested, but "
                                          << (cuda_compiled() ? "no CUDA GPU is present"
                                                              : "this build of cudist has no CUDA backend")
                                          << "; use device cpu");
    }
    for (int i = 0; i < count; ++i) set.devices.push_back(Device::cuda(i));
    return set;
  }
  std::string const list(text.substr(5));
  std::size_t begin = 0;
  while (true) {
    std::size_t const comma = list.find(',', begin);
    std::string const item = list.substr(begin, comma == list.npos ? list.npos : comma - begin);
    int const index = parse_ordinal(item);
    CUDIST_EXPECTS(index >= 0, "device: '" << text << "' is not a device set: '" << item
                                           << "' is not a CUDA ordinal (expected cuda:0,1 or cuda:all)");
    Device const d = Device::cuda(index);
    CUDIST_EXPECTS(std::find(set.devices.begin(), set.devices.end(), d) == set.devices.end(),
                   "device: '" << text << "' names " << d.str() << " twice");
    set.devices.push_back(d);
    if (comma == list.npos) break;
    begin = comma + 1;
  }
  return set;
}

std::string DeviceSet::str() const {
  bool const all_cuda = std::all_of(devices.begin(), devices.end(), [](Device d) { return d.is_cuda(); });
  if (devices.size() == 1 || !all_cuda) {  // "cpu", "cuda:2", or an invalid mix spelled out
    std::string names;
    for (Device d : devices) names += (names.empty() ? "" : ",") + d.str();
    return names.empty() ? std::string("(none)") : names;
  }
  std::string names = "cuda:";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    names += (i ? "," : "") + std::to_string(devices[i].index);
  }
  return names;
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

void require_device_set(DeviceSet const& set, std::string_view who) {
  CUDIST_EXPECTS(!set.empty(), who << ": the device set is empty; name at least one device");
  for (std::size_t i = 0; i < set.size(); ++i) {
    Device const d = set.devices[i];
    CUDIST_EXPECTS(set.size() == 1 || d.is_cuda(),
                   who << ": device set " << set.str() << " mixes the CPU with GPUs; a set of "
                       << "several devices names CUDA GPUs only");
    for (std::size_t j = 0; j < i; ++j) {
      CUDIST_EXPECTS(set.devices[j] != d, who << ": device set " << set.str() << " names "
                                              << d.str() << " twice");
    }
  }
  for (Device d : set.devices) require_device(d, who);  // after the set's shape: those errors first
}

}  // namespace cudist
