// Consumer for 3 <= k <= the on-chip limit: each row of the block has a buffer of `capacity`
// entries in shared memory, owned by the warp that holds the row (so no block barrier). The hot
// loop compares each key with its row's threshold (the k-th best after the last compaction);
// a candidate that may enter is appended with a shared-memory atomic. When a row's buffer
// overflows, its warp compacts it: bitonic sort, keep the best k, and the new k-th entry becomes
// the threshold; the candidates that did not fit are then tested exactly and appended again.
//
// Ties: within a chunk the tiles come in increasing column order, so a later tile's key equal to
// the threshold ranks after the k-th entry and the strict hot filter is exact; candidates of the
// tile being compacted are retried with the exact (key, index) comparison.
#pragma once

#include <cstdint>
#include <optional>

#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/cuda/fused_select_kernel.cuh"

namespace cudist::neighbors::detail::cuda {

template <class Key>
struct RowBufferSelect {
  using Traits = KeyTraits<Key>;
  using Entry = typename Traits::Entry;
  static constexpr int kRows = 128;

  struct Params {
    Entry* partial;  // (m, chunks, k): each chunk's best k per row, nearest first
    int k;
    int capacity;    // entries per row buffer: a power of two, at least 2 k and 32
    int chunks;
  };

  struct SharedStorage {
    Entry kth[kRows];      // k-th best entry of the row after its last compaction, or empty
    Key threshold[kRows];  // its key, or open(): the hot filter
    int count[kRows];      // entries appended to the buffer; above capacity: overflowed
  };

  static std::optional<Params> from(SelectArgs const& a, RankSpec const&) {
    return Params{static_cast<Entry*>(a.partial), a.k, a.capacity, a.chunks};
  }
  static std::size_t dynamic_smem_bytes(Params const& p) {
    return static_cast<std::size_t>(kRows) * p.capacity * sizeof(Entry);
  }

  __device__ RowBufferSelect(Params const& p, SharedStorage& s, char* dynamic, WorkItem const& w,
                             ThreadPlace const& at)
      : p_(p), s_(s), buffers_(reinterpret_cast<Entry*>(dynamic)), w_(w), at_(at) {
    if (at_.lane() < 16) {
      int const r = owned_row(at_.lane());
      s_.kth[r] = Traits::empty();
      s_.threshold[r] = Traits::open();
      s_.count[r] = 0;
    }
    __syncwarp();
  }

