// The graph-specific steps each backend (cpu, cuda) implements: for blocked Floyd-Warshall (the
// products between blocks are the semiring family's, semiring/detail/backend.hpp) and for the
// sparse graphs' Bellman-Ford from every source (relaxation.hpp).
#pragma once

#include <cstdint>

#include "cudist/core/matrix_view.hpp"

namespace cudist::detail {

/// A graph's edges grouped by head vertex, in the backend's memory: the edges into v are
/// sources[offsets[v] .. offsets[v + 1]) (ascending) with their weights (d's dtype).
struct InEdgesView {
  std::int64_t vertices = 0;
  std::int64_t const* offsets = nullptr;  // vertices + 1
  std::int32_t const* sources = nullptr;
  void const* weights = nullptr;
  DType dtype = DType::kFloat32;
};

/// The mutable form, for filling.
struct InEdgesOut {
  std::int64_t* offsets = nullptr;
  std::int32_t* sources = nullptr;
  void* weights = nullptr;
};

namespace cpu {
/// In place on d (n, n), which holds the weights: NaN becomes +inf; undirected, d[i][j] and
/// d[j][i] both become their minimum; d[i][i] = min(d[i][i], 0). next (or null data):
/// next[i][j] = i if i == j, j if d[i][j] is finite, else -1.
void prepare_graph(MatrixView d, MatrixView next, bool directed);
/// Floyd-Warshall in place on a diagonal block (b, b) and its next hops (or null data).
void close_diagonal_block(MatrixView d, MatrixView next);
/// Over a prepared d (n, n), the edges into each vertex v: d[u][v] finite for u != v, and a
/// negative d[v][v] (a negative cycle). Writes offsets[0 .. n] (where each vertex's edges start,
/// then the total) and returns the total.
std::int64_t in_edge_offsets(ConstMatrixView d, std::int64_t* offsets);
/// With those offsets: the edges' sources (ascending per vertex) and weights.
void gather_in_edges(ConstMatrixView d, InEdgesOut edges);
/// Jacobi Bellman-Ford from every source s at once: dist[s][:] and next[s][:] (null data: none).
/// Returns false when some source still improves after n rounds: a negative cycle.
bool bellman_ford_every_source(InEdgesView edges, MatrixView dist, MatrixView next);
}  // namespace cpu

namespace cuda {
/// As the cpu versions, asynchronous on `stream`; the block is at most kFwBlock wide.
void prepare_graph(MatrixView d, MatrixView next, bool directed, void* stream);
void close_diagonal_block(MatrixView d, MatrixView next, void* stream);
/// As the cpu versions; in_edge_offsets and bellman_ford_every_source synchronize `stream`.
std::int64_t in_edge_offsets(ConstMatrixView d, std::int64_t* offsets, void* stream);
void gather_in_edges(ConstMatrixView d, InEdgesOut edges, void* stream);
bool bellman_ford_every_source(InEdgesView edges, MatrixView dist, MatrixView next, void* stream);
}  // namespace cuda

}  // namespace cudist::detail
