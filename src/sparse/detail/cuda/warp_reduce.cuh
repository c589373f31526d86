// Butterfly reductions over aligned groups of lanes, in a fixed order (deterministic results).
#pragma once

namespace cudist::sparse::detail::cuda {

/// Semiring sum over each aligned group of 2^group_log2 lanes; every lane of the warp must
/// call it. All lanes of a group receive the group's sum.
template <class Semiring, class T>
__device__ __forceinline__ T reduce_lane_groups(T v, int group_log2) {
  for (int offset = (1 << group_log2) >> 1; offset > 0; offset >>= 1) {
    v = Semiring::add(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}

}  // namespace cudist::sparse::detail::cuda
