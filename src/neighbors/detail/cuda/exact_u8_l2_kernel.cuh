// knn / match of byte rows (uint8, or int8) in squared L2 on the int8 tensor cores, and of bit rows
// in Hamming distance on the single-bit ones, tested where the MMA leaves each pair. mma.sync
// m16n8k32 (uint8 x uint8, or int8 x int8, -> int32) gives the exact dot products, so a pair's key
// |x|^2 + |y|^2 - 2 x.y is the exact integer the SIMT path ranks on (packed_u8_l2.cuh); with
// m16n8k256's AND + popcount for the product and the rows' bit counts for the squares, the same
// expression is the exact number of differing bits, the SIMT path's XOR + popcount. A lane
// compares the key with its row's bar (the consumer's k-th key so far) in registers, and only the
// few pairs that may enter are offered. The fused kernel's MMA contraction
// (packed_u8_mma_tile.cuh) instead hands every key through shared memory to the engine's 8 x 8
// layout, and its consumers then test them: the exchange, the key construction and its spills
// were what bounded K3 there (docs/tuning.md).
//
// The accumulators start from each column's -floor(|y|^2 / 2) instead of 0, so the MMA leaves
// acc = x.y - floor(|y|^2 / 2) and key = |x|^2 + (|y|^2 & 1) - 2 acc: no pair can enter unless
// acc >= ceil((|x|^2 - bar) / 2), which a lane tests on the maximum of its row's 16 entries, one
// instruction per entry. Only halves where some lane passes build the pairs' masks (a third of
// K3's; the per-pair test and mask were 151 of a half's 270 instructions, ncu run 125).
//
// Block: 8 warps on a 128-row tile of x (resident for the chunk) and the chunk's column tiles of
// y with their columns' terms (squares, accumulator starts). Warp w owns the 16 tile rows of the
// consumers' layout; each thread sees 2 rows ("slots") x 16 columns per half of a tile. The
// contraction is mma.sync's (every GPU from sm_80; y's tiles double-buffered by cp.async behind a
// block barrier per tile) or, on Hopper, wgmma's (wgmma_column_tiles.cuh: the same accumulator
// layout, the tiles read from shared memory by the tensor cores, no ldmatrix; y's tiles three deep
// by TMA, each stage's next copy issued by the warp that releases it last, so no block barrier
// between tiles: tile_pipeline.cuh). Keys are
// compared with `<=` the bar: a pair that ties the k-th key may still rank before it by index, and
// the consumer's offer makes the exact (key, index) comparison.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/cuda/interrupt_word.cuh"
#include "distance/detail/cuda/mma_sync.cuh"
#include "distance/detail/cuda/wgmma_column_tiles.cuh"
#include "neighbors/detail/cuda/chunk_chain.cuh"
#include "neighbors/detail/cuda/column_terms.cuh"
#include "neighbors/detail/cuda/fused_select_kernel.cuh"
#include "neighbors/detail/cuda/mma_search_tiles.cuh"
#include "neighbors/detail/cuda/tile_pipeline.cuh"
#include "neighbors/detail/cuda/warp_offer_queue.cuh"
#include "neighbors/detail/cuda/work_grid.cuh"
#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail::cuda {

/// Product: the MMA, mma::MmaBytes<signed> (uint8 or int8 rows) or mma::MmaBitsAnd (bit rows).
/// ContractionT: MmaColumnTiles (mma.sync, sm_80 on) or WgmmaColumnTiles (wgmma, sm_90a).
template <template <class> class SelectT, class Product,
          template <int> class ContractionT = cudist::detail::cuda::MmaColumnTiles>
struct ExactByteL2Kernel {
  using Traits = KeyTraits<std::uint32_t>;
  using Entry = Traits::Entry;
  using Select = SelectT<std::uint32_t>;
  static constexpr int kThreads = 256;
  // 55 KB of tiles for rows of 128 bytes: two blocks (16 warps) per SM hide each other's
  // barriers and offers where the consumer's buffers leave room.
  static constexpr int kMinBlocks = 2;
  using Tiles = MmaSearchTiles<kThreads, ContractionT<kThreads>>;
  static constexpr int kTile = Tiles::kTile;
  static constexpr int kNTiles = Tiles::kNTiles;
  static constexpr int kPollTiles = 8;  // column tiles between interrupt polls
  // Consumers that take any row from any lane get the candidates 32 at a time; the others, where
  // the MMA leaves them.
  struct DirectOffers {
    struct Storage {};
    __device__ DirectOffers(Storage&, int, int) {}
    __device__ void push(Select& select, bool have, int slot, int r, Entry e) { select.offer(have, slot, r, e); }
    __device__ void flush(Select&) {}
  };
  using Offers = std::conditional_t<Select::kOffersAnyRow, WarpOfferQueue<Select, kThreads / 32>, DirectOffers>;

