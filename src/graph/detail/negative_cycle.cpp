// Bellman-Ford with a predecessor-cycle check after each pass (see negative_cycle.hpp): a
// negative cycle shows up in the predecessor graph after a few passes, long before the n - 1
// passes that plain Bellman-Ford needs to prove one exists.
#include "graph/detail/negative_cycle.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>

namespace cudist::detail {
namespace {

/// The smallest vertex on a cycle of the predecessor graph, if it has one.
std::optional<std::size_t> predecessor_cycle(std::vector<std::int64_t> const& parent) {
  std::size_t const m = parent.size();
  std::vector<std::size_t> stamp(m, 0);  // 0: unvisited, s + 1: visited by the walk from s
  for (std::size_t s = 0; s < m; ++s) {
    std::int64_t v = static_cast<std::int64_t>(s);
    while (v >= 0 && stamp[v] == 0) {
      stamp[v] = s + 1;
      v = parent[v];
    }
    if (v < 0 || stamp[v] != s + 1) continue;  // reached a root or an earlier walk
    std::size_t smallest = static_cast<std::size_t>(v);
    for (std::int64_t u = parent[v]; u != v; u = parent[u]) smallest = std::min(smallest, static_cast<std::size_t>(u));
    return smallest;
  }
  return std::nullopt;
}

}  // namespace

std::int64_t vertex_on_negative_cycle(std::vector<std::int64_t> const& candidates,
                                      std::vector<double> const& rows, std::int64_t n, bool directed) {
  std::size_t const m = candidates.size();
  double const inf = std::numeric_limits<double>::infinity();
  auto weight = [&](std::size_t a, std::size_t b) {  // edge candidates[a] -> candidates[b]
    double w = rows[a * n + candidates[b]];
    if (std::isnan(w)) w = inf;
    if (!directed) {
      double const back = rows[b * n + candidates[a]];
      if (back < w) w = back;
    }
    return w;
  };
  for (std::size_t a = 0; a < m; ++a)
    if (weight(a, a) < 0) return candidates[a];  // a negative self-loop

  std::vector<double> dist(m, 0.0);
  std::vector<std::int64_t> parent(m, -1);
  for (std::size_t pass = 0; pass < m; ++pass) {
    bool relaxed = false;
    for (std::size_t a = 0; a < m; ++a) {
      for (std::size_t b = 0; b < m; ++b) {
        if (a == b) continue;
        double const t = dist[a] + weight(a, b);
        if (t < dist[b]) {
          dist[b] = t;
          parent[b] = static_cast<std::int64_t>(a);
          relaxed = true;
        }
      }
    }
    if (!relaxed) break;
    if (auto const v = predecessor_cycle(parent)) return candidates[*v];
  }
  return candidates.front();  // only if rounding hid the cycle: a vertex with a negative walk
}

}  // namespace cudist::detail
