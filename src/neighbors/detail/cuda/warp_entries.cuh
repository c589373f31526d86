// Warp-level building blocks of the selection on (key, index) entries (keys.hpp): shuffles of
// either entry width, a warp-wide minimum, and a bitonic sort of a power-of-two run of entries in
// shared memory by the 32 lanes of one warp.
#pragma once

#include <cstdint>

#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail::cuda {

constexpr unsigned kFullWarp = 0xffffffffu;

__device__ __forceinline__ std::uint64_t shfl_xor(std::uint64_t e, int mask) {
  return __shfl_xor_sync(kFullWarp, e, mask);
}
__device__ __forceinline__ WideEntry shfl_xor(WideEntry e, int mask) {
  return {__shfl_xor_sync(kFullWarp, e.order, mask), __shfl_xor_sync(kFullWarp, e.index, mask)};
}

template <class Entry>
__device__ __forceinline__ Entry min_entry(Entry a, Entry b) {
  return b < a ? b : a;
}

/// The smallest entry over the whole warp, in every lane.
template <class Entry>
__device__ __forceinline__ Entry warp_min(Entry e) {
#pragma unroll
  for (int mask = 16; mask >= 1; mask /= 2) e = min_entry(e, shfl_xor(e, mask));
  return e;
}

/// Sorts a[0, n) ascending, n a power of two, with the 32 lanes of the calling warp (all must
/// call). Every compare-exchange of a stage is independent, so the lanes split them; __syncwarp
/// orders the stages.
template <class Entry>
__device__ void warp_bitonic_sort(Entry* a, int n, int lane) {
  __syncwarp();
  for (int size = 2; size <= n; size *= 2) {
    for (int stride = size / 2; stride > 0; stride /= 2) {
      for (int t = lane; t < n / 2; t += 32) {
        int const lo = 2 * stride * (t / stride) + t % stride;  // the pair (lo, lo + stride)
        bool const ascending = (lo & size) == 0;
        Entry const u = a[lo], v = a[lo + stride];
        if ((v < u) == ascending) {
          a[lo] = v;
          a[lo + stride] = u;
        }
      }
      __syncwarp();
    }
  }
}

}  // namespace cudist::neighbors::detail::cuda
