#include "cudist/core/memory_budget.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"

namespace cudist {
namespace {

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();

/// The whole text of a small file (/proc, /sys), after a newline so that every key follows one.
std::string text_of(char const* path) {
  std::ifstream in(path);
  return "\n" + std::string(std::istreambuf_iterator<char>(in), {});
}

/// The number after "\n<key>" in `text`; kUnknown when the key or a number is missing.
std::uint64_t field(std::string const& text, std::string const& key) {
  std::size_t const at = text.find("\n" + key);
  if (at == std::string::npos) return kUnknown;
  std::istringstream value(text.substr(at + 1 + key.size(), 32));
  std::uint64_t v = 0;
  return value >> v ? v : kUnknown;
}

std::uint64_t available_host_memory() {
  std::string const meminfo = text_of("/proc/meminfo");  // values in KiB
  std::uint64_t const available = field(meminfo, "MemAvailable:");
  if (available == kUnknown) return kUnknown;
  std::uint64_t const swap = field(meminfo, "SwapFree:");
  std::uint64_t const machine = 1024 * (available + (swap == kUnknown ? 0 : swap));
  // In a container the control group's limit counts too (cgroup v2, values in bytes); its usage
  // includes page cache, whose inactive part is reclaimed before the limit bites.
  std::uint64_t const limit = field(text_of("/sys/fs/cgroup/memory.max"), "");
  std::uint64_t used = field(text_of("/sys/fs/cgroup/memory.current"), "");
  if (limit == kUnknown || used == kUnknown) return machine;
  std::uint64_t const cache = field(text_of("/sys/fs/cgroup/memory.stat"), "inactive_file ");
  if (cache != kUnknown) used -= std::min(used, cache);
  return std::min(machine, limit > used ? limit - used : 0);
}

}  // namespace

std::uint64_t available_memory(Device device) {
  if (!device.is_cuda()) return available_host_memory();
  detail::ScopedDevice const scope(device);
  return detail::cuda_free_memory();
}

void expect_memory_available(Device device, double bytes, std::string const& who, std::string const& what) {
  std::uint64_t const available = available_memory(device);
  if (available == kUnknown || bytes <= static_cast<double>(available)) return;
  CUDIST_THROW(OutOfMemory, who << ": " << what << " needs " << format_bytes(bytes) << " of "
                                << (device.is_cuda() ? "GPU" : "host") << " memory, but only "
                                << format_bytes(static_cast<double>(available)) << " is available on "
                                << device.str());
}

void expect_allocation_fits(Device device, std::uint64_t bytes, std::string const& who, std::string const& what) {
  constexpr std::uint64_t kSizeWorthACheck = 64u << 20;
  if (bytes >= kSizeWorthACheck) expect_memory_available(device, static_cast<double>(bytes), who, what);
}

std::string format_bytes(double bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1);
  if (bytes >= 1e9) {
    s << bytes / 1e9 << " GB";
  } else {
    s << bytes / 1e6 << " MB";
  }
  return s.str();
}

}  // namespace cudist
