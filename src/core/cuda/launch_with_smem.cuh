// The checked launch of a kernel that takes its Params by value and asks for more dynamic shared
// memory than the 48 KB default.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "core/cuda/check.hpp"
#include "core/cuda/device_features.hpp"

namespace cudist::detail::cuda {

/// Launches `kernel` on `grid` with `smem` bytes of dynamic shared memory, checked. The opt-in is
/// the device's whole allowance, the same in every call: the attribute belongs to the function,
/// so setting it to each launch's size let a thread lower it between another thread's setting and
/// launch (cudaErrorLaunchOutOfResources in SplitKnn's shards, run 14). The launch's own size
/// decides occupancy, not the attribute.
template <class Params>
void launch_with_smem(void (*kernel)(Params), dim3 grid, int threads, std::size_t smem, Params const& p,
                      cudaStream_t stream) {
  auto const allowance = std::max(smem, max_block_shared_memory());
  CUDIST_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(allowance)));
  kernel<<<grid, threads, smem, stream>>>(p);
  CUDIST_CHECK_LAUNCH();
#if defined(CUDIST_DEBUG_SYNC)
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
#endif
}

}  // namespace cudist::detail::cuda
