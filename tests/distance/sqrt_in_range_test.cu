// The pairwise engine's square root for in-range sums (ops.hpp sqrt_in_range) against sqrtf, bit
// for bit, over every float of the range it is used on, [2^-80, FLT_MAX] (1.74e9 values, ~10 ms on
// an H100). The CPU backend takes std::sqrt there, so both backends' euclidean distances agree.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "common/backend.hpp"
#include "common/reduced.hpp"
#include "distance/detail/ops.hpp"

namespace cudist::detail::ops {
namespace {

struct Mismatches {
  unsigned long long count;
  std::uint32_t first;  // the smallest bit pattern that differs
};

__global__ void compare_roots(std::uint32_t begin, std::uint32_t end, std::uint32_t step, Mismatches* out) {
  auto const stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x * step;
  for (std::uint64_t bits = begin + (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * step;
       bits <= end; bits += stride) {
    float const v = __uint_as_float(static_cast<std::uint32_t>(bits));
    if (__float_as_uint(sqrt_in_range(v)) != __float_as_uint(sqrtf(v))) {
      atomicAdd(&out->count, 1ull);
      atomicMin(&out->first, static_cast<std::uint32_t>(bits));
    }
  }
}

std::uint32_t bits_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

TEST(SqrtInRange, MatchesSqrtfOnEveryFloatOfTheRange) {
  CUDIST_REQUIRE_BACKEND();
  // Under compute-sanitizer (reduced): every 997th pattern, still every binade.
  std::uint32_t const step = test::reduced_run() ? 997 : 1;
  Mismatches* found = nullptr;
  ASSERT_EQ(cudaMallocManaged(&found, sizeof *found), cudaSuccess);
  *found = {0, 0xffffffffu};
  compare_roots<<<1024, 256>>>(bits_of(0x1p-80f), bits_of(3.402823466e+38f), step, found);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  Mismatches const m = *found;
  cudaFree(found);
  EXPECT_EQ(m.count, 0u) << "first differing argument: bits 0x" << std::hex << m.first;
}

}  // namespace
}  // namespace cudist::detail::ops
