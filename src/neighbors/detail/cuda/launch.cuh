// The trampoline and checked launch of the neighbours family's small kernels (merges, filters,
// gathers): a kernel is a struct with Params, kThreads and operator()(params, block, thread).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/cuda/check.hpp"
#include "core/cuda/launch_with_smem.cuh"

namespace cudist::neighbors::detail::cuda {

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreads) run_kernel(typename Kernel::Params const p) {
  Kernel{}(p, blockIdx.x, static_cast<int>(threadIdx.x));
}

/// Enough blocks of Kernel::kThreads for `items` items, items_per_block per block; nothing for 0.
template <class Kernel>
void launch(std::int64_t items, int items_per_block, typename Kernel::Params const& p, cudaStream_t stream) {
  if (items <= 0) return;
  std::int64_t const blocks = (items + items_per_block - 1) / items_per_block;
  run_kernel<Kernel><<<static_cast<unsigned>(blocks), Kernel::kThreads, 0, stream>>>(p);
  CUDIST_CHECK_LAUNCH();
#if defined(CUDIST_DEBUG_SYNC)
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
#endif
}

/// cudist::detail::cuda::launch_with_smem on a 1-D grid of `blocks`.
template <class Params>
void launch_with_smem(void (*kernel)(Params), std::int64_t blocks, int threads, std::size_t smem,
                      Params const& p, cudaStream_t stream) {
  cudist::detail::cuda::launch_with_smem(kernel, dim3(static_cast<unsigned>(blocks)), threads, smem, p, stream);
}

}  // namespace cudist::neighbors::detail::cuda
