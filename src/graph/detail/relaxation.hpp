// Shortest paths of a sparse graph: Bellman-Ford from every source at once. Floyd-Warshall does
// n^3 work whatever the graph; relaxing the edges from all n sources does n * E per round, and
// the rounds stop once no distance improves (the most edges on any shortest path, plus one). For
// road-like and other sparse graphs (E ~ a few n, a few hundred rounds at most) that is a small
// fraction of n^3, and each source's distances fit in one GPU block's shared memory.
#pragma once

#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"

namespace cudist::detail {

enum class RelaxationOutcome {
  kSolved,         ///< dist (and next) hold the answer
  kTooDense,       ///< Floyd-Warshall is the better algorithm; dist holds the prepared weights
  kNegativeCycle,  ///< some distances never settle; dist is overwritten, next unspecified
};

/// dist (n, n) in res.device's memory holds the weights. Solves the graph in place when it has at
/// most n^2 / kDenseEdgeFraction edges. Synchronizes res.stream.
RelaxationOutcome shortest_paths_by_relaxation(Resources const& res, MatrixView dist, MatrixView next,
                                               bool directed);

/// Graphs with more than n^2 / kDenseEdgeFraction edges go to Floyd-Warshall: even at its worst
/// (n rounds) Bellman-Ford then does n^3 / 32 relaxations, and it issues them at a fraction of the
/// min-plus engine's rate.
constexpr std::int64_t kDenseEdgeFraction = 32;

}  // namespace cudist::detail
