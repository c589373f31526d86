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

template <class Entry>
__device__ __forceinline__ Entry max_entry(Entry a, Entry b) {
  return a < b ? b : a;
}

/// Entry e into a sorted pair (b0 <= b1) of best two: an equal entry ranks after those it meets.
template <class Entry>
__device__ __forceinline__ void insert_best_two(Entry& b0, Entry& b1, Entry e) {
  if (e < b0) {
    b1 = b0;
    b0 = e;
  } else if (e < b1) {
    b1 = e;
  }
}

/// The best two of this lane's sorted pair and that of the lane `mask` away, in both lanes.
template <class Entry>
__device__ __forceinline__ void merge_best_two(Entry& b0, Entry& b1, int mask) {
  Entry const o0 = shfl_xor(b0, mask), o1 = shfl_xor(b1, mask);
  Entry const second = min_entry(max_entry(b0, o0), min_entry(b1, o1));  // top two of two pairs
  b0 = min_entry(b0, o0);
  b1 = second;
}

/// Sorts one entry per lane ascending over the warp (lane 0 the smallest): a bitonic network on
/// shuffles, no shared memory and no barrier.
template <class Entry>
__device__ __forceinline__ Entry warp_bitonic_sort_lanes(Entry e, int lane) {
#pragma unroll
  for (int size = 2; size <= 32; size *= 2) {
#pragma unroll
    for (int stride = size / 2; stride > 0; stride /= 2) {
      Entry const other = shfl_xor(e, stride);
      bool const ascending = (lane & size) == 0;  // size 32: the whole warp ascends
      bool const lower = (lane & stride) == 0;    // this lane holds the pair's first place
      e = lower == ascending ? min_entry(e, other) : max_entry(e, other);
    }
  }
  return e;
}

/// Sorts a[0, n) ascending, n a power of two, with the 32 lanes of the calling warp (all must
/// call). n = 32 (the row buffers of k <= 16) runs on shuffles, one entry per lane. Otherwise
/// every compare-exchange of a stage is independent, so the lanes split them; __syncwarp orders
/// the stages. (ncu, K3: the general form with its divisions by the stride was a third of the
/// fused kernel's instructions.)
template <class Entry>
__device__ void warp_bitonic_sort(Entry* a, int n, int lane) {
  __syncwarp();
  if (n == 32) {
    a[lane] = warp_bitonic_sort_lanes(a[lane], lane);
    __syncwarp();
    return;
  }
  for (unsigned size = 2; size <= static_cast<unsigned>(n); size *= 2) {
    for (unsigned stride = size / 2; stride > 0; stride /= 2) {
      for (unsigned t = lane; t < static_cast<unsigned>(n) / 2; t += 32) {
        unsigned const lo = ((t & ~(stride - 1)) << 1) | (t & (stride - 1));  // pair (lo, lo + stride)
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
