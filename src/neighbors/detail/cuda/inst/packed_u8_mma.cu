// The fused selection kernel on the tensor-core contraction of packed uint8 squared L2
// (packed_u8_mma_tile.cuh), for the three consumers: top-k, best two, radius.
#include "core/cuda/device_features.hpp"
#include "neighbors/detail/cuda/fused_launch.cuh"
#include "neighbors/detail/cuda/packed_u8_mma_tile.cuh"
#include "neighbors/detail/cuda/radius_select.cuh"
#include "neighbors/detail/cuda/row_buffer_select.cuh"
#include "neighbors/detail/cuda/two_best_select.cuh"

namespace cudist::neighbors::detail::cuda {

template <template <class> class SelectT>
bool run_packed_u8_mma(FusedLaunch const& f, PackedU8SqL2Op const& op, SelectArgs const& a,
                       cudaStream_t stream) {
  using Kernel = FusedSelectKernel<PackedU8SqL2Op, std::uint32_t, SelectT, PackedU8MmaTileKernel>;
  // The image the runtime picked for this device: its PTX and SASS must both be sm_80 or later
  // (mma.sync m16n8k32 on uint8); an sm_75 image holds a trap in its place. Forced portable (the
  // tests of the fallback on new GPUs), Turing's SIMT path runs.
  if (cudist::detail::cuda::force_portable()) return false;
  cudaFuncAttributes attributes{};
  CUDIST_CUDA_TRY(cudaFuncGetAttributes(&attributes, fused_select_kernel<Kernel>));
  if (attributes.ptxVersion < 80 || attributes.binaryVersion < 80) return false;
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
