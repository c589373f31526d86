// The tensor-core candidate search (bounded_l2_kernel.cuh) for its two consumers: the lanes'
// best two (k <= 2, match) and the row buffers (3 <= k).
#include "neighbors/detail/cuda/bounded_l2.hpp"

#include "core/cuda/check.hpp"
#include "core/cuda/device_features.hpp"
#include "core/cuda/interrupt_word.cuh"
#include "core/detail/validate_view.hpp"
#include "distance/detail/cuda/pairwise_launch.cuh"
#include "distance/detail/dispatch_op.hpp"
#include "neighbors/detail/cuda/bounded_l2_kernel.cuh"
#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/nearest_kernels.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

using Kernels = NearestKernels<BoundedL2Kernel>;

template <class Kernel>
void launch(BoundedL2Form const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  SelectProblem const& sp = *f.problem;
  auto const select = Kernel::Select::from(a, sp.rank);
  if (!select || f.blocks == 0) return;
  typename Kernel::Params p{};
  p.x = form.x;
  p.y = form.y;
  p.rank.op.rows = cudist::detail::source_rows<float>(sp.pairwise);
  auto const& rows = p.rank.op.rows;
  using cudist::detail::cuda::rows_allow_vectors;
  p.rows_vec = rows.d % 4 == 0 && rows_allow_vectors(rows.x, rows.ldx, 16, sizeof(float)) &&
               rows_allow_vectors(rows.y, rows.ldy, 16, sizeof(float));
  p.grid = f.grid;
  p.zero_diagonal = sp.rank.zero_diagonal;
  p.exclude_self = sp.rank.exclude_self;
  p.inv_one_minus_gamma = 1.0 / (1.0 - form.bound.gamma) * (1.0 + 0x1p-50);
  p.one_plus_gamma = (1.0 + form.bound.gamma) * (1.0 + 0x1p-50);
  p.slack = form.bound.slack;
  p.select = *select;
  p.interrupt = cudist::detail::cuda::interrupt_poll();
  launch_with_smem(fused_select_kernel<Kernel>, f.blocks, Kernel::kThreads, Kernel::smem_bytes(*select, form.x.depth), p,
                   stream);
}

}  // namespace

std::size_t bounded_l2_smem(std::int64_t k, std::int64_t d) { return Kernels::smem(k, rounded_depth(d)); }

bool bounded_l2_applies(SelectProblem const& p, std::int64_t k, bool observer) {
  auto const& pw = p.pairwise;
  bool const shape = pw.x.dtype == DType::kFloat32 && pw.y.dtype == DType::kFloat32 &&
                     p.distance_dtype == DType::kFloat32 && pw.op.kind == cudist::detail::OpKind::kSqDiffSum &&
                     pw.op.weights == nullptr && pw.x.cols >= 1 && pw.x.cols <= kMaxBoundedDepth && p.n() > 0 &&
                     k >= 1 && !observer;
  return shape && !cudist::detail::cuda::simt_selection_forced() && Kernels::runs_here(k, rounded_depth(pw.x.cols));
}

BoundedL2Form bounded_l2_form(SelectProblem const& p, std::vector<Array>& keep, cudaStream_t stream) {
  BoundedL2Form form;
  form.bound = ExpansionBound::for_depth(p.pairwise.x.cols);
  // The kernel reads the bound terms of whole tiles from any row or column it starts at.
  constexpr std::int64_t kPad = WorkGrid::kTileRows;
  form.x = round_rows(p.pairwise.x, p.m() + kPad, form.bound, keep, stream);
  bool const self = cudist::detail::same_view(p.pairwise.x, p.pairwise.y);
  form.y = self ? form.x : round_rows(p.pairwise.y, p.n() + kPad, form.bound, keep, stream);
  return form;
}

void run_bounded_l2(BoundedL2Form const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  Kernels::with(a.k, [&](auto kernel) { launch<decltype(kernel)>(form, f, a, stream); });
}

}  // namespace cudist::neighbors::detail::cuda
