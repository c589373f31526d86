// The float32 candidate search of squared L2 for the best two on Hopper's wgmma
// (bounded_wgmma.hpp). Built for sm_90a alone. The row buffers' kernel (3 <= k) stays on mma.sync:
// on wgmma it must give up the block rounds (with them ptxas serialises its wgmmas, note C7520),
// and without them K2L ran 9% slower (H200 run 132).
#include "neighbors/detail/cuda/bounded_wgmma.hpp"

#include "core/cuda/device_features.hpp"
#include "distance/detail/cuda/wgmma_column_tiles.cuh"
#include "neighbors/detail/cuda/bounded_search_launch.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

constexpr int kSm90 = 90;
constexpr bool kServesTopK = false;
using L2Search = BoundedSearch<L2Bound, cudist::detail::cuda::WgmmaColumnTiles, kSm90, kServesTopK>;

}  // namespace

bool bounded_l2_wgmma_runs(std::int64_t k, int depth) {
  return !cudist::detail::cuda::mma_sync_forced() && L2Search::Kernels::runs_here(k, depth);
}
std::size_t bounded_l2_wgmma_smem(std::int64_t k, int depth) { return L2Search::Kernels::smem(k, depth); }
void run_bounded_l2_wgmma(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  L2Search::run(form, f, a, l2_constants(form), stream);
}

}  // namespace cudist::neighbors::detail::cuda
