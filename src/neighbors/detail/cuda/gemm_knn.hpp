// knn of inner product and cosine through cuBLAS where the tensor-core search does not reach:
// k beyond what fits on chip, or rows deeper than it holds (ML embeddings: d = 768, k = 100).
// A bfloat16 GEMM of each chunk of y, a filter that reads the chunk once and keeps the pairs
// whose proven bounds (gemm_knn_kernels.cuh) leave them a chance, then the kept pairs' exact
// keys: the answers are the SIMT path's, bit for bit and tie for tie.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

#include "cudist/core/array.hpp"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail::cuda {

/// Whether knn (no mutual-check observer) of p with this k takes the GEMM path: float32 rows
/// (float16 inputs and prepared rows arrive converted) or bfloat16 rows (knn's, not widened:
/// plan_select) of inner product or cosine, one problem, k <= 256
/// and at most the candidates a row has, k above the on-chip limit or rows deeper than the
/// tensor-core search takes, cuBLAS loadable, and CUDIST_SIMT_SELECTION unset.
bool gemm_knn_applies(SelectProblem const& p, std::int64_t k, std::int64_t max_on_chip_k);

/// How the path splits the product of m query rows: rows per block (the lists of one block at a
/// time), columns of y per chunk (one GEMM and one filter each).
struct GemmKnnChunks {
  std::int64_t block_rows, chunk;
};
GemmKnnChunks gemm_knn_chunks(std::int64_t m);

/// knn of a sub-problem into (rows, k) device views by the paths below this one.
using RedoRows = std::function<void(SelectProblem const&, MatrixView, MatrixView)>;

/// Runs it into (m, k) device views. The rows whose kept pairs outgrew their lists (exact ties
/// in number, rows the bound does not cover: a zero query row under inner product, NaN rows) are
/// gathered into a sub-problem for `redo`, their answers scattered into place. False, with the
/// views unspecified, where such rows belong to a self-join (its diagonal rules use the rows'
/// places): the caller then runs the whole call by those paths.
bool gemm_knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices, RedoRows const& redo,
              cudaStream_t stream);

}  // namespace cudist::neighbors::detail::cuda
