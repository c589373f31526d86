// Which problems the tensor-core candidate search takes, and its op's kernels (bounded_search.hpp).
#include "neighbors/detail/cuda/bounded_search.hpp"

#include "core/cuda/device_features.hpp"
#include "core/detail/validate_view.hpp"
#include "distance/detail/ops.hpp"

namespace cudist::neighbors::detail::cuda {
namespace {

bool is_dot(SelectProblem const& p) { return p.pairwise.op.kind == cudist::detail::OpKind::kDot; }

RowTermKind term_kind(SelectProblem const& p) { return is_dot(p) ? RowTermKind::kNorms : RowTermKind::kSquaredNorms; }

// The kernel reads the bound terms of whole tiles from any row or column it starts at.
constexpr std::int64_t kPad = WorkGrid::kTileRows;

}  // namespace

std::size_t bounded_search_smem(SelectProblem const& p, std::int64_t k) {
  int const depth = rounded_depth(p.pairwise.x.cols);
  return is_dot(p) ? bounded_dot_smem(k, depth) : bounded_l2_smem(k, depth);
}

bool bounded_search_applies(SelectProblem const& p, std::int64_t k, bool observer) {
  using cudist::detail::OpKind;
  auto const& pw = p.pairwise;
  bool const op = pw.op.kind == OpKind::kSqDiffSum || pw.op.kind == OpKind::kDot;
  bool const shape = pw.x.dtype == DType::kFloat32 && pw.y.dtype == DType::kFloat32 &&
                     p.distance_dtype == DType::kFloat32 && op && pw.op.weights == nullptr && pw.x.cols >= 1 &&
                     pw.x.cols <= kMaxBoundedDepth && p.n() > 0 && k >= 1 && !observer;
  if (!shape || cudist::detail::cuda::simt_selection_forced()) return false;
  int const depth = rounded_depth(pw.x.cols);
  return is_dot(p) ? bounded_dot_runs_here(k, depth) : bounded_l2_runs_here(k, depth);
}

BoundedForm bounded_search_form(SelectProblem const& p, std::vector<Array>& keep, cudaStream_t stream) {
  BoundedForm form;
  form.bound = ExpansionBound::for_depth(p.pairwise.x.cols);
  form.x = round_rows(p.pairwise.x, p.m() + kPad, form.bound, term_kind(p), keep, stream);
  bool const self = cudist::detail::same_view(p.pairwise.x, p.pairwise.y);
  if (self) {
    form.y = form.x;
  } else if (p.y_pending()) {  // rounded a part at a time (round_y_rows), once on the device
    form.y = allocate_rounded_rows(p.n(), p.pairwise.y.cols, p.n() + kPad, keep, stream);
  } else {
    form.y = round_rows(p.pairwise.y, p.n() + kPad, form.bound, term_kind(p), keep, stream);
  }
  return form;
}

void round_y_rows(SelectProblem const& p, BoundedForm const& form, std::int64_t first, std::int64_t last,
                  cudaStream_t stream) {
  round_row_range(p.pairwise.y, form.y, form.bound, term_kind(p), first, last == p.n() ? last + kPad : last, stream);
}

void run_bounded_search(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  if (is_dot(*f.problem)) {
    run_bounded_dot(form, f, a, stream);
  } else {
    run_bounded_l2(form, f, a, stream);
  }
}

}  // namespace cudist::neighbors::detail::cuda
