// Entry point of the CUDA backend for the semiring family: routes a problem to the translation
// unit that holds its element type.
#include "semiring/detail/backend.hpp"
#include "semiring/detail/cuda/product_launch.cuh"

namespace cudist::detail::cuda {

void semiring_product(SemiringProblem const& p, void* stream) {
  if (p.c.rows == 0 || p.c.cols == 0) return;
  auto const s = static_cast<cudaStream_t>(stream);
  switch (p.a.dtype) {
    case DType::kFloat32: return semiring_float(p, s);
    case DType::kFloat64: return semiring_double(p, s);
    case DType::kInt32: return semiring_int32(p, s);
    case DType::kInt16: return semiring_int16(p, s);
    default:
      CUDIST_THROW(InvalidArgument, "semiring_product: no CUDA kernel for " << dtype_name(p.a.dtype));
  }
}

}  // namespace cudist::detail::cuda
