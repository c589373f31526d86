// Exact float32 knn / match with the tensor cores finding the candidates, for squared L2, inner
// product and cosine (the op's Bound: search_bounds.cuh): the float16 MMA (rows scaled by powers
// of two: rounded_rows.hpp) computes every pair's dot product, whose proven error bound
// (expansion_bound.hpp) rules out almost every pair against the row's current k-th exact key,
// and the few pairs it cannot rule out get the SIMT engine's own float32 sum (the same fused
// multiply-adds in the same order), which is what the consumer ranks. So the answers are the
// exact SIMT path's, bit for bit and tie for tie, while the contraction runs at tensor-core rates.
//
// Block: 8 warps, a 128-row tile of x (float16, in shared memory for the block's whole chunk)
// against the chunk's 128-column tiles of y (double-buffered: the next tile is copied during this
// one). Warp w owns the 16 tile rows of the fused consumers' layout (mma::mma_row_slot) over all
// 128 columns, in two halves of 64 (32 accumulators per thread, not 64: no spills at two blocks
// per SM): c[nt] holds rows g, g + 8 (g = lane / 4) and columns 64 h + 8 nt + 2 (lane % 4) +
// {0, 1}, so each thread sees 2 rows ("slots") x 16 columns per half. Nothing is exchanged:
// pairs are tested where the MMA leaves them. Candidate and validity masks have bit
// 2 (8 h + nt) + j per slot. Candidates wait in their warp's list until a round of exact sums
// takes them (each sum waits on L2 for its rows, so a round costs about the same with one
// candidate or many); the lanes that found them offer them. Top-k (one block per SM): at a column
// tile's barrier, once the block holds 128, every thread computes up to one sum, so one warp's
// burst does not hold the other seven at the next barrier (K2 6.01 -> 5.38 ms, same run); a list
// about to overflow is emptied by its warp alone. Best two (two blocks per SM, whose other block
// runs during a barrier): a warp runs a round of 32 sums whenever its list holds 32 (block rounds
// measured K1 324 -> 332 us there).
//
// Before a row has k exact keys, its bar is an upper bound of its k-th key from its first tile
// (seeded: each of the row's 4 lanes takes the q-th smallest upper bound of its 32 columns,
// q = ceil(k / 4), and the ceil(k / q)-th smallest of the 4 certifies k pairs), so the first tile
// does not send all 128 columns to the exact sum. In a self-join whose diagonal keys are set to 0
// (cdist's rule), the diagonal pairs are always candidates where the op's bounds are the sums'
// and not 0 (cosine; squared L2's bounds of (i, i) already reach 0).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/interrupt_word.cuh"
#include "distance/detail/cuda/mma_sync.cuh"
#include "distance/detail/ops.hpp"
#include "neighbors/detail/cuda/chunk_chain.cuh"
#include "neighbors/detail/cuda/fused_select_kernel.cuh"
#include "neighbors/detail/cuda/mma_search_tiles.cuh"
#include "neighbors/detail/cuda/rounded_rows.hpp"
#include "neighbors/detail/cuda/search_bounds.cuh"
#include "neighbors/detail/cuda/warp_entries.cuh"
#include "neighbors/detail/cuda/work_grid.cuh"
#include "neighbors/detail/keys.hpp"
#include "neighbors/detail/rank_key.hpp"

namespace cudist::neighbors::detail::cuda {

namespace mma = cudist::detail::cuda::mma;

/// ContractionT: MmaColumnTiles (mma.sync, sm_80 on) or WgmmaColumnTiles (wgmma, sm_90a:
/// inst/bounded_wgmma.cu).
template <class Bound, template <class> class SelectT,
          template <int> class ContractionT = cudist::detail::cuda::MmaColumnTiles>
struct BoundedSearchKernel {
  using Rank = typename Bound::Rank;
  using Traits = KeyTraits<float>;
  using Entry = Traits::Entry;
  using Select = SelectT<float>;
  static constexpr int kThreads = 256;
  using Tiles = MmaSearchTiles<kThreads, ContractionT<kThreads>>;
  static constexpr int kTile = Tiles::kTile;
  static constexpr int kNTiles = Tiles::kNTiles;
  static constexpr int kPollTiles = 8;       // column tiles between interrupt polls
  static constexpr int kShareTiles = 4;      // column tiles between exchanges of the rows' bars
  static constexpr float kInf = __builtin_huge_valf();
  // A lane's q-th smallest upper bound at most (q = ceil(k / 4)): the consumer's largest q.
  static constexpr int kMaxSeedRank = Select::kMaxSeedRank;

