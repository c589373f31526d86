// The fused selection kernel on the tensor-core contraction of packed uint8 squared L2
// (packed_u8_mma_tile.cuh), for the three consumers: top-k, best two, radius.
#include "core/cuda/device_features.hpp"
#include "distance/detail/cuda/packed_u8_mma_tile.cuh"
#include "neighbors/detail/cuda/fused_launch.cuh"
#include "neighbors/detail/cuda/radius_select.cuh"
#include "neighbors/detail/cuda/row_buffer_select.cuh"
#include "neighbors/detail/cuda/two_best_select.cuh"

namespace cudist::neighbors::detail::cuda {

using cudist::detail::cuda::PackedU8MmaTileKernel;

template <template <class> class SelectT>
bool run_packed_u8_mma(FusedLaunch const& f, PackedU8SqL2Op const& op, SelectArgs const& a,
                       cudaStream_t stream) {
  using Kernel = FusedSelectKernel<PackedU8SqL2Op, std::uint32_t, SelectT, PackedU8MmaTileKernel>;
  // Forced portable (the tests of the fallback on new GPUs), Turing's SIMT path runs.
  if (!cudist::detail::cuda::kernel_image_has_sm80(reinterpret_cast<void const*>(fused_select_kernel<Kernel>))) {
    return false;
  }
  launch_fused<SelectT, std::uint32_t, PackedU8SqL2Op, PackedU8MmaTileKernel>(f, op, a, stream);
  return true;
}

template bool run_packed_u8_mma<RowBufferSelect>(FusedLaunch const&, PackedU8SqL2Op const&,
                                                 SelectArgs const&, cudaStream_t);
template bool run_packed_u8_mma<TwoBestSelect>(FusedLaunch const&, PackedU8SqL2Op const&,
                                               SelectArgs const&, cudaStream_t);
template bool run_packed_u8_mma<RadiusSelect>(FusedLaunch const&, PackedU8SqL2Op const&,
                                              SelectArgs const&, cudaStream_t);

}  // namespace cudist::neighbors::detail::cuda
