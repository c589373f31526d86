// The materialised paths of knn and radius on the GPU (value_blocks.cuh): for k beyond the
// on-chip limit, and for every op without a fused consumer (fused_launch.cuh's kFusedOp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cudist/core/matrix_view.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail::cuda {

/// (m, k) answers into device views, nearest first, padded with (NaN, -1): a stable segmented
/// sort of each block's rows (sorted_knn.cu). Values come from the pairwise engine (float32,
/// float64 for float64 inputs), so uint8 and bit Hamming rank on their exact float32 values.
void sorted_knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
                cudaStream_t stream);

/// Radius search in two passes over the blocks (count, then write in column order), the values
/// computed twice rather than held (materialized_radius.cu).
/// @note Synchronizes once: the number of pairs sizes the result.
RadiusResult radius_from_values(SelectProblem const& p, double r, cudaStream_t stream);

}  // namespace cudist::neighbors::detail::cuda