  struct Params {
    RoundedRows x, y;  // the rounded copies and bound terms
    Rank rank;         // the SIMT path's key
    SourceSums rows;   // the float32 source rows
    WorkGrid grid;
    bool zero_diagonal;  // self-join: finite (i, i) keys are exact 0
    bool exclude_self;
    typename Bound::Constants bound;
    typename Select::Params select;
    cudist::detail::cuda::InterruptPoll interrupt;
    std::uint32_t* row_bars;  // (m): the best bar any chunk of the row has shared, ordered; or null
    ChunkChain chain;         // top-k: chunks start from earlier chunks' answers
  };

  /// A candidate waiting for its exact key: its column (from y_begin), the lane that found it
  /// and its slot (lane << 1 | slot), and the key once computed.
  struct Pending {
    std::uint32_t index;
    std::uint32_t owner;
    float key;
  };
  // Rounds of the whole block at the column tiles' barriers, or of each warp alone (file comment).
  static constexpr bool kBlockRounds = Select::kBoundedMinBlocks == 1;
  static constexpr int kRound = 32;
  static constexpr int kPendingCapacity = kBlockRounds ? 4 * kRound : 2 * kRound;

  struct SharedStorage {
    typename Select::SharedStorage select;
    WorkItem work;
    int earlier;  // the chunk of the same row tile whose answers this one starts from, or -1 (chunk_chain.cuh)
    Pending pending[kThreads / 32][kPendingCapacity];  // per warp
    // Per warp, published before a barrier; two copies by the barrier's parity, as a warp may
    // publish the next while a slower one still reads these.
    int pending_count[2][kThreads / 32];
  };

  /// Launched by fused_select_kernel: dynamic shared memory holds SharedStorage, then from
  /// kDynamicOffset (16-byte aligned) the three tiles of rows of `depth` float16 values at their
  /// alignment, then the consumer's sized part.
  static constexpr int kMinBlocks = Select::kBoundedMinBlocks;
  static constexpr std::size_t kDynamicOffset = (sizeof(SharedStorage) + 127) / 128 * 128;
  static std::size_t smem_bytes(typename Select::Params const& s, int depth) {
    return kDynamicOffset + (Tiles::kAlignment - 16) + 3 * Tiles::tile_bytes(2 * depth) +
           Select::dynamic_smem_bytes(s);
  }

  /// Rows row0.. of a rounded copy (dense float16 rows) into a tile, in Slot's order.
  template <class Slot>
  __device__ static void load_tile(std::uint16_t const* base, std::int64_t rows, int depth, std::int64_t row0,
                                   unsigned char* dst, Slot slot, int tid) {
    Tiles::load(reinterpret_cast<unsigned char const*>(base), 2 * depth, rows, 2 * depth, row0, dst, slot, tid);
  }

