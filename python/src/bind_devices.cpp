// What this build and this machine offer: the CUDA backend, the GPUs, device names.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "cudist/core/device.hpp"
#include "cudist/core/memory_budget.hpp"

namespace nb = nanobind;

namespace cudist::python {
namespace {

/// "(4, 5)", "(6,)": a shape as Python writes a tuple, for messages.
std::string shape_text(std::vector<std::uint64_t> const& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// The bytes of a `shape` array of `itemsize`-byte elements, the largest std::uint64_t past it
/// (0 for an empty one, however large its other extents).
std::uint64_t saturated_bytes(std::vector<std::uint64_t> const& shape, std::uint64_t itemsize) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  std::uint64_t bytes = itemsize;
  for (std::uint64_t extent : shape) {
    if (__builtin_mul_overflow(bytes, extent, &bytes)) return UINT64_MAX;
  }
  return bytes;
}

/// expect_allocation_fits for a result the Python wrappers are about to allocate. Here, not in
/// Python, so a small call does not format its message (a tuple's repr) for nothing: 0.5 us a
/// result there (docs/tuning.md, "Python").
void expect_result_fits(std::string const& device, std::vector<std::uint64_t> const& shape,
                        std::string const& dtype, std::uint64_t itemsize) {
  expect_allocation_fits(Device::parse(device), saturated_bytes(shape, itemsize), "cudist",
                         "a " + shape_text(shape) + " " + dtype + " result");
}

}  // namespace

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
  m.def("expect_result_fits", &expect_result_fits, nb::arg("device"), nb::arg("shape"),
        nb::arg("dtype"), nb::arg("itemsize"),
        "OutOfMemoryError naming the size when a large result of `shape` and `dtype` (of "
        "`itemsize` bytes) cannot fit on the device now.");
}

}  // namespace cudist::python
