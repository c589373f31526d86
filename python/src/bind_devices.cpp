// What this build and this machine offer: the CUDA backend, the GPUs, device names.
#include <cstdint>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "cudist/core/device.hpp"
#include "cudist/core/memory_budget.hpp"

namespace nb = nanobind;

namespace cudist::python {

void bind_devices(nb::module_& m) {
  m.def("cuda_compiled", &cuda_compiled, "True when this build contains the CUDA backend.");
  m.def("cuda_device_count", &cuda_device_count,
        "Usable CUDA devices: 0 without a GPU, a driver or the CUDA backend.");
  m.def(
      "canonical_device", [](std::string const& text) { return DeviceSet::parse(text).str(); },
      nb::arg("device"),
      "'cpu', 'cuda:N' or a device set 'cuda:0,1' for 'cpu', 'cuda', 'gpu', 'cuda:N', 'auto', "
      "'cuda:0,1,...' or 'cuda:all'; ValueError otherwise.");
  m.def(
      "available_memory", [](std::string const& device) { return available_memory(Device::parse(device)); },
      nb::arg("device"), "Bytes that can be allocated on the device now (host: MemAvailable + free swap).");
  m.def(
      "expect_allocation_fits",
      [](std::string const& device, std::uint64_t bytes, std::string const& who, std::string const& what) {
        expect_allocation_fits(Device::parse(device), bytes, who, what);
      },
      nb::arg("device"), nb::arg("bytes"), nb::arg("who"), nb::arg("what"),
      "OutOfMemoryError naming the size when a large allocation cannot fit on the device now.");
}

}  // namespace cudist::python