  __device__ void operator()(Params const& p, SharedStorage& s, char* dynamic, std::int64_t block, int tid) const {
    if (tid == 0) {
      s.work = p.grid.item(block);
      s.earlier = Select::kTakesEarlierAnswers ? p.chain.last_finished(s.work.row_tile) : -1;
    }
    __syncthreads();
    WorkItem const& w = s.work;
    ThreadPlace const at{tid};
    int const depth = p.x.depth;
    unsigned char* const tiles = Tiles::aligned(dynamic);
    std::size_t const tile_bytes = Tiles::tile_bytes(2 * depth);
    Select select(p.select, s.select, reinterpret_cast<char*>(tiles + 3 * tile_bytes), w, at);
    if constexpr (Select::kTakesEarlierAnswers) {
      if (s.earlier >= 0) select.take_answers(s.earlier);
    }
    int const warp = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
    unsigned char* const xs = tiles;
    auto const ys = [&](int buf) { return Tiles::y_buffer(tiles, tile_bytes, buf); };

    // The thread's two rows (slots): tile rows fragment(2 warp + s, g).
    int const local[2] = {fragment(2 * warp, g), fragment(2 * warp + 1, g)};
    std::int64_t const row[2] = {w.tile.row0 + local[0], w.tile.row0 + local[1]};
    // Rows past the problem read the padding (the terms arrays cover whole tiles).
    typename Bound::Row const x_row[2] = {Bound::row(p.bound, p.x, row[0]), Bound::row(p.bound, p.x, row[1])};
    float seed_bar[2] = {kInf, kInf};  // upper bounds of the rows' k-th exact keys, once seeded

    if (w.col_begin < w.col_end) {
      load_tile(p.x.values, w.tile.row_end, depth, w.tile.row0, xs, typename Tiles::ConsumerRows{}, tid);
      load_tile(p.y.values, w.tile.y_end, depth, w.col_begin, ys(0), typename Tiles::InOrder{}, tid);
    }
    int pending = 0;  // candidates in the warp's list (warp-uniform)
    int phase = 0;    // which copy of the published counts: flips at every publication
    int tiles_done = 0;
    for (std::int64_t col0 = w.col_begin; col0 < w.col_end; col0 += kTile, ++tiles_done) {
      int const buf = tiles_done % 2;
      mma::wait_async_copies();
      Tiles::publish_writes();
      if constexpr (kBlockRounds) {
        phase ^= 1;
        if (lane == 0) s.pending_count[phase][warp] = pending;
      }
      __syncthreads();  // this tile is in; every warp is done with the other buffer; counts published
      if (col0 + kTile < w.col_end) load_tile(p.y.values, w.tile.y_end, depth, col0 + kTile, ys(buf ^ 1), typename Tiles::InOrder{}, tid);
      if constexpr (kBlockRounds) {  // half a block's worth makes a round
        if (block_pending(s.pending_count[phase]) >= kThreads / 2) block_round(p, select, w, local, s, phase, pending);
      }

      std::uint32_t valid[2];
      Tiles::valid_masks(w, col0, row, q, p.exclude_self, valid);
      if (tiles_done == 0) {
        seed(p, select, xs, ys(buf), col0, valid, x_row, seed_bar);
        share_bars(p, select, local, row, w.tile.row_end, seed_bar);
      }

#pragma unroll 1
      for (int half = 0; half < 2; ++half) {
        float c[kNTiles][4];
        Tiles::contract(xs, ys(buf), 2 * depth, warp, lane, half, c, mma::MmaF16{});
        // Candidates: pairs whose lower bound does not exceed the row's bar.
        typename Bound::Limit const limit[2] = {Bound::limit(p.bound, x_row[0], select.bar(0, local[0]), seed_bar[0]),
                                                Bound::limit(p.bound, x_row[1], select.bar(1, local[1]), seed_bar[1])};
        std::uint32_t cand[2] = {0, 0};
#pragma unroll
        for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
          for (int j = 0; j < 2; ++j) {
            LowerTerm const y_lower = p.y.lower[col0 + 64 * half + 8 * nt + 2 * q + j];
#pragma unroll
            for (int sl = 0; sl < 2; ++sl) {
              bool const may_enter = Bound::candidate(limit[sl], y_lower, c[nt][2 * sl + j]);
              cand[sl] |= static_cast<std::uint32_t>(may_enter) << (16 * half + 2 * nt + j);
            }
          }
        }
        if constexpr (!Bound::kZeroDiagonalBounded) {
          if (p.zero_diagonal && w.tile_crosses_diagonal(col0)) add_diagonal(col0, half, row, q, cand);
        }
        cand[0] &= valid[0];
        cand[1] &= valid[1];
        add_candidates(p, select, w, col0, local, s.pending[warp], pending, cand);
      }
      select.end_tile();
      if (tiles_done % kShareTiles == kShareTiles - 1) share_bars(p, select, local, row, w.tile.row_end, seed_bar);

      if (tiles_done % kPollTiles == kPollTiles - 1 && cudist::detail::cuda::block_interrupted(p.interrupt)) {
        mma::wait_async_copies();  // the next tile's copy may be in flight
        break;  // the host throws Interrupted after the launch
      }
    }
    if constexpr (kBlockRounds) {
      for (;;) {  // the rest, the block together
        phase ^= 1;
        if (lane == 0) s.pending_count[phase][warp] = pending;
        __syncthreads();
        if (block_pending(s.pending_count[phase]) == 0) break;
        block_round(p, select, w, local, s, phase, pending);
      }
    } else {
      while (pending > 0) warp_round(p, select, w, local, s.pending[warp], pending);
    }
    select.finish();
    if constexpr (Select::kTakesEarlierAnswers) p.chain.publish(w, tid);
  }

