// The graph-specific steps each backend (cpu, cuda) implements: for blocked Floyd-Warshall (the
// products between blocks are the semiring family's, semiring/detail/backend.hpp) and for the
// sparse graphs' Bellman-Ford from every source (relaxation.hpp).
#pragma once

#include <cstdint>

#include "cudist/core/matrix_view.hpp"

namespace cudist::detail {

/// A graph's edges in the backend's memory, grouped twice: by tail (out-edges: the edges from u
/// are out_targets[out_offsets[u] .. out_offsets[u + 1]), ascending) and by head (in-edges: the
/// edges into v are in_sources[in_offsets[v] .. in_offsets[v + 1]), ascending), each with its
/// weights in the graph's dtype. An undirected graph's two groupings are the same arrays.
template <class Ptr, class Index, class Offset>
struct BasicEdgeLists {
  std::int64_t vertices = 0;
  DType dtype = DType::kFloat32;
  Offset* out_offsets = nullptr;
  Index* out_targets = nullptr;
  Ptr out_weights = nullptr;
  Offset* in_offsets = nullptr;
  Index* in_sources = nullptr;
  Ptr in_weights = nullptr;
};
using EdgeListsView = BasicEdgeLists<void const*, std::int32_t const, std::int64_t const>;
using EdgeListsOut = BasicEdgeLists<void*, std::int32_t, std::int64_t>;

namespace cpu {
/// In place on d (n, n), which holds the weights: NaN becomes +inf; undirected, d[i][j] and
/// d[j][i] both become their minimum; d[i][i] = min(d[i][i], 0). next (or null data):
/// next[i][j] = i if i == j, j if d[i][j] is finite, else -1.
void prepare_graph(MatrixView d, MatrixView next, bool directed);
/// Floyd-Warshall in place on a diagonal block (b, b) and its next hops (or null data).
void close_diagonal_block(MatrixView d, MatrixView next);
/// Over a prepared d (n, n), the edges: d[u][v] finite for u != v, and a negative d[v][v] (a
/// negative cycle). Writes out_offsets[0 .. n] (where each vertex's out-edges start, then the
/// total) and returns the total.
std::int64_t out_edge_offsets(ConstMatrixView d, std::int64_t* out_offsets);
/// With those offsets: every list of `edges` (in-edges too, unless they alias the out-edges).
void gather_edges(ConstMatrixView d, EdgeListsOut edges);
/// Jacobi Bellman-Ford from every source s at once: dist[s][:] and next[s][:] (null data: none).
/// Returns false when some source still improves after n rounds: a negative cycle.
bool bellman_ford_every_source(EdgeListsView edges, MatrixView dist, MatrixView next);
}  // namespace cpu

namespace cuda {
/// As the cpu versions, asynchronous on `stream`; the block is at most kFwBlock wide.
void prepare_graph(MatrixView d, MatrixView next, bool directed, void* stream);
void close_diagonal_block(MatrixView d, MatrixView next, void* stream);
/// As the cpu versions; out_edge_offsets and bellman_ford_every_source synchronize `stream`.
std::int64_t out_edge_offsets(ConstMatrixView d, std::int64_t* out_offsets, void* stream);
void gather_edges(ConstMatrixView d, EdgeListsOut edges, void* stream);
bool bellman_ford_every_source(EdgeListsView edges, MatrixView dist, MatrixView next, void* stream);
}  // namespace cuda

}  // namespace cudist::detail
