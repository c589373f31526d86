// Candidates of a warp gathered in shared memory and offered to the consumer 32 at a time, for
// consumers whose offer takes any of the warp's rows from any lane (RowBufferSelect:
// kOffersAnyRow). A tensor-core search finds a few candidates per lane and half-tile; offering
// each as it is found runs the consumer's warp-collective offer (votes, the exact test against
// the row's k-th entry, the append, the overflow check) once per candidate of the busiest lane,
// mostly with one or two lanes active. Queued, the same work runs once per 32 candidates with
// every lane busy (docs/tuning.md, K3).
//
// Delaying an offer is safe: the consumer tests each entry exactly against its row's k-th entry
// when it is offered, and its bars only tighten, so a queued candidate is at worst dropped late.
// The queue is a stack: the newest 32 go first, in no particular column order, which the exact
// (key, index) comparison does not need.
#pragma once

#include <cstdint>

#include "neighbors/detail/cuda/fused_select_kernel.cuh"

namespace cudist::neighbors::detail::cuda {

template <class Select, int kWarps>
struct WarpOfferQueue {
  using Entry = typename Select::Entry;
  static constexpr int kCapacity = 64;  // below 32 between pushes, and one push adds at most 32

  struct Storage {
    Entry entry[kWarps][kCapacity];
    std::uint8_t row[kWarps][kCapacity];  // the block's local row (< 128) of each entry
  };

  __device__ WarpOfferQueue(Storage& s, int warp, int lane)
      : entry_(s.entry[warp]), row_(s.row[warp]), lane_(lane) {}

  /// Queues entry e of local row r where `have` (the lane's slot does not matter to such a
  /// consumer); offers the newest 32 once 32 are queued. Every lane of the warp calls.
  __device__ void push(Select& select, bool have, int /*slot*/, int r, Entry e) {
    unsigned const ballot = __ballot_sync(kFullWarp, have);
    if (have) {
      int const at = queued_ + __popc(ballot & ((1u << lane_) - 1));
      entry_[at] = e;
      row_[at] = static_cast<std::uint8_t>(r);
    }
    queued_ += __popc(ballot);
    if (queued_ >= 32) {
      queued_ -= 32;
      offer(select, queued_, true);
    }
  }

  /// Offers what is queued (fewer than 32). Every lane calls.
  __device__ void flush(Select& select) {
    offer(select, 0, lane_ < queued_);
    queued_ = 0;
  }

 private:
  /// Lane i offers entry first + i where `have`.
  __device__ void offer(Select& select, int first, bool have) {
    __syncwarp();  // the pushes' stores are visible
    int const at = first + lane_;
    Entry const e = have ? entry_[at] : Select::Traits::empty();
    int const r = have ? row_[at] : 0;
    __syncwarp();  // read before the next push overwrites these places
    select.offer(have, 0, r, e);
  }

  Entry* entry_;
  std::uint8_t* row_;
  int lane_;
  int queued_ = 0;  // warp-uniform
};

}  // namespace cudist::neighbors::detail::cuda