  __device__ void consume(TileKeys<Key> const& keys) {
    std::uint64_t pending = 0;  // bit 8 i + j: a candidate that found its row's buffer full
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      int const r = fragment(at_.ty(), i);
      Key const t = s_.threshold[r];
      bool any = false;
#pragma unroll
      for (int j = 0; j < 8; ++j) any |= Traits::may_enter(keys.key[i][j], t);
      if (!any) continue;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        if (!(Traits::may_enter(keys.key[i][j], t) && keys.is_valid(i, j))) continue;
        int const pos = atomicAdd(&s_.count[r], 1);
        if (pos < p_.capacity) {
          buffer(r)[pos] = Traits::entry(keys.key[i][j], column(keys, j));
        } else {
          pending |= std::uint64_t(1) << (8 * i + j);
        }
      }
    }
    while (__any_sync(kFullWarp, pending != 0)) {
      __syncwarp();
      compact_overflowed_rows();
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        int const r = fragment(at_.ty(), i);
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          std::uint64_t const bit = std::uint64_t(1) << (8 * i + j);
          if (!(pending & bit)) continue;
          // settle(), spelled out: calling it here made ptxas spill more in the float top-k
          // kernels (sm_90: 280 -> 368 bytes stored in one of them).
          Entry const e = Traits::entry(keys.key[i][j], column(keys, j));
          if (!(e < s_.kth[r])) {
            pending &= ~bit;  // no longer among the best k
          } else {
            int const pos = atomicAdd(&s_.count[r], 1);
            if (pos < p_.capacity) {
              buffer(r)[pos] = e;
              pending &= ~bit;
            }
          }
        }
      }
    }
  }

  // The candidate interface of the tensor-core search (bounded_search_kernel.cuh), where entries
  // arrive one per lane in the MMA's layout instead of as the engine's 8 x 8 keys.

  /// The blocks per SM the kernel is built for (the row buffers leave room for one), and the
  /// largest per-lane rank of its seed (k <= 32 are seeded).
  static constexpr int kBoundedMinBlocks = 1, kMaxSeedRank = 8;
  /// offer() takes any of the warp's rows from any lane (warp_offer_queue.cuh).
  static constexpr bool kOffersAnyRow = true;
  /// A chunk may start from an earlier chunk's answers (take_answers()).
  static constexpr bool kTakesEarlierAnswers = true;

  __device__ int k() const { return p_.k; }

  /// Nothing to do between tiles: offers keep the bars current.
  __device__ void end_tile() {}

  /// Row r's bar: no key above it can enter (open, NaN, until its first compaction).
  __device__ Key bar(int, int r) const { return s_.threshold[r]; }

  /// Offers entry e of row r where `have`: appended if it ranks before the row's k-th entry;
  /// rows that overflow are compacted by the warp and the entries that did not fit retried.
  /// Every lane of the warp calls.
  __device__ void offer(bool have, int, int r, Entry e) {
    bool pending = have;
    while (__any_sync(kFullWarp, pending)) {
      if (pending) pending = !settle(r, e);
      __syncwarp();
      // A row overflows only through a lane whose append found it full, and that lane is still
      // pending: so the pending lanes name every overflowed row, and the warp compacts those
      // (usually one) instead of reading all 16 of its rows' counts (compact_overflowed_rows
      // was 11% of K3's instructions, ncu run 95).
      for (unsigned full = __ballot_sync(kFullWarp, pending); full != 0;) {
        int const overflowed = __shfl_sync(kFullWarp, r, __ffs(static_cast<int>(full)) - 1);
        compact(overflowed);
        full &= ~__ballot_sync(kFullWarp, pending && r == overflowed);
      }
    }
  }

  /// Starts each of the warp's rows from the best k entries that chunk `chunk` of the same row
  /// tile wrote (finish(): sorted, empty ones last), read through L2 as another block wrote
  /// them: the row's bar is then their k-th. Every lane calls, before any offer.
  __device__ void take_answers(int chunk) {
    static_assert(sizeof(Entry) == sizeof(unsigned long long), "64-bit entries (float keys)");
    for (int o = 0; o < 16; ++o) {
      int const r = owned_row(o);
      std::int64_t const row = w_.tile.row0 + r;
      if (row >= w_.tile.row_end) continue;  // warp-uniform
      auto const* in = reinterpret_cast<unsigned long long const*>(p_.partial + (row * p_.chunks + chunk) * p_.k);
      int real = 0;
      for (int t0 = 0; t0 < p_.k; t0 += 32) {
        int const t = t0 + at_.lane();
        Entry e = Traits::empty();
        if (t < p_.k) {
          e = static_cast<Entry>(__ldcg(in + t));
          buffer(r)[t] = e;
        }
        real += __popc(__ballot_sync(kFullWarp, e != Traits::empty()));
      }
      __syncwarp();
      if (at_.lane() == 0) {
        s_.count[r] = real;
        s_.kth[r] = real == p_.k ? buffer(r)[p_.k - 1] : Traits::empty();
        s_.threshold[r] = Traits::threshold(s_.kth[r]);
      }
    }
    __syncwarp();
  }

  /// Compacts every row and writes the chunk's best k per row.
  __device__ void finish() {
    __syncwarp();
    for (int o = 0; o < 16; ++o) {
      int const r = owned_row(o);
      compact(r);
      std::int64_t const row = w_.tile.row0 + r;
      if (row >= w_.tile.row_end) continue;
      Entry* out = p_.partial + (row * p_.chunks + w_.chunk) * p_.k;
      int const kept = s_.count[r];
      for (int t = at_.lane(); t < p_.k; t += 32) out[t] = t < kept ? buffer(r)[t] : Traits::empty();
    }
  }

 private:
  /// Local row o (0..15) of this warp: ty = 2 warp + o / 8, entry o % 8 of its fragment.
  __device__ int owned_row(int o) const { return fragment(2 * at_.warp() + o / 8, o % 8); }
  __device__ Entry* buffer(int r) const { return buffers_ + static_cast<std::int64_t>(r) * p_.capacity; }
  __device__ std::uint32_t column(TileKeys<Key> const& keys, int j) const {
    return static_cast<std::uint32_t>(keys.col0 + fragment(at_.tx(), j) - w_.tile.y_begin);
  }

  /// Entry e of row r, after a compaction may have raised the row's bar: dropped when it no
  /// longer ranks before the k-th entry, else appended. False when the buffer is full again.
  __device__ bool settle(int r, Entry e) {
    if (!(e < s_.kth[r])) return true;  // no longer among the best k
    int const pos = atomicAdd(&s_.count[r], 1);
    if (pos >= p_.capacity) return false;
    buffer(r)[pos] = e;
    return true;
  }

  /// Compacts the warp's rows whose buffers overflowed. Warp-uniform: every lane reads the same
  /// counts.
  __device__ void compact_overflowed_rows() {
    for (int o = 0; o < 16; ++o) {
      int const r = owned_row(o);
      if (s_.count[r] > p_.capacity) compact(r);
    }
  }

  /// Sorts row r's buffer with the whole warp and keeps its best k: the k-th becomes the
  /// threshold. Every lane calls; r is the same in all of them.
  __device__ void compact(int r) {
    Entry* b = buffer(r);
    int const stored = min(s_.count[r], p_.capacity);
    for (int t = stored + at_.lane(); t < p_.capacity; t += 32) b[t] = Traits::empty();
    warp_bitonic_sort(b, p_.capacity, at_.lane());
    int const kept = min(stored, p_.k);
    if (at_.lane() == 0) {
      s_.count[r] = kept;
      s_.kth[r] = kept == p_.k ? b[p_.k - 1] : Traits::empty();
      s_.threshold[r] = Traits::threshold(s_.kth[r]);
    }
    __syncwarp();
  }

  Params const& p_;
  SharedStorage& s_;
  Entry* buffers_;  // (kRows, capacity)
  WorkItem const& w_;
  ThreadPlace const& at_;
};

}  // namespace cudist::neighbors::detail::cuda