  /// Each chunk of a row tile would start from a cold bar, and the exact sums of that warm-up grow
  /// with the number of chunks (run 37: half the queries of a 400000-row y, split 21 ways instead
  /// of 8, took 76% of the time of all of them). So the rows' bars are pooled: each row's own bar
  /// goes to p.row_bars (atomicMin of its order) where it improves on what the thread has seen,
  /// and the best any chunk has shared comes back into seed_bar. A chunk's k-th exact key bounds
  /// the row's k-th over all of y from above, and the candidate test keeps keys equal to the bar,
  /// so the answers do not change (a chunk may then return fewer than k entries: the merge takes
  /// empty ones last). The grid runs chunk 0 of every row tile first (WorkGrid::chunks_outer), so
  /// a row's later chunks start from a bar that a whole chunk has narrowed.
  __device__ static void share_bars(Params const& p, Select const& select, int const (&local)[2],
                                    std::int64_t const (&row)[2], std::int64_t row_end, float (&seed_bar)[2]) {
    if (p.row_bars == nullptr) return;
    bool const publisher = threadIdx.x % 4 == 0;  // one lane of the row's quad
#pragma unroll
    for (int sl = 0; sl < 2; ++sl) {
      if (row[sl] >= row_end) continue;
      std::uint32_t* const shared = p.row_bars + row[sl];
      float const own = select.bar(sl, local[sl]);
      if (publisher && own < seed_bar[sl]) atomicMin(shared, Traits::order(own));  // NaN (open): false
      seed_bar[sl] = fminf(seed_bar[sl], Traits::from_order(__ldcg(shared)));  // never shared: NaN
    }
  }

  /// Sets the candidate bits of the pairs (i, i) in half `half` of the tile at col0.
  __device__ static void add_diagonal(std::int64_t col0, int half, std::int64_t const (&row)[2], int q,
                                      std::uint32_t (&cand)[2]) {
#pragma unroll
    for (int sl = 0; sl < 2; ++sl)
#pragma unroll
      for (int b = 16 * half; b < 16 * half + 16; ++b) {
        cand[sl] |= static_cast<std::uint32_t>(Tiles::column(col0, b, q) == row[sl]) << b;
      }
  }

