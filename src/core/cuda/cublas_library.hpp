// cuBLAS, loaded at run time where it is installed (libcublas.so.13, else the toolkit cudist was
// built with): the GEMM-based paths use it, and nothing else in cudist, nor its wheels, depends on
// it. Where it cannot be loaded, those paths report that and their callers take another path.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cudist::detail::cuda {

/// Whether cuBLAS is loaded (tried once per process).
bool cublas_available();

/// c (m x n bfloat16, row-major, row stride ldc) = a (m x k bfloat16, row-major, lda) times b
/// (n x k bfloat16, row-major, ldb) transposed, float32 accumulation rounded once to bfloat16, in
/// stream order on the current device. False where cuBLAS is not available; throws CudaError if
/// it fails.
bool gemm_bf16_abt(std::int64_t m, std::int64_t n, std::int64_t k, void const* a, std::int64_t lda, void const* b,
                   std::int64_t ldb, void* c, std::int64_t ldc, cudaStream_t stream);

/// c (m x n float32) = a b^T of float32 rows on the tensor cores in TF32 (the factors rounded to
/// 10-bit significands, float32 accumulation: CUBLAS_COMPUTE_32F_FAST_TF32).
bool gemm_tf32_abt(std::int64_t m, std::int64_t n, std::int64_t k, float const* a, std::int64_t lda, float const* b,
                   std::int64_t ldb, float* c, std::int64_t ldc, cudaStream_t stream);

}  // namespace cudist::detail::cuda
