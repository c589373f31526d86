// The tensor-core candidate search (bounded_search_kernel.cuh) of inner product and cosine, for
// its two consumers: the lanes' best two (k <= 2, match) and the row buffers (3 <= k).
#include <cmath>

#include "neighbors/detail/cuda/bounded_search_launch.cuh"

namespace cudist::neighbors::detail::cuda {

using DotSearch = BoundedSearch<DotBound>;

std::size_t bounded_dot_smem(std::int64_t k, int depth) { return DotSearch::Kernels::smem(k, depth); }
bool bounded_dot_runs_here(std::int64_t k, int depth) { return DotSearch::Kernels::runs_here(k, depth); }

void run_bounded_dot(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  bool const cosine = DotBound::rank_of(*f.problem).op.kind == DotBound::Op::Finish::kCosineDistance;
  // The slack rounded up to float (it is far inside float's range: d 2^-94).
  auto const slack = std::nextafter(static_cast<float>(form.bound.slack), HUGE_VALF);
  DotBound::Constants const constants{form.bound.dot_e(), slack, cosine};
  DotSearch::run(form, f, a, constants, stream);
}

}  // namespace cudist::neighbors::detail::cuda
