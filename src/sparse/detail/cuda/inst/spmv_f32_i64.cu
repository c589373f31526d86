// SpMV/SpMM kernels for float values with std::int64_t indices.
#include "sparse/detail/cuda/spmv_dispatch.cuh"

namespace cudist::sparse::detail::cuda {
CUDIST_SPMV_INSTANTIATION(float, std::int64_t);
}  // namespace cudist::sparse::detail::cuda
