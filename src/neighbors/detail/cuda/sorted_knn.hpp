// The sorted second path of knn on the GPU (sorted_knn.cu), for k beyond the on-chip limit.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cudist/core/matrix_view.hpp"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail::cuda {

/// (m, k) answers into device views, nearest first, padded with (NaN, -1). Values come from the
/// pairwise engine (float32, float64 for float64 inputs), so uint8 and bit Hamming rank on their
/// exact float32 values.
void sorted_knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
                cudaStream_t stream);

}  // namespace cudist::neighbors::detail::cuda
