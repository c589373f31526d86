// The vertices set in a bitmask, handed out a lane each across the block's warps. A search's
// wavefront is a few hundred vertices of thousands, and on a graph numbered by geography they
// come in runs of neighbouring numbers: a thread per vertex (or per mask word) leaves most lanes
// idle and gives a few threads long serial chains of edge loads. Here warp w takes the words w,
// w + W, w + 2W, ... (W warps), so a run spreads over many warps, and each warp ranks its words'
// set bits and gives each one a lane, 32 at a time.
#pragma once

namespace cudist::detail::cuda {

constexpr unsigned kFullWarp = 0xffffffffu;

/// The position of the n-th (from 0) set bit of `bits`, which has more than n set bits.
__device__ inline int nth_set_bit(unsigned bits, int n) {
  int position = 0;
  for (int width = 16; width > 0; width /= 2) {
    int const low = __popc(bits & ((1u << width) - 1u));
    if (n >= low) {
      n -= low;
      bits >>= width;
      position += width;
    }
  }
  return position;
}

/// Calls visit(v) for every v set in mask[0 .. words) (32 vertices a word), once each, on some
/// lane of the block; the whole block must call it. kClear: each word is zeroed by the warp that
/// read it, after its vertices' visits, so no other thread may still read the mask meanwhile.
template <bool kClear, class Visit>
__device__ void for_each_marked(unsigned* mask, int words, Visit&& visit) {
  int const lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int first = 0; warp + first * warps < words; first += 32) {
    int const word = warp + (first + lane) * warps;  // this lane's word of the warp's next 32
    unsigned const bits = word < words ? mask[word] : 0u;
    int const count = __popc(bits);
    int through = count;  // set bits in the words of lanes 0 .. lane
    for (int d = 1; d < 32; d *= 2) {
      int const below = __shfl_up_sync(kFullWarp, through, d);
      if (lane >= d) through += below;
    }
    int const total = __shfl_sync(kFullWarp, through, 31);
    for (int base = 0; base < total; base += 32) {
      int const rank = base + lane;
      int owner = 0;  // the first lane whose words hold more than `rank` set bits
      for (int step = 16; step > 0; step /= 2) {
        if (__shfl_sync(kFullWarp, through, owner + step - 1) <= rank) owner += step;
      }
      unsigned const owner_bits = __shfl_sync(kFullWarp, bits, owner);
      int const owner_before = __shfl_sync(kFullWarp, through - count, owner);
      if (rank < total) visit((warp + (first + owner) * warps) * 32 + nth_set_bit(owner_bits, rank - owner_before));
    }
    if (kClear && bits != 0u) mask[word] = 0u;
  }
}

}  // namespace cudist::detail::cuda
