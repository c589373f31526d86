// Precision::kTf32 of cdist / pdist on the GPU (tf32_pairwise.cu).
#pragma once

#include <cuda_runtime.h>

#include "distance/detail/problem.hpp"

namespace cudist::detail::cuda {

/// Computes pr with a TF32 GEMM and an exact recomputation of the entries its bound may not hold,
/// and returns true; false where it does not apply (tf32 not asked for, not float32, not
/// sqeuclidean / euclidean (and what reduces to them) / inner product / cosine, or no cuBLAS) or
/// its scratch memory does not fit: then the exact path computes every entry (the output may hold
/// an unfinished GEMM product until it does).
bool tf32_pairwise(PairwiseProblem const& pr, cudaStream_t stream);

}  // namespace cudist::detail::cuda
