// float32 instantiations of the semiring products (every semiring, with and without witness).
#include "semiring/detail/cuda/product_launch.cuh"

namespace cudist::detail::cuda {

void semiring_float(SemiringProblem const& p, cudaStream_t stream) {
  launch_ring_product<float>(p, {}, stream);
}

}  // namespace cudist::detail::cuda
