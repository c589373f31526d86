// All-pairs shortest paths of a weighted graph, with an optional next-hop matrix from which any
// shortest path can be read, and negative-cycle detection. Sparse graphs (at most n^2 / 32 edges,
// e.g. road networks) run Bellman-Ford from every source at once (n x edges per round, as many
// rounds as the longest shortest path has edges); dense ones blocked Floyd-Warshall (n^3 work),
// whose bulk is the min-plus product of the semiring engine.
//
// A graph is a dense (n, n) weight matrix (weights[i][j] is the edge i -> j; +inf or NaN: no
// edge) or an edge list (sparse::Triplets, e.g. from a Matrix Market file; parallel edges keep
// their smallest weight). Self-loops: dist[i][i] is 0 unless a negative self-loop makes i part of
// a negative cycle.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/core/error.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/sparse/triplets.hpp"

namespace cudist {

/// The graph has a cycle of negative length, so some shortest paths do not exist.
class NegativeCycle : public InvalidArgument {
 public:
  NegativeCycle(std::string const& message, std::int64_t vertex)
      : InvalidArgument(message), vertex_(vertex) {}
  /// A vertex on a negative cycle.
  std::int64_t vertex() const { return vertex_; }

 private:
  std::int64_t vertex_;
};

struct ApspOptions {
  /// false: every edge can be used in both directions; i -- j weighs min(w(i, j), w(j, i)).
  bool directed = true;
  /// (n, n) int32: next[i][j] is the vertex after i on a shortest path from i to j; next[i][i] = i,
  /// -1 where j cannot be reached from i. See apsp_path.
  std::optional<MatrixView> next;
};

/// dist[i][j] = the length of a shortest path from i to j (+inf when there is none).
/// weights, dist: (n, n), float32 or float64 (the same), any row strides, host or device memory;
/// dist must not overlap weights. The computation runs on res.device in the result's dtype.
/// @note Synchronizes res.stream (the negative-cycle check reads the result's diagonal).
/// @throw InvalidArgument naming the argument on a bad shape, dtype or layout.
/// @throw NegativeCycle naming a vertex on a negative cycle; dist and next are then unspecified.
/// @throw OutOfMemory when the n x n result (and next-hop matrix) do not fit in the GPU's free
///        memory, before any work is done.
void apsp(Resources const& res, ConstMatrixView weights, MatrixView dist,
          ApspOptions const& options = {});

/// As above, into a new (n, n) array on res.device.
Array apsp(Resources const& res, ConstMatrixView weights, ApspOptions const& options = {});

/// The same for a graph given as an edge list: vertices 0 .. edges.rows - 1 (edges.rows must
/// equal edges.cols), edge (row[t] -> col[t]) of weight value[t]. dtype: float32 or float64.
Array apsp(Resources const& res, sparse::Triplets const& edges, DType dtype,
           ApspOptions const& options = {});

/// The vertices of the shortest path from `from` to `to` (both included) read from a next-hop
/// matrix (host or device memory); empty when `to` cannot be reached.
/// @throw InvalidArgument for a vertex out of range, or a next matrix that is not (n, n) int32 or
///        does not reach `to` within n steps.
std::vector<std::int64_t> apsp_path(ConstMatrixView next, std::int64_t from, std::int64_t to);

}  // namespace cudist
