// The independent oracle for all-pairs shortest paths: Dijkstra (binary heap) for non-negative
// weights and Bellman-Ford for negative ones, from every source, on adjacency lists built from
// the weight matrix. float64 throughout; nothing shared with the library.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "reference/pairwise_ref.hpp"

namespace cudist::reference {

struct Graph {
  std::int64_t n = 0;
  std::vector<std::vector<std::pair<std::int64_t, double>>> out;  // (head, weight) per tail

  /// The weight of the lightest edge u -> v (+inf if none); u == v gives 0 unless a negative loop.
  double weight(std::int64_t u, std::int64_t v) const {
    double w = u == v ? 0.0 : std::numeric_limits<double>::infinity();
    for (auto const& [h, x] : out[u])
      if (h == v && x < w) w = x;
    return w;
  }
};

/// weights[i][j] is the edge i -> j (+inf or NaN: none); undirected graphs get both directions.
inline Graph graph_from_weights(Matrix const& weights, bool directed) {
  Graph g{weights.rows, std::vector<std::vector<std::pair<std::int64_t, double>>>(weights.rows)};
  for (std::int64_t i = 0; i < weights.rows; ++i) {
    for (std::int64_t j = 0; j < weights.cols; ++j) {
      double const w = weights(i, j);
      if (std::isnan(w) || std::isinf(w)) continue;
      g.out[i].push_back({j, w});
      if (!directed && i != j) g.out[j].push_back({i, w});
    }
  }
  return g;
}

/// Shortest distances from `source` (non-negative weights).
inline std::vector<double> dijkstra(Graph const& g, std::int64_t source) {
  std::vector<double> dist(g.n, std::numeric_limits<double>::infinity());
  using Item = std::pair<double, std::int64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  dist[source] = 0;
  heap.push({0.0, source});
  while (!heap.empty()) {
    auto const [d, u] = heap.top();
    heap.pop();
    if (d > dist[u]) continue;
    for (auto const& [v, w] : g.out[u]) {
      if (d + w < dist[v]) {
        dist[v] = d + w;
        heap.push({dist[v], v});
      }
    }
  }
  return dist;
}

/// Shortest distances from `source`; nullopt when a negative cycle is reachable from it.
inline std::optional<std::vector<double>> bellman_ford(Graph const& g, std::int64_t source) {
  std::vector<double> dist(g.n, std::numeric_limits<double>::infinity());
  dist[source] = 0;
  for (std::int64_t pass = 0; pass <= g.n; ++pass) {
    bool changed = false;
    for (std::int64_t u = 0; u < g.n; ++u) {
      if (std::isinf(dist[u])) continue;
      for (auto const& [v, w] : g.out[u]) {
        if (dist[u] + w < dist[v]) {
          dist[v] = dist[u] + w;
          changed = true;
        }
      }
    }
    if (!changed) return dist;
  }
  return std::nullopt;
}

}  // namespace cudist::reference
