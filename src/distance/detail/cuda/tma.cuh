// Hopper's bulk tensor copies (TMA) into shared memory and the mbarriers that count their bytes
// (sm_90; the kernels that use them are compiled for sm_90a with wgmma, wgmma.cuh). One thread
// issues a whole tile's copy; every thread waits on the tile's mbarrier by its phase. An arrival
// without bytes completes a phase with no copy (a pipeline's stop: tile_pipeline.cuh).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "distance/detail/cuda/wgmma.cuh"

namespace cudist::detail::cuda::tma {

/// The shared-memory address of p, as the instructions here take it.
__device__ __forceinline__ unsigned shared_address(void const* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// An mbarrier at shared address `at` expecting one arrival per phase.
__device__ __forceinline__ void init(unsigned at) {
#if CUDIST_WGMMA_HERE
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(at) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#else
  __trap();
#endif
}

/// This phase's arrival, with the bytes the phase's copies will deliver.
__device__ __forceinline__ void arrive_expecting(unsigned at, unsigned bytes) {
#if CUDIST_WGMMA_HERE
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(at), "r"(bytes) : "memory");
#else
  __trap();
#endif
}

/// One arrival on this phase, without bytes.
__device__ __forceinline__ void arrive(unsigned at) {
#if CUDIST_WGMMA_HERE
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(at) : "memory");
#else
  __trap();
#endif
}

/// Waits until the phase of parity `parity` has completed (its arrival and all its bytes).
__device__ __forceinline__ void wait(unsigned at, unsigned parity) {
#if CUDIST_WGMMA_HERE
  asm volatile(
      "{\n.reg .pred done;\nwait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}\n" ::"r"(at),
      "r"(parity)
      : "memory");
#else
  __trap();
#endif
}

/// The box at (byte column x, row y) of the map (tensor_map.hpp) into shared address `to`,
/// counted on the mbarrier at `bar`.
__device__ __forceinline__ void copy_box(CUtensorMap const& map, int x, int y, unsigned to, unsigned bar) {
#if CUDIST_WGMMA_HERE
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
          "r"(to),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(x), "r"(y), "r"(bar)
      : "memory");
#else
  __trap();
#endif
}

}  // namespace cudist::detail::cuda::tma
