// The tensor-core candidate search (bounded_search_kernel.cuh) of inner product and cosine, for
// its two consumers: the lanes' best two (k <= 2, match) and the row buffers (3 <= k).
#include <cmath>

#include "neighbors/detail/cuda/bounded_search_launch.cuh"

namespace cudist::neighbors::detail::cuda {

using DotSearch = BoundedSearch<DotBound>;

std::size_t bounded_dot_smem(std::int64_t k, int depth) { return DotSearch::Kernels::smem(k, depth); }
bool bounded_dot_runs_here(std::int64_t k, int depth) { return DotSearch::Kernels::runs_here(k, depth); }

void run_bounded_dot(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  SelectProblem const& sp = *f.problem;
  auto const& spec = sp.pairwise.op;
  DotBound::Rank rank{};
  rank.op.kind = static_cast<DotBound::Op::Finish>(spec.finish);
  rank.op.x_norms = static_cast<float const*>(spec.x_norms);
  rank.op.y_norms = static_cast<float const*>(spec.y_norms);
  rank.negate = sp.rank.similarity;
  // The slack rounded up to float (it is far inside float's range: d 2^-94).
  auto const slack = std::nextafter(static_cast<float>(form.bound.slack), HUGE_VALF);
  DotBound::Constants const constants{form.bound.dot_e(), slack, rank.op.kind == DotBound::Op::Finish::kCosineDistance};
  DotSearch::run(form, f, a, rank, constants, stream);
}

}  // namespace cudist::neighbors::detail::cuda
