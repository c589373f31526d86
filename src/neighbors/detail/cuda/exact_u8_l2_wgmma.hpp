// The byte rows' tensor-core search with Hopper's wgmma contraction (exact_u8_l2_kernel.cuh on
// WgmmaColumnTiles), as exact_u8_l2.cu sees it. Its unit, inst/exact_u8_l2_wgmma.cu, is compiled
// for sm_90a alone, and only where the build's architectures include Hopper (CUDIST_WGMMA, set by
// src/neighbors/CMakeLists.txt); elsewhere the search never runs here.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "neighbors/detail/cuda/exact_u8_l2.hpp"
#include "neighbors/detail/cuda/fused_launch.hpp"

namespace cudist::neighbors::detail::cuda {

#if defined(CUDIST_WGMMA)
/// Whether the wgmma kernel of k on rows of `bytes` with `product` runs on the current device: an
/// image it loads (sm_90a: Hopper), a block that fits, and neither CUDIST_MMA_SYNC nor forced
/// portable.
bool exact_u8_l2_wgmma_runs(std::int64_t k, int bytes, RowProduct product);
/// Its block's shared memory.
std::size_t exact_u8_l2_wgmma_smem(std::int64_t k, int bytes, RowProduct product);
/// Its launch (exact_u8_l2_launch.cuh); false, launching nothing, where its tensor maps cannot be
/// made.
bool run_exact_u8_l2_wgmma(FusedLaunch const& f, SelectArgs const& a, RowProduct product, cudaStream_t stream);
#else
inline bool exact_u8_l2_wgmma_runs(std::int64_t, int, RowProduct) { return false; }
inline std::size_t exact_u8_l2_wgmma_smem(std::int64_t, int, RowProduct) { return 0; }
inline bool run_exact_u8_l2_wgmma(FusedLaunch const&, SelectArgs const&, RowProduct, cudaStream_t) { return false; }
#endif

}  // namespace cudist::neighbors::detail::cuda
