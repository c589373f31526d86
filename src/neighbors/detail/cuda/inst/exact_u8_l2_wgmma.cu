// The byte and bit rows' tensor-core search on Hopper's wgmma (exact_u8_l2_wgmma.hpp), for its two
// consumers: the lanes' best two (k <= 2, match) and the row buffers (3 <= k). Built for sm_90a
// alone.
#include "neighbors/detail/cuda/exact_u8_l2_wgmma.hpp"

#include "core/cuda/device_features.hpp"
#include "neighbors/detail/cuda/exact_u8_l2_kernel.cuh"
#include "neighbors/detail/cuda/exact_u8_l2_launch.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

constexpr int kSm90 = 90;
using Kernels = ByteSearchKernels<ExactU8L2WgmmaKernel, ExactS8L2WgmmaKernel, ExactBitsHammingWgmmaKernel, kSm90>;

}  // namespace

bool exact_u8_l2_wgmma_runs(std::int64_t k, int bytes, RowProduct product) {
  return !cudist::detail::cuda::mma_sync_forced() && Kernels::runs_here(k, bytes, product);
}

std::size_t exact_u8_l2_wgmma_smem(std::int64_t k, int bytes, RowProduct product) {
  return Kernels::smem(k, bytes, product);
}

bool run_exact_u8_l2_wgmma(FusedLaunch const& f, SelectArgs const& a, RowProduct product, cudaStream_t stream) {
  return Kernels::run(f, a, product, stream);
}

}  // namespace cudist::neighbors::detail::cuda
