// SpMV/SpMM kernels for double values with std::int32_t indices.
#include "sparse/detail/cuda/spmv_dispatch.cuh"

namespace cudist::sparse::detail::cuda {
CUDIST_SPMV_INSTANTIATION(double, std::int32_t);
}  // namespace cudist::sparse::detail::cuda
