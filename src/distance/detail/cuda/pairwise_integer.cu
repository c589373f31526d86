// Exact integer instantiations of the pairwise engine: uint8 and int8 inputs with int32 arithmetic
// (sqeuclidean, euclidean, cityblock, chebyshev, inner product) and bit-packed Hamming on
// 32-bit words or single bytes. Squared L2, euclidean and inner product of rows of whole words
// (uint8 or int8) run on the int8 tensor cores where the GPU has them, and Hamming on words on the
// single-bit ones (packed_u8_mma_store.cu), with the same values.
#include <cstdint>

#include "distance/detail/cuda/pairwise_launch.cuh"
#include "distance/detail/dispatch_op.hpp"

namespace cudist::detail::cuda {

void pairwise_integer(PairwiseProblem const& pr, cudaStream_t stream) {
  if (pr.op.kind == OpKind::kXorPopcount) {
    if (pairwise_packed_bits_mma(pr, stream)) return;
    if (pr.x.dtype == DType::kInt32) {
      return launch_for_op<std::uint32_t>(pr, ops::XorPopcountOp<std::uint32_t, float>{}, stream);
    }
    return launch_for_op<std::uint8_t>(pr, ops::XorPopcountOp<std::uint8_t, float>{}, stream);
  }
  if (pairwise_packed_u8_mma(pr, stream)) return;
  with_byte_type(pr.x.dtype, [&](auto elem) {
    dispatch_integer_op(pr.op, [&](auto op) { launch_for_op<decltype(elem)>(pr, op, stream); });
  });
}

}  // namespace cudist::detail::cuda
