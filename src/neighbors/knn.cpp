// API layer of knn, self_knn and knn_batched: validate every argument, plan, run on the backend,
// and hand the result back where the caller wants it. No math here.
#include "cudist/neighbors/knn.hpp"

#include <cstdint>
#include <optional>
#include <vector>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"
#include "core/detail/interrupt_check.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/split.hpp"
#include "core/detail/validate_view.hpp"
#include "cudist/core/timeline.hpp"
#include "distance/detail/plan.hpp"
#include "neighbors/detail/backend.hpp"
#include "neighbors/detail/database_chunks.hpp"
#include "neighbors/detail/plan.hpp"
#include "neighbors/detail/split_select.hpp"

namespace cudist {
namespace {

using neighbors::detail::PlannedSelect;

void validate_k(char const* who, std::int64_t k, Batch const& batch, bool exclude_self, bool pad) {
  CUDIST_EXPECTS(k >= 1, who << ": k = " << k << "; k must be at least 1");
  if (pad) return;
  std::int64_t const fewest = neighbors::detail::fewest_candidates(batch, exclude_self);
  CUDIST_EXPECTS(fewest < 0 || k <= fewest,
                 who << ": k = " << k << " but a query has only " << fewest << " candidate rows of y"
                     << (exclude_self ? " (itself excluded)" : "")
                     << "; set KnnOptions::pad to pad the missing neighbours with index -1");
}

void validate_outputs(char const* who, ConstMatrixView distances, ConstMatrixView indices,
                      std::int64_t m, std::int64_t k, DType input) {
  using cudist::detail::expect_dtype;
  using cudist::detail::expect_shape;
  using cudist::detail::expect_valid_view;
  expect_valid_view(who, "distances", distances);
  expect_valid_view(who, "indices", indices);
  expect_shape(who, "distances", distances, m, k);
  expect_shape(who, "indices", indices, m, k);
  expect_dtype(who, "distances", distances, distance_output_dtype(input));
  expect_dtype(who, "indices", indices, DType::kInt64);
}

void run_knn(char const* who, Resources const& res, ConstMatrixView x, ConstMatrixView y,
             Batch const& batch, std::int64_t k, Metric metric, MatrixView distances,
             MatrixView indices, KnnOptions const& options, bool self, bool exclude_self) {
  validate_k(who, k, batch, exclude_self, options.pad);
  if (x.rows == 0) return;
  require_device(res.device, who);
  cudist::detail::ScopedDevice const device_scope(res.device);
  // A database in host memory beyond the memory budget is streamed in chunks (one problem only:
  // a self-join or a batch is computed whole).
  bool const one_problem = !self && batch.x_offsets.size() == 2;
  std::int64_t const chunk_rows = one_problem ? neighbors::detail::database_chunk_rows(res, y, metric) : 0;
  if (chunk_rows != 0) {
    neighbors::detail::knn_in_database_chunks(who, res, x, y, k, metric, options, distances, indices,
                                              chunk_rows);
    return;
  }
  std::uint64_t const requests = cudist::detail::interrupt_requests();
  // CUDA knn widens bfloat16 rows itself, where its path is not the GEMM path that reads them,
  // and copies a large float32 y from host memory as it searches (plan.hpp, streams_database).
  PlannedSelect planned = neighbors::detail::plan_select(
      who, res, x, y, batch, metric, options.params, self, exclude_self, res.device.is_cuda(), one_problem);
  if (options.rank_values) planned.problem.rank.sqrt_distance = false;
  std::optional<Array> d_stage, i_stage;
  using cudist::detail::staged_output;
  MatrixView const d = staged_output(distances, res.device, res.stream, false, d_stage);
  MatrixView const i = staged_output(indices, res.device, res.stream, false, i_stage);
  if (res.device.is_cuda()) {
    neighbors::detail::cuda::knn(planned.problem, k, d, i, res.stream);
  } else {
    neighbors::detail::cpu::knn(planned.problem, k, d, i);
  }
  // A kernel an interrupt stopped left the answer unfinished: nothing of it reaches the caller.
  if (d_stage && res.device.is_cuda()) cudist::detail::cuda_stream_synchronize(res.stream);
  cudist::detail::throw_if_interrupted(who, requests);
  if (d_stage) copy(d_stage->view(), distances, res.stream);
  if (i_stage) copy(i_stage->view(), indices, res.stream);
}

KnnResult allocate_result(Resources const& res, std::int64_t m, std::int64_t k, DType input) {
  return {Array::allocate(m, k, distance_output_dtype(input), res.device, res.stream),
          Array::allocate(m, k, DType::kInt64, res.device, res.stream)};
}

/// self_knn over a device set: validated here, computed by split_self_knn (the parts do not see
/// the diagonal as one).
KnnResult split_self_knn(char const* who, Resources const& res, ConstMatrixView x, std::int64_t k,
                         Metric metric, KnnOptions const& options, bool exclude_self) {
  cudist::detail::expect_split_params(who, metric, options.params);
  return neighbors::detail::split_self_knn(who, cudist::detail::split_resources(res, who), x, k,
                                           metric, options, exclude_self);
}

/// knn(x, y) over a device set into the caller's views. Where the queries are split, each shard
/// writes its rows straight into outputs in host memory or on a GPU of a peer-linked set (the
/// host round trip of the answer cost 8 ms of a 40 ms call from CuPy on two H100s, run 40);
/// where y is split, outputs in host memory get the merge straight. Other outputs get the answer
/// through one host copy.
void split_knn_into(char const* who, Resources const& res, ConstMatrixView x, ConstMatrixView y,
                    std::int64_t k, Metric metric, KnnOptions const& options, MatrixView distances,
                    MatrixView indices) {
  cudist::detail::expect_split_params(who, metric, options.params);
  std::vector<Resources> const shards = cudist::detail::split_resources(res, who);
  distances = cudist::detail::resolved(distances);
  indices = cudist::detail::resolved(indices);
  bool const self = cudist::detail::same_view(x, y);
  bool const queries = !self && neighbors::detail::splits_queries(shards, x, y, metric);
  if (queries && cudist::detail::writable_by_all(shards, distances) &&
      cudist::detail::writable_by_all(shards, indices)) {
    neighbors::detail::split_knn_queries(who, shards, x, y, k, metric, options, distances, indices);
    return;
  }
  if (!self && distances.memory == Memory::kHost && indices.memory == Memory::kHost) {
    neighbors::detail::split_knn(who, shards, x, y, k, metric, options, distances, indices);
    return;
  }
  KnnResult r;
  if (self) {
    r = neighbors::detail::split_self_knn(who, shards, x, k, metric, options, false);
  } else if (queries) {
    r = allocate_result(Resources(Device::cpu()), x.rows, k, x.dtype);
    neighbors::detail::split_knn_queries(who, shards, x, y, k, metric, options, r.distances.view(),
                                         r.indices.view());
  } else {
    r = neighbors::detail::split_knn(who, shards, x, y, k, metric, options);
  }
  cudist::detail::ScopedDevice const device_scope(res.device);
  copy(r.distances.view(), distances, res.stream);
  copy(r.indices.view(), indices, res.stream);
}

}  // namespace

bool ranks_on_squares(Metric metric, MetricParams const& params) {
  return cudist::detail::takes_root(metric, params.p);
}

void knn(Resources const& res, ConstMatrixView x, ConstMatrixView y, std::int64_t k, Metric metric,
         MatrixView distances, MatrixView indices, KnnOptions const& options) {
  char const* who = "knn";
  cudist::TimelineSpan const span(who);
  neighbors::detail::validate_inputs(who, x, y, res.device);
  validate_outputs(who, distances, indices, x.rows, k, x.dtype);
  if (res.is_split()) {
    validate_k(who, k, neighbors::detail::whole(x, y), false, options.pad);
    split_knn_into(who, res, x, y, k, metric, options, distances, indices);
    return;
  }
  run_knn(who, res, x, y, neighbors::detail::whole(x, y), k, metric, distances, indices, options,
          cudist::detail::same_view(x, y), false);
}

KnnResult knn(Resources const& res, ConstMatrixView x, ConstMatrixView y, std::int64_t k,
              Metric metric, KnnOptions const& options) {
  char const* who = "knn";
  neighbors::detail::validate_inputs(who, x, y, res.device);
  validate_k(who, k, neighbors::detail::whole(x, y), false, options.pad);
  if (res.is_split()) {  // before the result is allocated on the set's first GPU
    cudist::detail::expect_split_params(who, metric, options.params);
    require_device_set(res.devices, who);
  }
  KnnResult r = allocate_result(res, x.rows, k, x.dtype);
  knn(res, x, y, k, metric, r.distances.view(), r.indices.view(), options);
  return r;
}

KnnResult self_knn(Resources const& res, ConstMatrixView x, std::int64_t k, Metric metric,
                   SelfJoin self, KnnOptions const& options) {
  char const* who = "self_knn";
  cudist::TimelineSpan const span(who);
  neighbors::detail::validate_inputs(who, x, x, res.device);
  bool const exclude = self == SelfJoin::kExcludeSelf;
  Batch const batch = neighbors::detail::whole(x, x);
  validate_k(who, k, batch, exclude, options.pad);
  if (res.is_split()) return split_self_knn(who, res, x, k, metric, options, exclude);
  KnnResult r = allocate_result(res, x.rows, k, x.dtype);
  run_knn(who, res, x, x, batch, k, metric, r.distances.view(), r.indices.view(), options, true,
          exclude);
  return r;
}

KnnResult knn_batched(Resources const& res, ConstMatrixView x, ConstMatrixView y, Batch const& batch,
                      std::int64_t k, Metric metric, KnnOptions const& options) {
  char const* who = "knn_batched";
  cudist::TimelineSpan const span(who);
  neighbors::detail::validate_inputs(who, x, y, res.device);
  neighbors::detail::validate_batch(who, batch, x.rows, y.rows);
  validate_k(who, k, batch, false, options.pad);
  if (res.is_split()) {
    cudist::detail::expect_split_params(who, metric, options.params);
    return neighbors::detail::split_knn_batched(who, cudist::detail::split_resources(res, who), x,
                                                y, batch, k, metric, options);
  }
  KnnResult r = allocate_result(res, x.rows, k, x.dtype);
  bool const self = cudist::detail::same_view(x, y) && batch.x_offsets == batch.y_offsets;
  run_knn(who, res, x, y, batch, k, metric, r.distances.view(), r.indices.view(), options, self,
          false);
  return r;
}

}  // namespace cudist
