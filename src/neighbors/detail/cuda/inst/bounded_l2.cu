// The tensor-core candidate search (bounded_search_kernel.cuh) of squared L2, for its two
// consumers: the lanes' best two (k <= 2, match) and the row buffers (3 <= k).
#include "neighbors/detail/cuda/bounded_search_launch.cuh"

namespace cudist::neighbors::detail::cuda {

using L2Search = BoundedSearch<L2Bound>;

std::size_t bounded_l2_smem(std::int64_t k, int depth) { return L2Search::Kernels::smem(k, depth); }
bool bounded_l2_runs_here(std::int64_t k, int depth) { return L2Search::Kernels::runs_here(k, depth); }

void run_bounded_l2(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  double const gamma = form.bound.gamma;
  L2Bound::Constants const constants{1.0 / (1.0 - gamma) * (1.0 + 0x1p-50), (1.0 + gamma) * (1.0 + 0x1p-50),
                                     form.bound.slack};
  L2Search::run(form, f, a, constants, stream);
}

}  // namespace cudist::neighbors::detail::cuda
