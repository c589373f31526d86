// API layer of all-pairs shortest paths: validate, check that the result fits the device, bring
// the weights into the result's memory on the computing device, run Bellman-Ford from every source
// (sparse graphs) or blocked Floyd-Warshall (dense ones, and to name a vertex on a negative
// cycle), check the diagonal for negative cycles, and hand the result back. No math here.
#include "cudist/graph/apsp.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"
#include "core/detail/interrupt_check.hpp"
#include "core/detail/split.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/validate_view.hpp"
#include "cudist/core/memory_budget.hpp"
#include "cudist/core/timeline.hpp"
#include "graph/detail/blocked_fw.hpp"
#include "graph/detail/negative_cycle.hpp"
#include "graph/detail/relaxation.hpp"

namespace cudist {
namespace {

constexpr char const* kWho = "apsp";

void validate_weights(ConstMatrixView weights) {
  detail::expect_valid_view(kWho, "weights", weights);
  CUDIST_EXPECTS(weights.rows == weights.cols, kWho << ": weights is (" << weights.rows << ", "
                                                    << weights.cols << "); it must be square");
  CUDIST_EXPECTS(weights.dtype == DType::kFloat32 || weights.dtype == DType::kFloat64,
                 kWho << ": weights is " << dtype_name(weights.dtype)
                      << ", which is not supported (use float32 or float64)");
}

void validate(ConstMatrixView weights, MatrixView dist, ApspOptions const& options) {
  validate_weights(weights);
  detail::expect_valid_view(kWho, "dist", dist);
  detail::expect_dtype(kWho, "dist", dist, weights.dtype);
  detail::expect_shape(kWho, "dist", dist, weights.rows, weights.rows);
  CUDIST_EXPECTS(!detail::views_overlap(dist, weights), kWho << ": dist overlaps weights");
  if (!options.next) return;
  MatrixView const next = *options.next;
  detail::expect_valid_view(kWho, "next", next);
  detail::expect_dtype(kWho, "next", next, DType::kInt32);
  detail::expect_shape(kWho, "next", next, weights.rows, weights.rows);
  CUDIST_EXPECTS(!detail::views_overlap(next, weights) && !detail::views_overlap(next, dist),
                 kWho << ": next overlaps weights or dist");
}

/// Refuses, before any allocation, a graph whose working set does not fit the GPU's free memory.
void expect_fits_device(Device device, std::int64_t n, DType dtype, bool dist_on_device, bool with_next,
                        bool next_on_device) {
  double const matrix = double(n) * double(n);
  double const need = (dist_on_device ? 0.0 : matrix * double(size_of(dtype))) +
                      (with_next && !next_on_device ? matrix * 4.0 : 0.0) +
                      double(detail::blocked_floyd_warshall_scratch_bytes(n, dtype, with_next));
  std::ostringstream what;
  what << "a " << n << "-vertex graph (its " << n << " x " << n << " " << dtype_name(dtype) << " distances"
       << (with_next ? " and int32 next hops" : "") << ")";
  expect_memory_available(device, need, kWho, what.str());
}

/// Throws NegativeCycle when the diagonal of dist (backend memory) has a negative entry.
void expect_no_negative_cycle(Resources const& res, ConstMatrixView weights, ConstMatrixView dist,
                              bool directed) {
  std::int64_t const n = dist.rows;
  ConstMatrixView const diagonal(dist.data, n, 1, dist.stride + 1, dist.dtype, dist.memory);
  Array const diag = Array::copy_of(diagonal, Device::cpu(), res.stream);  // synchronizes
  std::vector<std::int64_t> candidates;
  for (std::int64_t v = 0; v < n; ++v) {
    double const d = dist.dtype == DType::kFloat64 ? diag.data_as<double>()[v] : diag.data_as<float>()[v];
    if (d < 0) candidates.push_back(v);
  }
  if (candidates.empty()) return;
  std::vector<double> rows(candidates.size() * static_cast<std::size_t>(n));
  Array row = Array::allocate(1, n, weights.dtype, Device::cpu());
  std::size_t const esize = size_of(weights.dtype);
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    ConstMatrixView const src(static_cast<char const*>(weights.data) + candidates[c] * weights.stride * esize,
                              1, n, n, weights.dtype, weights.memory);
    copy(src, row.view(), res.stream);
    for (std::int64_t j = 0; j < n; ++j) {
      rows[c * n + j] = weights.dtype == DType::kFloat64 ? row.data_as<double>()[j] : row.data_as<float>()[j];
    }
  }
  std::int64_t const v = detail::vertex_on_negative_cycle(candidates, rows, n, directed);
  std::ostringstream message;
  message << kWho << ": the graph has a negative cycle through vertex " << v
          << ", so shortest paths are not defined";
  throw NegativeCycle(message.str(), v);
}

}  // namespace

