// Validation and planning shared by knn, match and radius: the pairwise planner prepares the
// inputs and the op; here its result becomes a selection problem (ranking rules and batch).
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "core/detail/expects.hpp"
#include "core/detail/memory.hpp"
#include "cudist/core/timeline.hpp"
#include "distance/detail/plan.hpp"
#include "neighbors/detail/plan.hpp"

namespace cudist::neighbors::detail {
namespace {

// Keys are packed with 32-bit row and column indices; all ones marks an empty slot.
constexpr std::int64_t kMaxRows = std::numeric_limits<std::int32_t>::max();

void validate_offsets(char const* who, char const* name, std::vector<std::int64_t> const& offsets,
                      std::int64_t rows, char const* matrix) {
  CUDIST_EXPECTS(offsets.front() == 0, who << ": batch." << name << "[0] is " << offsets.front()
                                           << " but must be 0");
  CUDIST_EXPECTS(offsets.back() == rows, who << ": batch." << name << " ends at " << offsets.back()
                                             << " but " << matrix << " has " << rows << " rows");
  for (std::size_t b = 1; b < offsets.size(); ++b) {
    CUDIST_EXPECTS(offsets[b] >= offsets[b - 1], who << ": batch." << name << " decreases at entry "
                                                     << b << " (" << offsets[b - 1] << " > "
                                                     << offsets[b] << ")");
  }
}

}  // namespace

void validate_inputs(char const* who, ConstMatrixView x, ConstMatrixView y, Device device) {
  cudist::detail::validate_distance_inputs(who, x, y, device);
  CUDIST_EXPECTS(x.rows <= kMaxRows && y.rows <= kMaxRows,
                 who << ": at most " << kMaxRows << " rows per input (x has " << x.rows
                     << ", y has " << y.rows << ")");
}

void validate_batch(char const* who, Batch const& batch, std::int64_t m, std::int64_t n) {
  CUDIST_EXPECTS(batch.x_offsets.size() >= 2,
                 who << ": batch.x_offsets has " << batch.x_offsets.size()
                     << " entries; a batch of b problems needs b + 1 >= 2");
  CUDIST_EXPECTS(batch.x_offsets.size() == batch.y_offsets.size(),
                 who << ": batch.x_offsets has " << batch.x_offsets.size()
                     << " entries but batch.y_offsets has " << batch.y_offsets.size());
  validate_offsets(who, "x_offsets", batch.x_offsets, m, "x");
  validate_offsets(who, "y_offsets", batch.y_offsets, n, "y");
}

Batch whole(ConstMatrixView x, ConstMatrixView y) { return {{0, x.rows}, {0, y.rows}}; }

std::int64_t fewest_candidates(Batch const& batch, bool exclude_self) {
  std::int64_t fewest = -1;
  for (std::size_t b = 0; b + 1 < batch.x_offsets.size(); ++b) {
    if (batch.x_offsets[b + 1] == batch.x_offsets[b]) continue;  // no query rows
    std::int64_t const n = batch.y_offsets[b + 1] - batch.y_offsets[b] - (exclude_self ? 1 : 0);
    if (fewest < 0 || n < fewest) fewest = n;
  }
  return fewest;
}

bool streams_database(Resources const& res, ConstMatrixView y, Metric metric, MetricParams const& params) {
  bool const raw_rows = metric == Metric::kEuclidean || metric == Metric::kSqEuclidean ||
                        metric == Metric::kInnerProduct;
  return res.device.is_cuda() && y.dtype == DType::kFloat32 && raw_rows && params.w.empty() &&
         cudist::detail::resolve_memory(y.data, y.memory) == Memory::kHost &&
         static_cast<std::size_t>(y.rows) * static_cast<std::size_t>(y.cols) * sizeof(float) >= kStreamedDatabaseBytes;
}

PlannedSelect plan_select(char const* who, Resources const& res, ConstMatrixView x,
                          ConstMatrixView y, Batch const& batch, Metric metric,
                          MetricParams const& params, bool self, bool exclude_self,
                          bool keep_bfloat16, bool stream_y) {
  cudist::TimelineSpan const span("plan (inputs staged where the device reads them)");
  PlannedSelect planned;
  std::optional<Array> x_stage, y_stage;
  bool const streamed = stream_y && !self && streams_database(res, y, metric, params);
  ConstMatrixView const xs = cudist::detail::staged(x, res.device, res.stream, x_stage);
  if (streamed) y_stage = Array::allocate(y.rows, y.cols, y.dtype, res.device, res.stream);  // written by the search
  ConstMatrixView const ys = self       ? xs
                             : streamed ? y_stage->view()
                                        : cudist::detail::staged(y, res.device, res.stream, y_stage);
  cudist::detail::PlannedPairwise pp = cudist::detail::plan_pairwise(
      res, who, xs, ys, self, MatrixView{}, cudist::detail::OutputLayout::kFull, metric, params,
      keep_bfloat16);
  // streams_database admits only metrics whose planning takes the rows as they are.
  CUDIST_EXPECTS(!streamed || pp.problem.y.data == ys.data, who << ": internal: a streamed database was prepared");

  SelectProblem& sp = planned.problem;
  sp.pairwise = pp.problem;
  sp.rank.similarity = ranks_largest_first(metric);
  // sqrt is monotone: rank on the squares, take the root of the answers only.
  if (sp.pairwise.op.kind == cudist::detail::OpKind::kSqDiffSum && sp.pairwise.op.take_sqrt) {
    sp.pairwise.op.take_sqrt = false;
    sp.rank.sqrt_distance = true;
  }
  sp.rank.exclude_self = exclude_self;
  sp.rank.zero_diagonal = pp.problem.zero_diagonal && !exclude_self;
  sp.pairwise.zero_diagonal = false;
  sp.pairwise.tf32 = false;  // answers are exact: the searches bound their tensor-core candidates
  sp.distance_dtype = distance_output_dtype(x.dtype);
  sp.x_offsets = batch.x_offsets;
  sp.y_offsets = batch.y_offsets;
  if (streamed) sp.y_host = cudist::detail::resolved(y);

  for (auto* stage : {&x_stage, &y_stage}) {
    if (*stage) planned.keep_alive.push_back(std::move(**stage));
  }
  for (Array& t : pp.temporaries) planned.keep_alive.push_back(std::move(t));
  return planned;
}

}  // namespace cudist::neighbors::detail
