// The API layer's shared steps for knn, match and radius: argument checks that name the
// argument, staging of host inputs to the computing device, and planning through the pairwise
// planner (every metric, dtype, weight and preparation) into a SelectProblem.
#pragma once

#include <cstdint>
#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail {

/// Whether knn ranks the metric's values largest first (a similarity: inner_product).
inline bool ranks_largest_first(Metric metric) { return metric == Metric::kInnerProduct; }

/// A problem ready for a backend and the arrays it points into.
struct PlannedSelect {
  SelectProblem problem;
  std::vector<Array> keep_alive;  // staged inputs, prepared inputs, norms, weights
};

/// Views valid as a call on `device` reads them, dtypes equal and supported, columns equal, row
/// counts small enough for the 32-bit indices the selection packs with its keys.
void validate_inputs(char const* who, ConstMatrixView x, ConstMatrixView y, Device device);

/// The batch covers x and y exactly: same length >= 2, starting at 0, non-decreasing, ending at
/// the row counts.
void validate_batch(char const* who, Batch const& batch, std::int64_t m, std::int64_t n);

/// The single problem x against y.
Batch whole(ConstMatrixView x, ConstMatrixView y);

/// Databases (y) in host memory from this size on are streamed by knn on a GPU: below it, the
/// copy that streaming overlaps is short next to the extra launches and the chunks' merge.
constexpr std::size_t kStreamedDatabaseBytes = std::size_t{16} << 20;

/// Whether knn on res.device streams y from host memory while it searches (SelectProblem::y_host):
/// a GPU, float32 rows of at least kStreamedDatabaseBytes in host memory, and a metric whose
/// planning takes the rows as they are (euclidean, sqeuclidean, inner product, unweighted), so
/// that nothing reads them before the search.
bool streams_database(Resources const& res, ConstMatrixView y, Metric metric, MetricParams const& params);

/// Validated inputs -> a problem on res.device, which the caller has made current for the whole
/// call (require_device + ScopedDevice: the backend runs after planning). `self` marks a self-join
/// (y is x). keep_bfloat16: bfloat16 rows that need no preparation stay bfloat16 (plan_pairwise),
/// for a backend that widens them itself where it must (CUDA knn: its GEMM path reads them).
/// stream_y (knn, one problem): where streams_database holds, y's rows are left in host memory
/// for the backend to copy as it searches (SelectProblem::y_host).
PlannedSelect plan_select(char const* who, Resources const& res, ConstMatrixView x,
                          ConstMatrixView y, Batch const& batch, Metric metric,
                          MetricParams const& params, bool self, bool exclude_self,
                          bool keep_bfloat16 = false, bool stream_y = false);

/// Fewest candidates any query row has (the smallest problem's rows of y, minus the point itself
/// when excluding it), over the problems that have query rows; -1 when none has.
std::int64_t fewest_candidates(Batch const& batch, bool exclude_self);

}  // namespace cudist::neighbors::detail
