// The fused selection kernel with the radius consumer, for the exact uint8 and bit Hamming ops.
#include "neighbors/detail/cuda/fused_launch.cuh"
#include "neighbors/detail/cuda/radius_select.cuh"

namespace cudist::neighbors::detail::cuda {

void run_radius_integer(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  run_fused<RadiusSelect, InputKind::kInteger>(f, a, stream);
}

}  // namespace cudist::neighbors::detail::cuda
