// The fused selection kernel with the row-buffer top-k consumer, for every exact uint8 and bit Hamming op.
#include "neighbors/detail/cuda/fused_launch.cuh"
#include "neighbors/detail/cuda/row_buffer_select.cuh"

namespace cudist::neighbors::detail::cuda {

void run_top_k_integer(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  run_fused<RowBufferSelect, InputKind::kInteger, false>(f, a, stream);
}

}  // namespace cudist::neighbors::detail::cuda
