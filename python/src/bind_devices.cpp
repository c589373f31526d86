// What this build and this machine offer: the CUDA backend, the GPUs, device names.
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "cudist/core/device.hpp"

namespace nb = nanobind;

namespace cudist::python {

void bind_devices(nb::module_& m) {
  m.def("cuda_compiled", &cuda_compiled, "True when this build contains the CUDA backend.");
  m.def("cuda_device_count", &cuda_device_count,
        "Usable CUDA devices: 0 without a GPU, a driver or the CUDA backend.");
  m.def(
      "canonical_device", [](std::string const& text) { return Device::parse(text).str(); },
      nb::arg("device"),
      "'cpu' or 'cuda:N' for 'cpu', 'cuda', 'gpu', 'cuda:N' or 'auto'; ValueError otherwise.");
}

}  // namespace cudist::python
