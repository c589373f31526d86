// The fused selection kernel with the row-buffer top-k consumer, for the fused ops (kFusedOp) on float64 inputs.
#include "neighbors/detail/cuda/fused_launch.cuh"
#include "neighbors/detail/cuda/row_buffer_select.cuh"

namespace cudist::neighbors::detail::cuda {

void run_top_k_double(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  run_fused<RowBufferSelect, InputKind::kDouble>(f, a, stream);
}

}  // namespace cudist::neighbors::detail::cuda
