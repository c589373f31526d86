// The second step of the fused top-k: the chunks of a row (at most 32) each left their best
// entries sorted; one warp per row merges them, lane c holding chunk c's next entry, k rounds of
// a warp minimum. Writes the caller's (m, k) distances and indices; empty slots (fewer
// candidates than k) become (NaN, -1).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "neighbors/detail/cuda/warp_entries.cuh"
#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail::cuda {

template <class Key>
struct MergeChunksKernel {
  using Traits = KeyTraits<Key>;
  using Entry = typename Traits::Entry;
  using Out = std::conditional_t<std::is_same_v<Key, double>, double, float>;
  static constexpr int kThreads = 256;
  static constexpr int kRowsPerBlock = kThreads / 32;

  struct Params {
    Entry const* partial;  // (m, chunks, per_chunk)
    int chunks;            // <= kMaxChunks (select_policy.hpp): one lane per chunk
    int per_chunk;
    std::int64_t m, k;
    Out* distances;
    std::int64_t ld_distances;
    std::int64_t* indices;
    std::int64_t ld_indices;
    RankSpec spec;
  };

  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const row = block * kRowsPerBlock + tid / 32;
    int const lane = tid % 32;
    if (row >= p.m) return;  // whole warps leave together
    Entry const* mine = p.partial + (row * p.chunks + lane) * p.per_chunk;
    int head = 0;
    Entry next = lane < p.chunks && p.per_chunk > 0 ? mine[0] : Traits::empty();
    for (std::int64_t r = 0; r < p.k; ++r) {
      Entry const best = warp_min(next);
      // Every lane holding it advances: a top-k chunk of a tensor-core search may hold entries
      // of the earlier chunk it started from (chunk_chain.cuh).
      if (best != Traits::empty() && next == best) {
        ++head;
        next = head < p.per_chunk ? mine[head] : Traits::empty();
      }
      if (lane == 0) {
        bool const real = best != Traits::empty();
        p.distances[row * p.ld_distances + r] = real ? distance_of<Out>(Traits::key(best), p.spec)
                                                     : std::numeric_limits<Out>::quiet_NaN();
        p.indices[row * p.ld_indices + r] = Traits::index(best);
      }
    }
  }
};

}  // namespace cudist::neighbors::detail::cuda
