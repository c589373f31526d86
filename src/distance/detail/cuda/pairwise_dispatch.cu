// Entry point of the CUDA backend for the pairwise family: routes a planned problem to the
// translation unit that holds its compute type.
#include "distance/detail/backend.hpp"
#include "distance/detail/cuda/pairwise_launch.cuh"
#include "distance/detail/cuda/tf32_pairwise.hpp"

namespace cudist::detail::cuda {

void pairwise(PairwiseProblem const& pr, void* stream) {
  if (pr.window_end() == pr.row_begin || pr.y.rows == 0) return;
  auto const s = static_cast<cudaStream_t>(stream);
  if (tf32_pairwise(pr, s)) return;
  switch (pr.x.dtype) {
    case DType::kFloat32: return pairwise_float(pr, s);
    case DType::kFloat64: return pairwise_double(pr, s);
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kInt32: return pairwise_integer(pr, s);
    default: CUDIST_THROW(InvalidArgument, "pairwise: no CUDA kernel for " << dtype_name(pr.x.dtype));
  }
}

}  // namespace cudist::detail::cuda
