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
  Array offsets = Array::allocate(1, n + 1, DType::kInt64, res.device, res.stream);
  std::int64_t* const starts = offsets.data_as<std::int64_t>();
  std::int64_t const edges = gpu ? cuda::in_edge_offsets(dist, starts, res.stream) : cpu::in_edge_offsets(dist, starts);
  if (edges > n * n / kDenseEdgeFraction) return RelaxationOutcome::kTooDense;

  Array sources = Array::allocate(1, edges, DType::kInt32, res.device, res.stream);
  Array weights = Array::allocate(1, edges, dist.dtype, res.device, res.stream);
  InEdgesOut const out{starts, sources.data_as<std::int32_t>(), weights.data()};
  InEdgesView const in{n, starts, sources.data_as<std::int32_t>(), weights.data(), dist.dtype};
  bool settled = false;
  if (gpu) {
    cuda::gather_in_edges(dist, out, res.stream);
    settled = cuda::bellman_ford_every_source(in, dist, next, res.stream);
  } else {
    cpu::gather_in_edges(dist, out);
    settled = cpu::bellman_ford_every_source(in, dist, next);
  }
  return settled ? RelaxationOutcome::kSolved : RelaxationOutcome::kNegativeCycle;
}

}  // namespace cudist::detail