  struct Params {
    unsigned char const *x, *y;  // rows of `depth` bytes (a multiple of 16), 16-byte aligned
    std::int64_t ldx, ldy;       // row strides in bytes (multiples of 16)
    int depth;
    std::uint32_t const *x_sq, *y_sq;  // each row's sum of squares (bit rows: its bit count)
    WorkGrid grid;
    bool exclude_self;
    typename Select::Params select;
    cudist::detail::cuda::InterruptPoll interrupt;
    ChunkChain chain;  // top-k: chunks start from earlier chunks' answers
    // Where the contraction's layout is the tensor maps' (Tiles::kByTma), tensor_map.hpp's maps
    // (aligned as their type requires: kernel parameters, __grid_constant__) of y's rows and of
    // their columns' terms (column_terms.cuh).
    CUtensorMap y_map, terms_map;
    int odd_pairs;  // terms_map's first row of the pairs that start at odd columns
  };

  // By TMA, a warp may run up to two tiles ahead of the slowest (run_pipelined); else y's tiles
  // are double-buffered behind a block barrier per tile.
  static constexpr int kStages = Tiles::kByTma ? 3 : 2;
  using Pipeline = TilePipeline<kStages, kThreads / 32>;

  struct SharedStorage {
    typename Select::SharedStorage select;
    WorkItem work;
    int earlier;  // the chunk of the same row tile whose answers this one starts from, or -1
    typename Pipeline::Storage pipe;  // by TMA (run_pipelined)
    typename Offers::Storage offers;
  };

  /// Launched by fused_select_kernel: dynamic shared memory holds SharedStorage, then from
  /// kDynamicOffset (16-byte aligned) x's tile and kStages of y's at the tiles' alignment, the
  /// stages' ColumnTerms, and the consumer's sized part.
  static constexpr std::size_t kDynamicOffset = (sizeof(SharedStorage) + 127) / 128 * 128;
  static std::size_t smem_bytes(typename Select::Params const& s, int depth) {
    return kDynamicOffset + (Tiles::kAlignment - 16) + (1 + kStages) * Tiles::tile_bytes(depth) +
           kStages * sizeof(ColumnTerms) + Select::dynamic_smem_bytes(s);
  }

  /// One thread's part of the search: its warp, its two rows (slots: tile rows fragment(2 warp + s,
  /// g)) and their squares.
  struct Lanes {
    int warp, lane, q;
    int local[2];
    std::int64_t row[2];
    std::uint32_t x_sq[2];
    __device__ Lanes(Params const& p, WorkItem const& w, int tid)
        : warp(tid / 32), lane(tid % 32), q(lane % 4),
          local{fragment(2 * warp, lane / 4), fragment(2 * warp + 1, lane / 4)},
          row{w.tile.row0 + local[0], w.tile.row0 + local[1]},
          x_sq{row[0] < w.tile.row_end ? p.x_sq[row[0]] : 0u, row[1] < w.tile.row_end ? p.x_sq[row[1]] : 0u} {}
  };

  /// The block's shared state past SharedStorage.
  struct Buffers {
    unsigned char* tiles;  // x's, then y's stages
    std::size_t tile_bytes;
    ColumnTerms* terms;  // one per stage
    __device__ unsigned char* y(int stage) const { return Tiles::y_buffer(tiles, tile_bytes, stage); }
  };