  /// Before the first exact key: each slot's bar from the tile's upper bounds (file comment).
  /// The tile's products are computed for it (once per block), half by half.
  __device__ static void seed(Params const& p, Select const& select, unsigned char const* xs, unsigned char const* ys,
                              std::int64_t col0, std::uint32_t const (&valid)[2],
                              typename Bound::Row const (&x_row)[2], float (&seed_bar)[2]) {
    int const lane = static_cast<int>(threadIdx.x) % 32, q = lane % 4;
    int const k = select.k();
    int const per_lane = (k + 3) / 4;  // each lane's share
    if (per_lane > kMaxSeedRank) return;
    int const lanes = (k + per_lane - 1) / per_lane;  // how many of the row's 4 lanes certify k
    float least[2][kMaxSeedRank];  // per slot, the lane's smallest upper terms, ascending
#pragma unroll
    for (int sl = 0; sl < 2; ++sl)
#pragma unroll
      for (int i = 0; i < kMaxSeedRank; ++i) least[sl][i] = kInf;
#pragma unroll 1
    for (int half = 0; half < 2; ++half) {
      float c[kNTiles][4];
      Tiles::contract(xs, ys, 2 * p.x.depth, static_cast<int>(threadIdx.x) / 32, lane, half, c, mma::MmaF16{});
#pragma unroll
      for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          std::int64_t const col = col0 + 64 * half + 8 * nt + 2 * q + j;
          LowerTerm const y_lower = p.y.lower[col];
          float const y_hi = p.y.hi[col];
#pragma unroll
          for (int sl = 0; sl < 2; ++sl) {
            float u = Bound::upper(p.bound, x_row[sl], y_lower, y_hi, c[nt][2 * sl + j]);
            if (!((valid[sl] >> (16 * half + 2 * nt + j)) & 1u) || u != u) u = kInf;
#pragma unroll
            for (int i = 0; i < kMaxSeedRank; ++i) {
              float const lo = fminf(least[sl][i], u);
              u = fmaxf(least[sl][i], u);
              least[sl][i] = lo;
            }
          }
        }
      }
    }
