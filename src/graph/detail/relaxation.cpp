#include "graph/detail/relaxation.hpp"

#include <cstdint>

#include "cudist/core/array.hpp"
#include "graph/detail/backend.hpp"

namespace cudist::detail {

RelaxationOutcome shortest_paths_by_relaxation(Resources const& res, MatrixView dist, MatrixView next,
                                               bool directed) {
  std::int64_t const n = dist.rows;
  bool const gpu = res.device.is_cuda();
  // NaN -> +inf, undirected edges symmetric, zero diagonal unless negative; Floyd-Warshall's
  // preparation, which it repeats harmlessly when this returns kTooDense.
  if (gpu) {
    cuda::prepare_graph(dist, MatrixView{}, directed, res.stream);
  } else {
    cpu::prepare_graph(dist, MatrixView{}, directed);
  }
  auto allocate = [&](std::int64_t count, DType dtype) { return Array::allocate(1, count, dtype, res.device, res.stream); };
  Array out_offsets = allocate(n + 1, DType::kInt64);
  std::int64_t const edges = gpu ? cuda::out_edge_offsets(dist, out_offsets.data_as<std::int64_t>(), res.stream)
                                 : cpu::out_edge_offsets(dist, out_offsets.data_as<std::int64_t>());
  if (edges > n * n / kDenseEdgeFraction) return RelaxationOutcome::kTooDense;

  Array out_targets = allocate(edges, DType::kInt32), out_weights = allocate(edges, dist.dtype);
  Array in_offsets, in_sources, in_weights;  // an undirected graph's in-edges are its out-edges
  if (directed) {
    in_offsets = allocate(n + 1, DType::kInt64);
    in_sources = allocate(edges, DType::kInt32);
    in_weights = allocate(edges, dist.dtype);
  }
  EdgeListsOut out;
  out.vertices = n;
  out.dtype = dist.dtype;
  out.out_offsets = out_offsets.data_as<std::int64_t>();
  out.out_targets = out_targets.data_as<std::int32_t>();
  out.out_weights = out_weights.data();
  out.in_offsets = directed ? in_offsets.data_as<std::int64_t>() : out.out_offsets;
  out.in_sources = directed ? in_sources.data_as<std::int32_t>() : out.out_targets;
  out.in_weights = directed ? in_weights.data() : out.out_weights;
  EdgeListsView const view{n, out.dtype, out.out_offsets, out.out_targets, out.out_weights,
                           out.in_offsets, out.in_sources, out.in_weights};
  bool settled = false;
  if (gpu) {
    cuda::gather_edges(dist, out, res.stream);
    settled = cuda::bellman_ford_every_source(view, dist, next, res.stream);
  } else {
    cpu::gather_edges(dist, out);
    settled = cpu::bellman_ford_every_source(view, dist, next);
  }
  return settled ? RelaxationOutcome::kSolved : RelaxationOutcome::kNegativeCycle;
}

}  // namespace cudist::detail
