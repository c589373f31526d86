// Consumer for radius search, in two launches over the same grid: the counting pass adds up, per
// row and chunk, the keys within the bound; the writing pass, given each (row, chunk)'s start in
// the output, writes (index, distance) in increasing column order. Within a tile a row's 128
// columns lie across the 16 lanes of a half-warp (lane tx: columns 4 tx .. 4 tx + 3, then
// 64 + 4 tx ..), so a segmented scan of the lanes' counts of each half places every entry.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/cuda/fused_select_kernel.cuh"

namespace cudist::neighbors::detail::cuda {

template <class Key>
struct RadiusSelect {
  using Out = std::conditional_t<std::is_same_v<Key, double>, double, float>;

  struct Params {
    Key bound;                   // keep key <= bound (keys.hpp: radius_bound)
    int chunks;
    std::int64_t* counts;        // counting pass: (m, chunks) entries per row and chunk
    std::int64_t const* starts;  // writing pass: (m, chunks) first output position; null: count
    std::int64_t* indices;       // writing pass: (total) column index within the problem
    Out* distances;              // writing pass: (total)
    RankSpec spec;
  };

  struct SharedStorage {
    long long cursor[128];  // per row: entries so far (count) or next output position (write)
    long long end[128];     // writing pass, per row: the end of its (row, chunk) positions
  };

  /// Nothing when no key is within the radius: the launch is skipped and the counts stay 0.
  static std::optional<Params> from(SelectArgs const& a, RankSpec const& spec) {
    std::optional<Key> const bound = radius_bound<Key, Out>(a.radius, spec);
    if (!bound) return std::nullopt;
    return Params{*bound, a.chunks, a.counts, a.starts, a.indices, static_cast<Out*>(a.distances), spec};
  }
  static std::size_t dynamic_smem_bytes(Params const&) { return 0; }

  __device__ RadiusSelect(Params const& p, SharedStorage& s, char*, WorkItem const& w,
                          ThreadPlace const& at)
      : p_(p), s_(s), w_(w), at_(at) {
    if (at_.lane() < 16) {
      int const r = fragment(2 * at_.warp() + at_.lane() / 8, at_.lane() % 8);
      std::int64_t const row = w_.tile.row0 + r;
      bool const write = p_.starts != nullptr && row < w_.tile.row_end;
      s_.cursor[r] = write ? p_.starts[row * p_.chunks + w_.chunk] : 0;
      // starts has one more entry than there are (row, chunk) slots: the total.
      s_.end[r] = write ? p_.starts[row * p_.chunks + w_.chunk + 1] : 0;
    }
    __syncwarp();
  }

  __device__ void consume(TileKeys<Key> const& keys) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      unsigned within = 0;  // bit j: column j of row i is kept
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        within |= static_cast<unsigned>(keys.is_valid(i, j) && keys.key[i][j] <= p_.bound) << j;
      }
      int const r = fragment(at_.ty(), i);
      if (p_.starts == nullptr) {
        if (within != 0) atomicAdd(reinterpret_cast<unsigned long long*>(&s_.cursor[r]), __popc(within));
      } else if (__any_sync(kFullWarp, within != 0)) {
        write_row(keys, i, r, within);
      }
    }
  }

  __device__ void finish() {
    if (p_.starts != nullptr) return;
    __syncwarp();
    if (at_.lane() < 16) {
      int const r = fragment(2 * at_.warp() + at_.lane() / 8, at_.lane() % 8);
      std::int64_t const row = w_.tile.row0 + r;
      if (row < w_.tile.row_end) p_.counts[row * p_.chunks + w_.chunk] = s_.cursor[r];
    }
  }

 private:
  /// Both half-warps at once, each for its own row: positions from a scan over the 16 lanes of
  /// the (low half, high half) counts packed in one int.
  __device__ void write_row(TileKeys<Key> const& keys, int i, int r, unsigned within) {
    int const lo = __popc(within & 0xfu), hi = __popc(within >> 4);
    int const packed = lo | (hi << 16);
    int inclusive = packed;
#pragma unroll
    for (int delta = 1; delta < 16; delta *= 2) {
      int const v = __shfl_up_sync(kFullWarp, inclusive, delta, 16);
      if (at_.tx() >= delta) inclusive += v;
    }
    int const total = __shfl_sync(kFullWarp, inclusive, 15, 16);
    int const before = inclusive - packed;
    long long const base = s_.cursor[r];
    int const total_lo = total & 0xffff;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (!((within >> j) & 1u)) continue;
      unsigned const half_bits = j < 4 ? (within & 0xfu) : (within >> 4);
      int const earlier_in_lane = __popc(half_bits & ((1u << (j % 4)) - 1));
      long long const pos = base + (j < 4 ? (before & 0xffff) : total_lo + (before >> 16)) + earlier_in_lane;
      // Within the counted positions only: a counting pass that an interrupt stopped counted
      // fewer tiles than a writing pass may read (the host throws after it either way).
      if (pos >= s_.end[r]) continue;
      p_.indices[pos] = keys.col0 + fragment(at_.tx(), j) - w_.tile.y_begin;
      p_.distances[pos] = distance_of<Out>(keys.key[i][j], p_.spec);
    }
    __syncwarp();  // every lane has read the base before it moves
    if (at_.tx() == 0) s_.cursor[r] = base + total_lo + (total >> 16);
  }

  Params const& p_;
  SharedStorage& s_;
  WorkItem const& w_;
  ThreadPlace const& at_;
};

}  // namespace cudist::neighbors::detail::cuda
