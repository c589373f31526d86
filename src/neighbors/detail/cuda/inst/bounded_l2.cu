// The tensor-core candidate search (bounded_search_kernel.cuh) of squared L2, for its two
// consumers: the lanes' best two (k <= 2, match) and the row buffers (3 <= k). The mma.sync
// contraction is built here; on Hopper, where the build holds it, the best two's wgmma kernel runs
// (bounded_wgmma.hpp).
#include "neighbors/detail/cuda/bounded_search_launch.cuh"
#include "neighbors/detail/cuda/bounded_wgmma.hpp"

namespace cudist::neighbors::detail::cuda {

using L2Search = BoundedSearch<L2Bound>;

std::size_t bounded_l2_smem(std::int64_t k, int depth) {
  return bounded_l2_wgmma_runs(k, depth) ? bounded_l2_wgmma_smem(k, depth) : L2Search::Kernels::smem(k, depth);
}

bool bounded_l2_runs_here(std::int64_t k, int depth) {
  return bounded_l2_wgmma_runs(k, depth) || L2Search::Kernels::runs_here(k, depth);
}

void run_bounded_l2(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  if (bounded_l2_wgmma_runs(a.k, form.x.depth)) return run_bounded_l2_wgmma(form, f, a, stream);
  L2Search::run(form, f, a, l2_constants(form), stream);
}

}  // namespace cudist::neighbors::detail::cuda
