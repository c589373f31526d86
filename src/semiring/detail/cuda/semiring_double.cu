// float64 instantiations of the semiring products (every semiring, with and without witness).
#include "semiring/detail/cuda/product_launch.cuh"

namespace cudist::detail::cuda {

void semiring_double(SemiringProblem const& p, cudaStream_t stream) {
  launch_ring_product<double>(p, {}, stream);
}

}  // namespace cudist::detail::cuda
