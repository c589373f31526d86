// Stream-ordered arrays on the calling thread's current device, freed in stream order when they
// go out of scope: the scratch of the GPU paths.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/detail/cuda_runtime.hpp"
#include "cudist/core/array.hpp"

namespace cudist::detail::cuda {

inline Device current_device() { return Device::cuda(cuda_get_device()); }

inline Array device_array(std::int64_t rows, std::int64_t cols, DType dtype, cudaStream_t stream) {
  return Array::allocate(rows, cols, dtype, current_device(), stream);
}

}  // namespace cudist::detail::cuda
