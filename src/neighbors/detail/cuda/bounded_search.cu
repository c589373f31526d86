// Which problems the tensor-core candidate search takes, and its op's kernels (bounded_search.hpp).
#include "neighbors/detail/cuda/bounded_search.hpp"

#include <algorithm>

#include "core/cuda/device_features.hpp"
#include "core/detail/validate_view.hpp"
#include "distance/detail/ops.hpp"
#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/workspace.cuh"
#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail::cuda {
namespace {

bool is_dot(SelectProblem const& p) { return p.pairwise.op.kind == cudist::detail::OpKind::kDot; }

/// Each row's k-th entry of the sample's search as its bar word: an entry's high half is its
/// key's order (KeyTraits<float>); a row with fewer than k entries keeps its word.
struct KthEntryToBarKernel {
  static constexpr int kThreads = 256;
  struct Params {
    KeyTraits<float>::Entry const* entries;  // (m, k), nearest first
    std::int64_t m;
    int k;
    std::uint32_t* bars;  // (m)
  };
  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const r = block * kThreads + tid;
    if (r >= p.m) return;
    KeyTraits<float>::Entry const e = p.entries[r * p.k + p.k - 1];
    if (e != KeyTraits<float>::empty()) p.bars[r] = static_cast<std::uint32_t>(e >> 32);
  }
};

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
  RowTermKind const terms = is_dot(p) ? RowTermKind::kNorms : RowTermKind::kSquaredNorms;
  // The kernel reads the bound terms of whole tiles from any row or column it starts at.
  constexpr std::int64_t kPad = WorkGrid::kTileRows;
  form.x = round_rows(p.pairwise.x, p.m() + kPad, form.bound, terms, keep, stream);
  bool const self = cudist::detail::same_view(p.pairwise.x, p.pairwise.y);
  form.y = self ? form.x : round_rows(p.pairwise.y, p.n() + kPad, form.bound, terms, keep, stream);
  return form;
}

Array pooled_row_bars(BoundedForm const& form, FusedLaunch const& f, std::int64_t k, cudaStream_t stream) {
  constexpr std::int64_t kRows = WorkGrid::kTileRows;
  SelectProblem const& p = *f.problem;
  Array bars = device_bytes(static_cast<std::size_t>(p.m()) * sizeof(std::uint32_t), stream);
  CUDIST_CUDA_TRY(cudaMemsetAsync(bars.data(), 0xff, bars.bytes(), stream));
  std::int64_t const sample = std::min(kBarSampleRows, p.n() / 8) / kRows * kRows;
  if (k <= 2 || p.problems() != 1 || sample < 8 * kRows) return bars;
  FusedLaunch first = f;  // one chunk per row tile, y's first `sample` rows
  first.grid.single.y_end = first.grid.single.y_begin + sample;
  first.grid.chunks = 1;
  first.blocks = (p.m() + kRows - 1) / kRows;
  first.row_bars = nullptr;
  SelectArgs a = nearest_args(k);
  Array entries = device_bytes(static_cast<std::size_t>(p.m() * k) * sizeof(KeyTraits<float>::Entry), stream);
  a.partial = entries.data();
  a.chunks = 1;
  run_bounded_search(form, first, a, stream);
  launch<KthEntryToBarKernel>(p.m(), KthEntryToBarKernel::kThreads,
                              {static_cast<KeyTraits<float>::Entry const*>(entries.data()), p.m(),
                               static_cast<int>(k), static_cast<std::uint32_t*>(bars.data())},
                              stream);
  return bars;
}

void run_bounded_search(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  if (is_dot(*f.problem)) {
    run_bounded_dot(form, f, a, stream);
  } else {
    run_bounded_l2(form, f, a, stream);
  }
}

}  // namespace cudist::neighbors::detail::cuda
