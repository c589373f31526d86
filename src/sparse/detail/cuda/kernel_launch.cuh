// Kernels are structs (Params, SharedStorage, kThreads, operator()); this file holds the one
// __global__ trampoline that runs them and the launch helper that checks every launch. Only the
// trampoline reads the CUDA built-in variables.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/cuda/check.hpp"
#include "core/cuda/device_features.hpp"

namespace cudist::sparse::detail::cuda {

struct ThreadCoords {
  std::int64_t block;   // blockIdx.x
  int thread;           // threadIdx.x
  std::int64_t blocks;  // gridDim.x
};

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreads)
    run_kernel(typename Kernel::Params const params) {
  __shared__ typename Kernel::SharedStorage shared;
  Kernel{}(params, shared, ThreadCoords{blockIdx.x, static_cast<int>(threadIdx.x), gridDim.x});
}

/// The block's dynamic shared memory (the bytes its launch asked for), 16-byte aligned.
__device__ __forceinline__ unsigned char* dynamic_shared_memory() {
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  return dynamic_shared;
}

/// Launches `blocks` blocks of Kernel on `stream`, each with `dynamic_shared` bytes of dynamic
/// shared memory, and checks the launch.
template <class Kernel>
void launch(std::int64_t blocks, typename Kernel::Params const& params, cudaStream_t stream,
            std::size_t dynamic_shared = 0) {
  run_kernel<Kernel><<<static_cast<unsigned>(blocks), Kernel::kThreads, dynamic_shared, stream>>>(
      params);
  CUDIST_CHECK_LAUNCH();
#if defined(CUDIST_DEBUG_SYNC)
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
#endif
}

/// Blocks of Kernel (with `dynamic_shared` bytes each) that the current GPU runs at once: the
/// grid of a persistent kernel.
template <class Kernel>
std::int64_t resident_blocks(std::size_t dynamic_shared = 0) {
  return cudist::detail::cuda::resident_blocks(reinterpret_cast<void const*>(run_kernel<Kernel>),
                                               Kernel::kThreads, dynamic_shared);
}

/// Lets Kernel's launches on the current device ask for all the dynamic shared memory a block may
/// opt in to (beyond the default 48 KB). Set before every such launch, as the neighbour kernels'
/// launch_with_smem does: the attribute is the function's on each device, and a device set runs
/// its shards on several; always the whole allowance, so threads launching at once agree.
template <class Kernel>
void allow_block_shared_memory() {
  CUDIST_CUDA_TRY(cudaFuncSetAttribute(run_kernel<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(cudist::detail::cuda::max_block_shared_memory())));
}

/// Asks for the largest L1 (least shared memory) for a kernel that uses no shared memory, so
/// gathers of x hit L1 as often as possible. Once per kernel.
template <class Kernel>
void prefer_l1() {
  static cudaError_t const set =
      cudaFuncSetAttribute(run_kernel<Kernel>, cudaFuncAttributePreferredSharedMemoryCarveout,
                           cudaSharedmemCarveoutMaxL1);
  CUDIST_CUDA_TRY(set);
}

/// Asks for the smallest shared-memory carveout that holds `blocks` blocks of Kernel an SM (its
/// static shared memory and the driver's reservation each), so that the rest is L1. Set before
/// every launch, as allow_block_shared_memory is (a device set's shards run on several devices);
/// the share is worked out once, from the first device's figures.
template <class Kernel>
void prefer_blocks_per_sm(int blocks) {
  static int const percent = [blocks] {
    cudaFuncAttributes attributes{};
    int device = 0, per_sm = 0, reserved = 0;
    CUDIST_CUDA_TRY(cudaFuncGetAttributes(&attributes, run_kernel<Kernel>));
    CUDIST_CUDA_TRY(cudaGetDevice(&device));
    CUDIST_CUDA_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    CUDIST_CUDA_TRY(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
    std::size_t const need = static_cast<std::size_t>(blocks) * (attributes.sharedSizeBytes + reserved);
    return per_sm <= 0 ? 100 : static_cast<int>(std::min<std::size_t>(100, (100 * need + per_sm - 1) / per_sm));
  }();
  CUDIST_CUDA_TRY(cudaFuncSetAttribute(run_kernel<Kernel>, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
}

}  // namespace cudist::sparse::detail::cuda