  __device__ void operator()(Params const& p, SharedStorage& s, char* dynamic, std::int64_t block, int tid) const {
    if (tid == 0) {
      s.work = p.grid.item(block);
      s.earlier = Select::kTakesEarlierAnswers ? p.chain.last_finished(s.work.row_tile) : -1;
      if constexpr (Tiles::kByTma) Pipeline::init(s.pipe);
    }
    __syncthreads();
    WorkItem const& w = s.work;
    Buffers b;
    b.tiles = Tiles::aligned(dynamic);
    b.tile_bytes = Tiles::tile_bytes(p.depth);
    b.terms = reinterpret_cast<ColumnTerms*>(b.tiles + (1 + kStages) * b.tile_bytes);
    ThreadPlace const at{tid};
    Select select(p.select, s.select, reinterpret_cast<char*>(b.terms + kStages), w, at);
    if constexpr (Select::kTakesEarlierAnswers) {
      if (s.earlier >= 0) select.take_answers(s.earlier);
    }
    Lanes const l(p, w, tid);
    Offers offers(s.offers, l.warp, l.lane);
    if (w.col_begin < w.col_end) {
      if constexpr (Tiles::kByTma) {
        Tiles::with_steps(p.depth, [&](auto steps) {
          run_pipelined<decltype(steps)::value>(p, s, w, b, select, offers, l, tid);
        });
      } else {
        run_double_buffered(p, w, b, select, offers, l, tid);
      }
    }
    offers.flush(select);
    select.finish();
    if constexpr (Select::kTakesEarlierAnswers) p.chain.publish(w, tid);
  }

  /// Every tile of the chunk behind a block barrier each: y's next tile copied (cp.async) into the
  /// other buffer while the block searches this one.
  __device__ static void run_double_buffered(Params const& p, WorkItem const& w, Buffers const& b, Select& select,
                                             Offers& offers, Lanes const& l, int tid) {
    namespace mma = cudist::detail::cuda::mma;
    Tiles::load(p.x, p.ldx, w.tile.row_end, p.depth, w.tile.row0, b.tiles, typename Tiles::ConsumerRows{}, tid);
    store_squares(b.terms[0], tid, load_columns(p, w, w.col_begin, b.y(0), tid));
    int tiles_done = 0;
    for (std::int64_t col0 = w.col_begin; col0 < w.col_end; col0 += kTile, ++tiles_done) {
      int const buf = tiles_done % 2;
      mma::wait_async_copies();
      Tiles::publish_writes();
      __syncthreads();  // this tile is in; every warp is done with the other buffer
      bool const more = col0 + kTile < w.col_end;
      std::uint32_t const next_sq = more ? load_columns(p, w, col0 + kTile, b.y(buf ^ 1), tid) : 0u;
      search_tile<0>(p, w, b.tiles, b.y(buf), b.terms[buf], col0, select, offers, l);
      if (more) store_squares(b.terms[buf ^ 1], tid, next_sq);  // read after the next barrier
      select.end_tile();
      if (tiles_done % kPollTiles == kPollTiles - 1 && cudist::detail::cuda::block_interrupted(p.interrupt)) {
        mma::wait_async_copies();  // the next tile's copy may be in flight
        break;                     // the host throws Interrupted after the launch
      }
    }
  }

  /// Column tile col0 of y into `ys` by every thread's cp.async, and the square of its column tid
  /// (0 past the end, and for tid >= kTile), which the thread stores with store_squares once the
  /// tile's MMAs have hidden the load.
  __device__ static std::uint32_t load_columns(Params const& p, WorkItem const& w, std::int64_t col0,
                                               unsigned char* ys, int tid) {
    Tiles::load(p.y, p.ldy, w.tile.y_end, p.depth, col0, ys, typename Tiles::InOrder{}, tid);
    return tid < kTile && col0 + tid < w.tile.y_end ? p.y_sq[col0 + tid] : 0u;
  }

  /// Column tid's square and its accumulators' start.
  __device__ static void store_squares(ColumnTerms& t, int tid, std::uint32_t y_sq) {
    if (tid >= kTile) return;
    t.pairs[tid / 2].set(tid % 2, y_sq);
  }

