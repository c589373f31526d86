// Naming a vertex that lies on a negative cycle, once Floyd-Warshall has shown that one exists.
#pragma once

#include <cstdint>
#include <vector>

namespace cudist::detail {

/// Floyd-Warshall leaves a negative dist[v][v] for every vertex of a negative cycle, but also for
/// vertices that merely reach one and are reached back; every negative cycle lies within those
/// `candidates`. Bellman-Ford from all of them at once (distance 0), over the edges among them,
/// forms a cycle of predecessors, and such a cycle is negative: its smallest vertex is returned.
/// rows: the candidates' rows of the weight matrix (candidates.size() x n, row-major, as given:
/// +inf or NaN for no edge); directed as for apsp.
std::int64_t vertex_on_negative_cycle(std::vector<std::int64_t> const& candidates,
                                      std::vector<double> const& rows, std::int64_t n, bool directed);

}  // namespace cudist::detail
