// The byte rows' tensor-core search on Hopper's wgmma (exact_u8_l2_wgmma.hpp), for its two
// consumers: the lanes' best two (k <= 2, match) and the row buffers (3 <= k). Built for sm_90a
// alone.
#include "neighbors/detail/cuda/exact_u8_l2_wgmma.hpp"

#include "core/cuda/device_features.hpp"
#include "neighbors/detail/cuda/exact_u8_l2_kernel.cuh"
#include "neighbors/detail/cuda/exact_u8_l2_launch.cuh"
#include "neighbors/detail/cuda/nearest_kernels.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

constexpr int kSm90 = 90;
using U8Kernels = NearestKernels<ExactU8L2WgmmaKernel, kSm90>;
using S8Kernels = NearestKernels<ExactS8L2WgmmaKernel, kSm90>;  // the same blocks and shared memory

}  // namespace

bool exact_u8_l2_wgmma_runs(std::int64_t k, int bytes, bool signed_bytes) {
  if (cudist::detail::cuda::mma_sync_forced()) return false;
  return signed_bytes ? S8Kernels::runs_here(k, bytes) : U8Kernels::runs_here(k, bytes);
}

std::size_t exact_u8_l2_wgmma_smem(std::int64_t k, int bytes) { return U8Kernels::smem(k, bytes); }

void run_exact_u8_l2_wgmma(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  auto const run = [&](auto kernel) { launch_exact_u8_l2<decltype(kernel)>(f, a, stream); };
  if (f.problem->pairwise.op.signed_bytes) return S8Kernels::with(a.k, run);
  U8Kernels::with(a.k, run);
}

}  // namespace cudist::neighbors::detail::cuda
