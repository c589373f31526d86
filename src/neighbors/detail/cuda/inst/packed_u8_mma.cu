// The fused selection kernel on the tensor-core contraction of packed byte squared L2 (uint8 or
// int8 rows; packed_u8_mma_tile.cuh), for the three consumers: top-k, best two, radius.
#include "core/cuda/device_features.hpp"
#include "distance/detail/cuda/packed_u8_mma_tile.cuh"
#include "neighbors/detail/cuda/fused_launch.cuh"
#include "neighbors/detail/cuda/radius_select.cuh"
#include "neighbors/detail/cuda/row_buffer_select.cuh"
#include "neighbors/detail/cuda/two_best_select.cuh"

namespace cudist::neighbors::detail::cuda {

using cudist::detail::cuda::PackedByteMmaTileKernel;

template <template <class> class SelectT, bool kSigned>
bool run_packed_byte_mma(FusedLaunch const& f, PackedByteSqL2Op<kSigned> const& op, SelectArgs const& a,
                         cudaStream_t stream) {
  using Op = PackedByteSqL2Op<kSigned>;
  using Engine = PackedByteMmaTileKernel<kSigned>;
  using Kernel = FusedSelectKernel<Op, std::uint32_t, SelectT, Engine>;
  // Forced portable (the tests of the fallback on new GPUs), Turing's SIMT path runs.
  if (!cudist::detail::cuda::kernel_image_has_sm80(reinterpret_cast<void const*>(fused_select_kernel<Kernel>))) {
    return false;
  }
  launch_fused<SelectT, std::uint32_t, Op, Engine>(f, op, a, stream);
  return true;
}

#define CUDIST_PACKED_BYTE_MMA(SelectT, kSigned)                                                                   \
  template bool run_packed_byte_mma<SelectT, kSigned>(FusedLaunch const&, PackedByteSqL2Op<kSigned> const&, \
                                                      SelectArgs const&, cudaStream_t);
CUDIST_PACKED_BYTE_MMA(RowBufferSelect, false)
CUDIST_PACKED_BYTE_MMA(RowBufferSelect, true)
CUDIST_PACKED_BYTE_MMA(TwoBestSelect, false)
CUDIST_PACKED_BYTE_MMA(TwoBestSelect, true)
CUDIST_PACKED_BYTE_MMA(RadiusSelect, false)
CUDIST_PACKED_BYTE_MMA(RadiusSelect, true)
#undef CUDIST_PACKED_BYTE_MMA

}  // namespace cudist::neighbors::detail::cuda
