// The fused selection kernel with the radius consumer, for the fused ops (kFusedOp) on float32 (and converted float16 / bfloat16) inputs.
#include "neighbors/detail/cuda/fused_launch.cuh"
#include "neighbors/detail/cuda/radius_select.cuh"

namespace cudist::neighbors::detail::cuda {

void run_radius_float(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  run_fused<RadiusSelect, InputKind::kFloat>(f, a, stream);
}

}  // namespace cudist::neighbors::detail::cuda
