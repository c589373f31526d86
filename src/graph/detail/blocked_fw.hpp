// Blocked Floyd-Warshall, written once for both backends: the diagonal block's closure by the
// backend, and the row panel, column panel and remaining matrix as min-plus products.
#pragma once

#include <cstdint>

#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"

namespace cudist::detail {

/// Vertices per Floyd-Warshall block: one 128 x 128 output tile of the GPU product engine, so a
/// round's panels are one tile high or wide.
constexpr std::int64_t kFwBlock = 128;

/// dist (n, n) in res.device's memory holds the weights; on return it holds the shortest-path
/// lengths, and next (when its data is not null; (n, n) int32) the next hops. Negative cycles
/// leave a negative diagonal (the caller checks). Asynchronous on res.stream for CUDA.
void blocked_floyd_warshall(Resources const& res, MatrixView dist, MatrixView next, bool directed);

/// Bytes of device scratch blocked_floyd_warshall allocates for an n-vertex graph.
std::int64_t blocked_floyd_warshall_scratch_bytes(std::int64_t n, DType dtype, bool with_next);

}  // namespace cudist::detail
