// float32 instantiations of the pairwise engine (every op).
#include "distance/detail/cuda/pairwise_launch.cuh"
#include "distance/detail/dispatch_op.hpp"

namespace cudist::detail::cuda {

void pairwise_float(PairwiseProblem const& pr, cudaStream_t stream) {
  dispatch_floating_op<float, float>(pr, [&](auto op) { launch_for_op<float>(pr, op, stream); });
}

}  // namespace cudist::detail::cuda
