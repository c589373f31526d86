// The graph-specific steps each backend (cpu, cuda) implements for blocked Floyd-Warshall; the
// products between blocks are the semiring family's (semiring/detail/backend.hpp).
#pragma once

#include "cudist/core/matrix_view.hpp"

namespace cudist::detail {

namespace cpu {
/// In place on d (n, n), which holds the weights: NaN becomes +inf; undirected, d[i][j] and
/// d[j][i] both become their minimum; d[i][i] = min(d[i][i], 0). next (or null data):
/// next[i][j] = i if i == j, j if d[i][j] is finite, else -1.
void prepare_graph(MatrixView d, MatrixView next, bool directed);
/// Floyd-Warshall in place on a diagonal block (b, b) and its next hops (or null data).
void close_diagonal_block(MatrixView d, MatrixView next);
}  // namespace cpu

namespace cuda {
/// As the cpu versions, asynchronous on `stream`; the block is at most kFwBlock wide.
void prepare_graph(MatrixView d, MatrixView next, bool directed, void* stream);
void close_diagonal_block(MatrixView d, MatrixView next, void* stream);
}  // namespace cuda

}  // namespace cudist::detail