  /// Hopper: y's tiles and their columns' terms by TMA, kStages deep, without a block
  /// barrier between tiles (tile_pipeline.cuh). Rows of kSteps 32-byte steps: the contraction's
  /// straight-line code chosen once per block, not per half (that choice was ~9% of K3's stall
  /// samples: ncu run 155).
  template <int kSteps>
  __device__ static void run_pipelined(Params const& p, SharedStorage& s, WorkItem const& w, Buffers const& b,
                                       Select& select, Offers& offers, Lanes const& l, int tid) {
    namespace tma = cudist::detail::cuda::tma;
    int const tiles = static_cast<int>((w.col_end - w.col_begin + kTile - 1) / kTile);
    auto const issue = [&](int stage, int tile, unsigned full) {
      std::int64_t const col0 = w.col_begin + std::int64_t{tile} * kTile;
      tma::arrive_expecting(full, static_cast<unsigned>(Tiles::tile_bytes(p.depth) + sizeof(ColumnTerms)));
      Tiles::copy_tile(p.y_map, p.depth, col0, b.y(stage), full);
      int const pair = static_cast<int>(col0 / 2) + (col0 % 2 != 0 ? p.odd_pairs : 0);
      tma::copy_box(p.terms_map, 0, pair, tma::shared_address(&b.terms[stage]), full);
    };
    if (tid == 0) Pipeline::first(s.pipe, tiles, issue);
    Tiles::load(p.x, p.ldx, w.tile.row_end, p.depth, w.tile.row0, b.tiles, typename Tiles::ConsumerRows{}, tid);
    cudist::detail::cuda::mma::wait_async_copies();
    Tiles::publish_writes();
    __syncthreads();  // x's tile is in
    Pipeline pipe;
    for (int t = 0; t < tiles; ++t) {
      if (!pipe.wait(s.pipe, t)) break;  // the host throws Interrupted after the launch
      search_tile<kSteps>(p, w, b.tiles, b.y(pipe.stage), b.terms[pipe.stage], w.col_begin + std::int64_t{t} * kTile,
                          select, offers, l);
      pipe.release(s.pipe, l.lane, t, tiles, p.interrupt, kPollTiles, issue);
      select.end_tile();
    }
  }

  /// Every pair of tile col0 (y's in `ys`, its columns' terms in `terms`) tested against its
  /// row's bar where the MMA leaves it, and the few that may enter offered. kSteps: the rows' 32-byte
  /// steps, known at compile time (wgmma: the bars are read while the MMAs run), or 0.
  template <int kSteps>
  __device__ static void search_tile(Params const& p, WorkItem const& w, unsigned char const* xs,
                                     unsigned char const* ys, ColumnTerms const& terms, std::int64_t col0,
                                     Select& select, Offers& offers, Lanes const& l) {
    namespace mma = cudist::detail::cuda::mma;
    std::uint32_t valid[2];
    Tiles::valid_masks(w, col0, l.row, l.q, p.exclude_self, valid);
#pragma unroll 1
    for (int half = 0; half < 2; ++half) {
      int c[kNTiles][4];
#pragma unroll
      for (int nt = 0; nt < kNTiles; ++nt) {
        int4 const start = *reinterpret_cast<int4 const*>(terms.pairs[32 * half + 4 * nt + l.q].start);
        c[nt][0] = start.x, c[nt][1] = start.y, c[nt][2] = start.z, c[nt][3] = start.w;
      }
      if constexpr (kSteps > 0) {
        Tiles::template issue_accumulate<kSteps>(xs, ys, l.warp, half, c, Product{});
      } else {
        Tiles::accumulate(xs, ys, p.depth, l.warp, l.lane, half, c, Product{});
      }
      // key <= bar  =>  2 acc >= x_sq - bar; `lo` is the least such acc (x_sq - bar > -2^32 fits).
      int lo[2];
#pragma unroll
      for (int sl = 0; sl < 2; ++sl) {
        long long const m = static_cast<long long>(l.x_sq[sl]) - select.bar(sl, l.local[sl]);
        lo[sl] = static_cast<int>((m + 1) >> 1);
      }
      if constexpr (kSteps > 0) Tiles::wait_accumulated(c);
      if (__any_sync(kFullWarp, row_max(c, 0) >= lo[0] || row_max(c, 1) >= lo[1])) {
        std::uint32_t cand[2] = {0, 0};
#pragma unroll
        for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
          for (int j = 0; j < 2; ++j)
#pragma unroll
            for (int sl = 0; sl < 2; ++sl)
              cand[sl] |= static_cast<std::uint32_t>(c[nt][2 * sl + j] >= lo[sl]) << (2 * nt + j);
        cand[0] &= valid[0] >> (16 * half);
        cand[1] &= valid[1] >> (16 * half);
        offer(select, offers, w, col0 + 64 * half, l.local, l.x_sq, terms.pairs + 32 * half, c, cand);
      }
    }
  }

