// The fused selection kernel with the radius consumer, for the fused ops (kFusedOp) on float64 inputs.
#include "neighbors/detail/cuda/fused_launch.cuh"
#include "neighbors/detail/cuda/radius_select.cuh"

namespace cudist::neighbors::detail::cuda {

void run_radius_double(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  run_fused<RadiusSelect, InputKind::kDouble>(f, a, stream);
}

}  // namespace cudist::neighbors::detail::cuda