void apsp(Resources const& res, ConstMatrixView weights, MatrixView dist, ApspOptions const& options) {
  cudist::TimelineSpan const span(kWho);
  validate(weights, dist, options);
  std::int64_t const n = weights.rows;
  if (n == 0) return;
  cudist::detail::expect_one_device(kWho, res);
  require_device(res.device, kWho);
  detail::ScopedDevice const device_scope(res.device);
  std::uint64_t const requests = detail::interrupt_requests();
  MatrixView const dist_r = detail::resolved(dist);
  std::optional<MatrixView> const next_r =
      options.next ? std::optional<MatrixView>(detail::resolved(*options.next)) : std::nullopt;
  if (res.device.is_cuda()) {
    expect_fits_device(res.device, n, weights.dtype, dist_r.memory == Memory::kDevice, next_r.has_value(),
                       next_r && next_r->memory == Memory::kDevice);
  }

  std::optional<Array> dist_storage, next_storage;
  MatrixView const d = detail::staged_output(dist_r, res.device, res.stream, false, dist_storage);
  MatrixView const next =
      next_r ? detail::staged_output(*next_r, res.device, res.stream, false, next_storage) : MatrixView{};
  copy(weights, d, res.stream);
  switch (detail::shortest_paths_by_relaxation(res, d, next, options.directed)) {
    case detail::RelaxationOutcome::kSolved: break;
    case detail::RelaxationOutcome::kNegativeCycle:
      // Floyd-Warshall's negative diagonal names a vertex on the cycle for the error below.
      copy(weights, d, res.stream);
      [[fallthrough]];
    case detail::RelaxationOutcome::kTooDense: detail::blocked_floyd_warshall(res, d, next, options.directed);
  }
  // The steps stop between kernels when interrupted; one requested during the last ones too.
  if (res.device.is_cuda()) detail::cuda_stream_synchronize(res.stream);
  detail::throw_if_interrupted(kWho, requests);
  expect_no_negative_cycle(res, detail::resolved(weights), d, options.directed);
  if (dist_storage) copy(d, dist_r, res.stream);
  if (next_storage) copy(next, *next_r, res.stream);
  if (res.device.is_cuda()) detail::cuda_stream_synchronize(res.stream);
}

Array apsp(Resources const& res, ConstMatrixView weights, ApspOptions const& options) {
  validate_weights(weights);
  if (res.device.is_cuda()) {  // refuse before allocating the result
    cudist::detail::expect_one_device(kWho, res);
    require_device(res.device, kWho);
    detail::ScopedDevice const device_scope(res.device);
    bool const next_on_device = options.next && detail::resolved(*options.next).memory == Memory::kDevice;
    expect_fits_device(res.device, weights.rows, weights.dtype, false, options.next.has_value(), next_on_device);
  }
  Array dist = Array::allocate(weights.rows, weights.cols, weights.dtype, res.device, res.stream);
  apsp(res, weights, dist.view(), options);
  return dist;
}

Array apsp(Resources const& res, sparse::Triplets const& edges, DType dtype, ApspOptions const& options) {
  CUDIST_EXPECTS(edges.rows == edges.cols, kWho << ": the edge list is " << edges.rows << " x "
                                                << edges.cols << "; a graph's must be square");
  CUDIST_EXPECTS(dtype == DType::kFloat32 || dtype == DType::kFloat64,
                 kWho << ": dtype " << dtype_name(dtype) << " is not supported (use float32 or float64)");
  Array const weights = sparse::to_dense(edges, dtype, std::numeric_limits<double>::infinity(),
                                         sparse::Duplicates::kMin);
  return apsp(res, weights, options);
}

}  // namespace cudist
