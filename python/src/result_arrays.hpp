// Results whose size depends on the data (match, radius) are allocated by the C++ library. They
// become arrays of the caller's framework without a copy: the framework array owns the
// cudist::Array through a capsule, and frees it (stream-ordered on the GPU) when it dies.
#pragma once

#include <string>

#include <nanobind/nanobind.h>

#include "cudist/core/array.hpp"
#include "cudist/core/device.hpp"

namespace cudist::python {

/// `array` as a "numpy", "torch" or "cupy" array on `home` (the device of the caller's arrays).
/// A result computed elsewhere (the caller passed device=) is copied to `home` first, on
/// `stream`; copies into host memory synchronize it.
nanobind::object to_framework(Array array, std::string const& framework, Device home, void* stream);

}  // namespace cudist::python
