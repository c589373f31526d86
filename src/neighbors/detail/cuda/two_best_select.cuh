// Consumer for k <= 2 (2-NN for the ratio test, 1-NN): every thread keeps, for each of its 8
// rows, the best two entries of the columns it has seen. A thread sees its columns in increasing
// order (within a tile and from tile to tile), so a later candidate with an equal key never
// displaces an earlier one and a strict comparison is the whole tie rule. The hot loop is one
// compare per element against a threshold; the 16 lanes of a row merge their pairs at the end.
#pragma once

#include <cstdint>
#include <optional>

#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/cuda/fused_select_kernel.cuh"

namespace cudist::neighbors::detail::cuda {

template <class Key>
struct TwoBestSelect {
  using Traits = KeyTraits<Key>;
  using Entry = typename Traits::Entry;
  static constexpr int kThreads = 256;

  struct Params {
    Entry* partial;  // (m, chunks, k): each chunk's best entries per row, nearest first
    int k;           // 1 or 2
    int chunks;
  };

  struct SharedStorage {
    Entry best[8][2][kThreads];  // (row i, rank, thread): a thread's own best two per row
    Key threshold[8][kThreads];  // key of its k-th best, or open(): the hot filter
  };

  static std::optional<Params> from(SelectArgs const& a, RankSpec const&) {
    return Params{static_cast<Entry*>(a.partial), a.k, a.chunks};
  }
  static std::size_t dynamic_smem_bytes(Params const&) { return 0; }

  __device__ TwoBestSelect(Params const& p, SharedStorage& s, char*, WorkItem const& w,
                           ThreadPlace const& at)
      : p_(p), s_(s), w_(w), at_(at) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      s_.best[i][0][at_.tid()] = Traits::empty();
      s_.best[i][1][at_.tid()] = Traits::empty();
      s_.threshold[i][at_.tid()] = Traits::open();
    }
  }

  __device__ void consume(TileKeys<Key> const& keys) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      Key t = s_.threshold[i][at_.tid()];
      bool any = false;
#pragma unroll
      for (int j = 0; j < 8; ++j) any |= Traits::may_enter(keys.key[i][j], t);
      if (!any) continue;  // the common case once the row has candidates
      Entry b0 = s_.best[i][0][at_.tid()], b1 = s_.best[i][1][at_.tid()];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        if (!(keys.is_valid(i, j) && Traits::may_enter(keys.key[i][j], t))) continue;
        auto const col = static_cast<std::uint32_t>(keys.col0 + fragment(at_.tx(), j) - w_.tile.y_begin);
        insert_best_two(b0, b1, Traits::entry(keys.key[i][j], col));
        t = Traits::threshold(p_.k == 2 ? b1 : b0);  // the row's later columns meet the new bar
      }
      s_.best[i][0][at_.tid()] = b0;
      s_.best[i][1][at_.tid()] = b1;
      s_.threshold[i][at_.tid()] = t;
    }
  }

  /// Merges the 16 lanes' pairs of each row (butterfly within the half-warp) and writes the
  /// chunk's answer.
  __device__ void finish() {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      Entry b0 = s_.best[i][0][at_.tid()], b1 = s_.best[i][1][at_.tid()];
#pragma unroll
      for (int mask = 8; mask >= 1; mask /= 2) merge_best_two(b0, b1, mask);
      std::int64_t const row = w_.tile.row0 + fragment(at_.ty(), i);
      if (at_.tx() == 0 && row < w_.tile.row_end) {
        Entry* out = p_.partial + (row * p_.chunks + w_.chunk) * p_.k;
        out[0] = b0;
        if (p_.k == 2) out[1] = b1;
      }
    }
  }

 private:
  Params const& p_;
  SharedStorage& s_;
  WorkItem const& w_;
  ThreadPlace const& at_;
};

}  // namespace cudist::neighbors::detail::cuda
