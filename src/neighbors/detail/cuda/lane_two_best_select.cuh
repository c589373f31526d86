// Consumer for k <= 2 in the tensor-core search (bounded_search_kernel.cuh): each thread keeps, for
// each of its two rows (slots), the best two entries of the columns it owns, in registers; the
// four lanes that share a row merge their pairs every kMergeTiles tiles into the row's bar (its
// k-th entry so far: a pair above it cannot be among the row's best, so a lane's own best two may
// stop short of its own columns' and the row's answer is still in the union), and at the end
// into the answer. Between merges a lane's own k-th entry tightens its bar: the row holds the
// lane's entries, so that entry bounds the row's k-th as well. Entries are compared as (key,
// index): the order of arrival does not matter.
#pragma once

#include <cstdint>
#include <optional>

#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/cuda/fused_select_kernel.cuh"
#include "neighbors/detail/cuda/warp_entries.cuh"

namespace cudist::neighbors::detail::cuda {

template <class Key>
struct LaneTwoBestSelect {
  using Traits = KeyTraits<Key>;
  using Entry = typename Traits::Entry;
  static constexpr int kBoundedMinBlocks = 2;  // registers only: two blocks' tiles fit an SM
  static constexpr bool kTakesEarlierAnswers = false;
  static constexpr int kMaxSeedRank = 1;       // k <= 2: each lane's smallest upper bound
  static constexpr bool kOffersAnyRow = false;  // offer() takes the lane's own slots only
  // Tiles between the quads' merges: a merge is ~80 instructions a warp, 18% of a tile of 32-byte
  // rows (K5, ncu run 146); a lane's own entries tighten its bar in between.
  static constexpr int kMergeTiles = 4;

  struct Params {
    Entry* partial;  // (m, chunks, k): each chunk's best entries per row, nearest first
    int k;           // 1 or 2
    int chunks;
  };
  struct SharedStorage {};

  static std::optional<Params> from(SelectArgs const& a, RankSpec const&) {
    return Params{static_cast<Entry*>(a.partial), a.k, a.chunks};
  }
  static std::size_t dynamic_smem_bytes(Params const&) { return 0; }

  __device__ LaneTwoBestSelect(Params const& p, SharedStorage&, char*, WorkItem const& w, ThreadPlace const& at)
      : p_(p), w_(w), at_(at) {}

  __device__ int k() const { return p_.k; }

  __device__ Key bar(int slot, int) const { return Traits::threshold(slot == 0 ? kth0_ : kth1_); }

  /// The rows' k-th entries: the quad's every kMergeTiles tiles (the count is the same in every
  /// lane, so the merge's shuffles have the whole warp), the lane's own in between.
  __device__ void end_tile() {
    if (++tiles_ == kMergeTiles) {
      tiles_ = 0;
      kth0_ = row_kth(best0_, second0_);
      kth1_ = row_kth(best1_, second1_);
    } else {
      kth0_ = min_entry(kth0_, p_.k == 2 ? second0_ : best0_);
      kth1_ = min_entry(kth1_, p_.k == 2 ? second1_ : best1_);
    }
  }

  __device__ void offer(bool have, int slot, int, Entry e) {
    if (!have) return;
    if (slot == 0) {
      insert_best_two(best0_, second0_, e);
    } else {
      insert_best_two(best1_, second1_, e);
    }
  }

  /// Merges the pairs of the 4 lanes of each row and writes the chunk's answer.
  __device__ void finish() {
    int const g = at_.lane() / 4;
#pragma unroll
    for (int slot = 0; slot < 2; ++slot) {
      Entry b0 = slot == 0 ? best0_ : best1_, b1 = slot == 0 ? second0_ : second1_;
      merge_quad(b0, b1);
      std::int64_t const row = w_.tile.row0 + fragment(2 * at_.warp() + slot, g);
      if (at_.lane() % 4 == 0 && row < w_.tile.row_end) {
        Entry* out = p_.partial + (row * p_.chunks + w_.chunk) * p_.k;
        out[0] = b0;
        if (p_.k == 2) out[1] = b1;
      }
    }
  }

 private:
  /// The best two of the quad's pairs, in every lane of the quad.
  __device__ static void merge_quad(Entry& b0, Entry& b1) {
    merge_best_two(b0, b1, 1);
    merge_best_two(b0, b1, 2);
  }

  __device__ Entry row_kth(Entry b0, Entry b1) const {
    merge_quad(b0, b1);
    return p_.k == 2 ? b1 : b0;
  }

  Params const& p_;
  WorkItem const& w_;
  ThreadPlace const& at_;
  // Slots as named registers: an array indexed by the runtime slot would live in local memory.
  Entry best0_ = Traits::empty(), second0_ = Traits::empty();
  Entry best1_ = Traits::empty(), second1_ = Traits::empty();
  Entry kth0_ = Traits::empty(), kth1_ = Traits::empty();  // bounds of the rows' k-th entries (the bars)
  int tiles_ = 0;  // tiles since the last merge
};

}  // namespace cudist::neighbors::detail::cuda
