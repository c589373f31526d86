// The fused selection kernel with the row-buffer top-k consumer, for the exact uint8 and bit Hamming ops.
#include "neighbors/detail/cuda/fused_launch.cuh"
#include "neighbors/detail/cuda/row_buffer_select.cuh"

namespace cudist::neighbors::detail::cuda {

void run_top_k_integer(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  run_fused<RowBufferSelect, InputKind::kInteger>(f, a, stream);
}

}  // namespace cudist::neighbors::detail::cuda
