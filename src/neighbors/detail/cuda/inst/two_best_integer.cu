// The fused selection kernel with the 2-best consumer (k <= 2), for the fused ops (kFusedOp) on exact uint8 and bit Hamming inputs.
#include "neighbors/detail/cuda/fused_launch.cuh"
#include "neighbors/detail/cuda/two_best_select.cuh"

namespace cudist::neighbors::detail::cuda {

void run_two_best_integer(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  run_fused<TwoBestSelect, InputKind::kInteger>(f, a, stream);
}

}  // namespace cudist::neighbors::detail::cuda
