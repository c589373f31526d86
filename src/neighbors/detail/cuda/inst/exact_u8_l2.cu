// The int8 tensor-core search of byte-row squared L2 (exact_u8_l2_kernel.cuh; uint8 rows, and int8
// rows with the signed MMA) for its two consumers: the lanes' best two (k <= 2, match) and the
// row buffers (3 <= k).
#include "neighbors/detail/cuda/exact_u8_l2.hpp"

#include "core/cuda/interrupt_word.cuh"
#include "distance/detail/cuda/pairwise_launch.cuh"
#include "neighbors/detail/cuda/exact_u8_l2_kernel.cuh"
#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/nearest_kernels.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

using U8Kernels = NearestKernels<ExactU8L2Kernel>;
using S8Kernels = NearestKernels<ExactS8L2Kernel>;  // the same blocks and shared memory

/// The rows' bytes as the kernel reads them: 16-byte loads of whole rows.
bool rows_fit(ConstMatrixView words) {
  using cudist::detail::cuda::rows_allow_vectors;
  return rows_allow_vectors(words.data, words.stride, 16, sizeof(std::uint32_t));
}

template <class Kernel>
void launch(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  SelectProblem const& sp = *f.problem;
  auto const select = Kernel::Select::from(a, sp.rank);
  if (!select || f.blocks == 0) return;
  auto const& pw = sp.pairwise;
  typename Kernel::Params p{};
  p.x = static_cast<unsigned char const*>(pw.x.data);
  p.y = static_cast<unsigned char const*>(pw.y.data);
  p.ldx = pw.x.stride * 4;
  p.ldy = pw.y.stride * 4;
  p.depth = static_cast<int>(pw.x.cols * 4);
  p.x_sq = static_cast<std::uint32_t const*>(pw.op.x_norms);
  p.y_sq = static_cast<std::uint32_t const*>(pw.op.y_norms);
  p.grid = f.grid;
  p.exclude_self = sp.rank.exclude_self;
  p.select = *select;
  p.interrupt = cudist::detail::cuda::interrupt_poll();
  p.chain.finished = f.finished_chunks;
  launch_with_smem(fused_select_kernel<Kernel>, f.blocks, Kernel::kThreads, Kernel::smem_bytes(*select, p.depth), p,
                   stream);
}

}  // namespace

std::size_t exact_u8_l2_smem(std::int64_t k, std::int64_t bytes) { return U8Kernels::smem(k, static_cast<int>(bytes)); }

bool exact_u8_l2_applies(SelectProblem const& p, std::int64_t k, bool observer) {
  auto const& pw = p.pairwise;
  std::int64_t const bytes = pw.x.cols * 4;
  bool const shape = pw.x.dtype == DType::kInt32 && pw.y.dtype == DType::kInt32 &&
                     pw.op.kind == cudist::detail::OpKind::kSqDiffSum && pw.op.weights == nullptr &&
                     p.distance_dtype != DType::kFloat64 && bytes % 16 == 0 && bytes >= 16 && bytes <= 256 &&
                     rows_fit(pw.x) && rows_fit(pw.y) && p.n() > 0 && k >= 1 && !observer;
  if (!shape || cudist::detail::cuda::simt_selection_forced()) return false;
  return pw.op.signed_bytes ? S8Kernels::runs_here(k, static_cast<int>(bytes))
                            : U8Kernels::runs_here(k, static_cast<int>(bytes));
}

void run_exact_u8_l2(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  auto const run = [&](auto kernel) { launch<decltype(kernel)>(f, a, stream); };
  if (f.problem->pairwise.op.signed_bytes) return S8Kernels::with(a.k, run);
  U8Kernels::with(a.k, run);
}

}  // namespace cudist::neighbors::detail::cuda
