// The float32 candidate search of squared L2 for the best two (k <= 2: match, the ratio test)
// with Hopper's wgmma contraction (bounded_search_kernel.cuh on WgmmaColumnTiles), as
// inst/bounded_l2.cu sees it. Its unit, inst/bounded_wgmma.cu, is compiled for sm_90a alone, and
// only where the build's architectures include Hopper (CUDIST_WGMMA, src/neighbors/CMakeLists.txt);
// elsewhere it never runs here. Why only that kernel: docs/tuning.md, "The float32 candidate
// search on wgmma".
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "neighbors/detail/cuda/bounded_search.hpp"

namespace cudist::neighbors::detail::cuda {

#if defined(CUDIST_WGMMA)
/// Whether the wgmma kernel of k on rows of `depth` float16 values runs on the current device
/// (k <= 2, an image it loads, a block that fits, CUDIST_MMA_SYNC unset), its block's shared
/// memory, its launch.
bool bounded_l2_wgmma_runs(std::int64_t k, int depth);
std::size_t bounded_l2_wgmma_smem(std::int64_t k, int depth);
void run_bounded_l2_wgmma(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);
#else
inline bool bounded_l2_wgmma_runs(std::int64_t, int) { return false; }
inline std::size_t bounded_l2_wgmma_smem(std::int64_t, int) { return 0; }
inline void run_bounded_l2_wgmma(BoundedForm const&, FusedLaunch const&, SelectArgs const&, cudaStream_t) {}
#endif

}  // namespace cudist::neighbors::detail::cuda