  /// The largest accumulator of slot sl's 16 entries, as a tree (independent steps).
  __device__ static int row_max(int const (&c)[kNTiles][4], int sl) {
    int m[kNTiles];
#pragma unroll
    for (int nt = 0; nt < kNTiles; ++nt) m[nt] = max(c[nt][2 * sl], c[nt][2 * sl + 1]);
#pragma unroll
    for (int width = kNTiles / 2; width > 0; width /= 2)
#pragma unroll
      for (int i = 0; i < width; ++i) m[i] = max(m[i], m[i + width]);
    return m[0];
  }

  /// Offers (or queues) the lanes' candidates of one half (mask bit 2 nt + j per slot; c holds
  /// acc = x.y - floor(y_sq / 2)), one per lane at a time (the consumer's offer is
  /// warp-collective: every lane calls, the same number of times).
  /// Most halves hold a few candidates (a row's bar tightens over the whole chunk), so this runs
  /// often: a candidate's dot product is picked from c by compile-time selects, as indexing c by
  /// a run-time bit would move the accumulators to local memory (and a per-thread array of the
  /// half's 32 keys costs 32 local stores every time).
  __device__ static void offer(Select& select, Offers& offers, WorkItem const& w, std::int64_t col0,
                               int const (&local)[2], std::uint32_t const (&x_sq)[2], ColumnPair const* pairs,
                               int const (&c)[kNTiles][4], std::uint32_t (&cand)[2]) {
    int const q = static_cast<int>(threadIdx.x) % 4;
    while (__any_sync(kFullWarp, (cand[0] | cand[1]) != 0)) {
      bool const have = (cand[0] | cand[1]) != 0;
      Entry e = Traits::empty();
      int sl = 0;
      if (have) {
        sl = cand[0] != 0 ? 0 : 1;
        std::uint32_t const bits = sl == 0 ? cand[0] : cand[1];
        int const b = __ffs(static_cast<int>(bits)) - 1;
        // Not cand[sl]: a run-time index would move cand to local memory.
        (sl == 0 ? cand[0] : cand[1]) = bits & (bits - 1);
        int acc = 0;
#pragma unroll
        for (int i = 0; i < 2 * kNTiles; ++i) {
          if (i == b) acc = sl == 0 ? c[i / 2][i % 2] : c[i / 2][2 + i % 2];
        }
        // A candidate's key may exceed the bar by one (its column's odd square); the consumer's
        // offer compares exactly.
        std::uint32_t const key = (sl == 0 ? x_sq[0] : x_sq[1]) + (pairs[4 * (b / 2) + q].y_sq[b % 2] & 1u) -
                                  2u * static_cast<std::uint32_t>(acc);
        e = Traits::entry(key, static_cast<std::uint32_t>(Tiles::column(col0, b, q) - w.tile.y_begin));
      }
      offers.push(select, have, sl, sl == 0 ? local[0] : local[1], e);
    }
  }
};

template <template <class> class SelectT>
using ExactU8L2Kernel = ExactByteL2Kernel<SelectT, cudist::detail::cuda::mma::MmaBytes<false>>;
template <template <class> class SelectT>
using ExactS8L2Kernel = ExactByteL2Kernel<SelectT, cudist::detail::cuda::mma::MmaBytes<true>>;
template <template <class> class SelectT>
using ExactBitsHammingKernel = ExactByteL2Kernel<SelectT, cudist::detail::cuda::mma::MmaBitsAnd>;
template <template <class> class SelectT>
using ExactU8L2WgmmaKernel =
    ExactByteL2Kernel<SelectT, cudist::detail::cuda::mma::MmaBytes<false>, cudist::detail::cuda::WgmmaColumnTiles>;
template <template <class> class SelectT>
using ExactS8L2WgmmaKernel =
    ExactByteL2Kernel<SelectT, cudist::detail::cuda::mma::MmaBytes<true>, cudist::detail::cuda::WgmmaColumnTiles>;
template <template <class> class SelectT>
using ExactBitsHammingWgmmaKernel =
    ExactByteL2Kernel<SelectT, cudist::detail::cuda::mma::MmaBitsAnd, cudist::detail::cuda::WgmmaColumnTiles>;

}  // namespace cudist::neighbors::detail::cuda