#pragma unroll
    for (int sl = 0; sl < 2; ++sl) {
      float mine = kInf;
#pragma unroll
      for (int i = 0; i < kMaxSeedRank; ++i)
        if (i == per_lane - 1) mine = least[sl][i];
      // The lanes-th smallest of the 4 lanes' values: sorted across the quad.
      float v[4] = {mine, __shfl_xor_sync(kFullWarp, mine, 1), __shfl_xor_sync(kFullWarp, mine, 2),
                    __shfl_xor_sync(kFullWarp, mine, 3)};
      auto order = [&](int a, int b) {
        float const lo = fminf(v[a], v[b]);
        v[b] = fmaxf(v[a], v[b]);
        v[a] = lo;
      };
      order(0, 1), order(2, 3), order(0, 2), order(1, 3), order(1, 2);
      float kth = v[3];
#pragma unroll
      for (int i = 0; i < 3; ++i)
        if (i == lanes - 1) kth = v[i];
      seed_bar[sl] = Bound::seed_bar(p.bound, x_row[sl], kth);
    }
  }

  /// Appends the lanes' candidates to the warp's list (in lane order, by a prefix sum of their
  /// counts); whenever it holds a round, runs one.
  __device__ static void add_candidates(Params const& p, Select& select, WorkItem const& w, std::int64_t col0,
                                        int const (&local)[2], Pending (&list)[kPendingCapacity], int& count,
                                        std::uint32_t (&cand)[2]) {
    int const lane = static_cast<int>(threadIdx.x) % 32;
    while (__any_sync(kFullWarp, (cand[0] | cand[1]) != 0)) {
      int const mine = __popc(cand[0]) + __popc(cand[1]);
      int before = mine;  // inclusive, then exclusive prefix
#pragma unroll
      for (int delta = 1; delta < 32; delta *= 2) {
        int const v = __shfl_up_sync(kFullWarp, before, delta);
        if (lane >= delta) before += v;
      }
      int const total = __shfl_sync(kFullWarp, before, 31);
      before -= mine;
      int const room = kPendingCapacity - count;
      int const listed = max(0, min(mine, room - before));
      for (int i = 0; i < listed; ++i) {
        int const sl = cand[0] != 0 ? 0 : 1;
        std::uint32_t const bits = sl == 0 ? cand[0] : cand[1];
        int const b = __ffs(static_cast<int>(bits)) - 1;
        if (sl == 0) {
          cand[0] &= cand[0] - 1;
        } else {
          cand[1] &= cand[1] - 1;
        }
        auto const index = static_cast<std::uint32_t>(Tiles::column(col0, b, lane % 4) - w.tile.y_begin);
        list[count + before + i] = {index, static_cast<std::uint32_t>(lane << 1 | sl), 0.0f};
      }
      count += min(total, room);
      __syncwarp();
      // Block rounds: only a list that might overflow at the next tile; else every full round.
      while (kBlockRounds ? count > kPendingCapacity - kRound : count >= kRound) {
        warp_round(p, select, w, local, list, count);
      }
    }
  }

  /// The exact key of entry i of warp `warp`'s list, stored in it.
  __device__ static void compute_key(Params const& p, WorkItem const& w, int warp, Pending& e) {
    int const owner = static_cast<int>(e.owner >> 1), sl = e.owner & 1;
    std::int64_t const row = w.tile.row0 + fragment(2 * warp + sl, owner / 4);
    e.key = Bound::exact_key(p.rank, p.rows, row, w.tile.y_begin + e.index, p.zero_diagonal);
  }

  /// The owners offer the first n entries of their warp's list (the consumer's offer is
  /// warp-collective: every lane calls, the same number of times); the later ones move to the
  /// front.
  __device__ static void offer_front(Select& select, int const (&local)[2], Pending (&list)[kPendingCapacity],
                                     int n, int& count) {
    int const lane = static_cast<int>(threadIdx.x) % 32;
    for (int first = 0; first < n; first += 32) {  // a mask of 32 entries at a time
      std::uint32_t owned = 0;
      for (int i = first; i < min(n, first + 32); ++i) {
        owned |= static_cast<std::uint32_t>(static_cast<int>(list[i].owner >> 1) == lane) << (i - first);
      }
      while (__any_sync(kFullWarp, owned != 0)) {
        bool const have = owned != 0;
        Entry e = Traits::empty();
        int sl = 0;
        if (have) {
          int const i = first + __ffs(static_cast<int>(owned)) - 1;
          owned &= owned - 1;
          Pending const c = list[i];
          sl = c.owner & 1;
          e = Traits::entry(c.key, c.index);
        }
        select.offer(have, sl, sl == 0 ? local[0] : local[1], e);
      }
    }
    __syncwarp();
    for (int from = n; from < count; from += 32) {  // lanes move disjoint runs of 32, in order
      bool const moves = from + lane < count;
      Pending moved{};
      if (moves) moved = list[from + lane];
      __syncwarp();
      if (moves) list[from - n + lane] = moved;
      __syncwarp();
    }
    count -= n;
  }

  /// A warp alone: the exact keys of its list's first min(count, 32) entries, one per lane.
  __device__ static void warp_round(Params const& p, Select& select, WorkItem const& w, int const (&local)[2],
                                    Pending (&list)[kPendingCapacity], int& count) {
    int const lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
    int const n = min(count, kRound);
    if (lane < n) compute_key(p, w, warp, list[lane]);
    __syncwarp();
    offer_front(select, local, list, n, count);
  }

  /// Candidates in the block's lists (after the barrier that follows their publication).
  __device__ static int block_pending(int const (&counts)[kThreads / 32]) {
    int total = 0;
#pragma unroll
    for (int v = 0; v < kThreads / 32; ++v) total += counts[v];
    return total;
  }

  /// The block together: thread t computes the t-th pending candidate (in warp order), so one
  /// warp's burst does not hold the other seven at the next barrier; then each warp offers what
  /// was computed of its list. Every thread calls, after the counts' barrier.
  __device__ static void block_round(Params const& p, Select& select, WorkItem const& w, int const (&local)[2],
                                     SharedStorage& s, int phase, int& count) {
    int const tid = static_cast<int>(threadIdx.x), warp = tid / 32;
    int before = 0, mine_before = 0;
#pragma unroll
    for (int v = 0; v < kThreads / 32; ++v) {
      int const c = s.pending_count[phase][v];
      if (tid >= before && tid < before + c) compute_key(p, w, v, s.pending[v][tid - before]);
      if (v < warp) mine_before += c;
      before += c;
    }
    __syncthreads();  // every key is in its list
    offer_front(select, local, s.pending[warp], max(0, min(count, kThreads - mine_before)), count);
  }

};

}  // namespace cudist::neighbors::detail::cuda
