// The fused selection kernel: the pairwise contraction engine's main loop (compute_tile) walks the
// column tiles of a block's chunk, each finished 128 x 128 tile becomes rank keys in registers,
// and a selection consumer reduces them on chip (top-k, best two, radius). The distance matrix
// is never written. An optional observer keeps each column's best row for the mutual check.
//
// Thread layout (the engine's): thread (tx, ty) = (tid % 16, tid / 16) holds rows
// fragment_offset(ty, i) and columns fragment_offset(tx, j) of the tile, i, j in 0..7. A row's 128
// columns are thus spread over the 16 lanes of one half-warp, and the 16 rows of warp w (ty = 2w,
// 2w + 1) belong to no other warp: consumers keep per-row state that only its warp touches, and
// need no block-wide barrier beyond the engine's own.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/cuda/interrupt_word.cuh"
#include "distance/detail/cuda/pairwise_kernel.cuh"
#include "distance/detail/cuda/policy.hpp"
#include "neighbors/detail/cuda/warp_entries.cuh"
#include "neighbors/detail/cuda/work_grid.cuh"
#include "neighbors/detail/keys.hpp"
#include "neighbors/detail/rank_key.hpp"

namespace cudist::neighbors::detail::cuda {

template <class Op>
using SelectTilePolicy = cudist::detail::cuda::PairwisePolicy<sizeof(typename Op::Compute), cudist::detail::cuda::TileShape::kLarge>;

/// Where a thread sits in the engine's 16 x 16 layout (derived on use: one register across tiles).
struct ThreadPlace {
  int index;
  __device__ int tid() const { return index; }
  __device__ int tx() const { return index % 16; }
  __device__ int ty() const { return index / 16; }
  __device__ int lane() const { return index % 32; }
  __device__ int warp() const { return index / 32; }
};

/// One thread's 8 x 8 keys of a finished tile and which of them are candidates.
template <class Key>
struct TileKeys {
  Key key[8][8];
  std::uint64_t valid;  // bit 8 i + j: (row i, column j) is in the problem and not the point itself
  std::int64_t row0, col0;

  __device__ bool is_valid(int i, int j) const { return (valid >> (8 * i + j)) & 1u; }
};

/// Local tile offset of a thread's idx-th row (t = ty) or column (t = tx); the engine's layout.
__device__ __forceinline__ int fragment(int t, int idx) {
  return idx < 4 ? 4 * t + idx : 64 + 4 * t + (idx - 4);
}

/// Whether a contraction overlaps its next column tile's loads with this one (kPipelined): then
/// the kernel calls start() once and tells compute_tile whether another column tile follows.
template <class Engine, class = void>
struct IsPipelined : std::false_type {};
template <class Engine>
struct IsPipelined<Engine, std::void_t<decltype(Engine::kPipelined)>> : std::bool_constant<Engine::kPipelined> {};

/// The contraction is the SIMT engine's by default; a variant with the same compute_tile (its
/// outputs in the engine's layout) may replace it, as the tensor-core one of packed uint8 L2.
template <class Op, class Elem, template <class> class SelectT,
          class EngineT = cudist::detail::cuda::PairwiseTileKernel<Op, Elem, SelectTilePolicy<Op>>>
struct FusedSelectKernel {
  using Engine = EngineT;
  using Rank = RankKey<Op>;
  using Key = typename Rank::Key;
  using Traits = KeyTraits<Key>;
  using Entry = typename Traits::Entry;
  using Select = SelectT<Key>;
  static constexpr int kThreads = Engine::kThreads;
  static constexpr int kMinBlocks = Engine::kMinBlocks;
  static constexpr int kTileRows = Engine::kBM;
  static constexpr bool kPipelined = IsPipelined<Engine>::value;
  static_assert(Engine::kTM == 8 && Engine::kTN == 8 && kTileRows == WorkGrid::kTileRows,
                "the consumers assume the engine's 128 x 128 tiles of 8 x 8 per thread");

  struct Params {
    typename Engine::Params tile;  // x and y of all problems, the op
    Rank rank;
    WorkGrid grid;
    bool zero_diagonal;  // self-join: finite (i, i) keys are exact 0
    bool exclude_self;   // self-join without the point itself
    Entry* column_best;  // (n): best (key, query row) per column for the mutual check, or null
    typename Select::Params select;
    cudist::detail::cuda::InterruptPoll interrupt;  // stop between column tiles after a request
  };

  /// Column tiles between two polls (interrupt_word.cuh): a block may sweep a whole database
  /// (seconds); every 8 tiles (well under a millisecond) a poll's L2 reads cost nothing measurable.
  static constexpr int kPollTiles = 8;

  struct SharedStorage {
    typename Engine::SharedStorage tile;
    typename Select::SharedStorage select;
    WorkItem work;  // the block's work: read from here, it costs no registers across tiles
  };

  /// Shared memory of a launch: the fixed storage, then the consumer's sized part.
  static constexpr std::size_t kDynamicOffset = (sizeof(SharedStorage) + 15) / 16 * 16;
  static std::size_t smem_bytes(typename Select::Params const& p) {
    return kDynamicOffset + Select::dynamic_smem_bytes(p);
  }

  __device__ void operator()(Params const& p, SharedStorage& s, char* dynamic, std::int64_t block,
                             int tid) const {
    if (tid == 0) s.work = p.grid.item(block);
    __syncthreads();
    WorkItem const& w = s.work;
    ThreadPlace const at{tid};
    Select select(p.select, s.select, dynamic, w, at);
    if constexpr (kPipelined) {
      if (w.col_begin < w.col_end) Engine::start(p.tile, s.tile, w.tile.row0, w.col_begin);
    }
    int tiles = 0;
    for (std::int64_t col0 = w.col_begin; col0 < w.col_end; col0 += kTileRows) {
      typename Op::Acc acc[8][8];
      if constexpr (kPipelined) {
        Engine::compute_tile(p.tile, s.tile, w.tile.row0, col0, col0 + kTileRows < w.col_end, acc);
      } else {
        Engine::compute_tile(p.tile, s.tile, w.tile.row0, col0, acc);
      }
      TileKeys<Key> keys;
      make_keys(p, acc, w, col0, at, keys);
      select.consume(keys);
      if constexpr (sizeof(Entry) == sizeof(unsigned long long)) {
        if (p.column_best != nullptr) update_column_best(p.column_best, keys, w, at);
      }
      if (++tiles % kPollTiles == 0 && cudist::detail::cuda::block_interrupted(p.interrupt)) {
        if constexpr (kPipelined) Engine::wait_async_copies();  // the next tile's copy is in flight
        break;  // the host throws Interrupted after the launch
      }
    }
    select.finish();
  }

  /// Keys of the finished accumulators, and the candidate mask: rows of the problem, columns of
  /// the chunk, never (i, i) in a self-join without the points themselves.
  __device__ static void make_keys(Params const& p, typename Op::Acc const (&acc)[8][8],
                                   WorkItem const& w, std::int64_t col0, ThreadPlace const& at,
                                   TileKeys<Key>& keys) {
    std::int64_t const row0 = w.tile.row0;
    keys.row0 = row0;
    keys.col0 = col0;
    // Edge tiles hold rows / columns beyond x and y: clamped, so finish never reads past the
    // row norms (their keys are masked out below).
    auto clamp = [](std::int64_t v, std::int64_t last) { return v < last ? v : last; };
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      std::int64_t const row = clamp(row0 + fragment(at.ty(), i), p.tile.m - 1);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        keys.key[i][j] = p.rank(acc[i][j], row, clamp(col0 + fragment(at.tx(), j), p.tile.n - 1));
    }

    // WorkItem::holds_whole_tile and holds, spelled out: calling them here moved ptxas's spills
    // of the uint8 top-k kernel from 712 to 1172 bytes (sm_90), and the rule is short.
    bool const diagonal = row0 < col0 + kTileRows && col0 < row0 + kTileRows;
    bool const inside = row0 + kTileRows <= w.tile.row_end && col0 + kTileRows <= w.col_end;
    if (inside && !(diagonal && p.exclude_self)) {
      keys.valid = ~std::uint64_t(0);
    } else {
      keys.valid = 0;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        std::int64_t const row = row0 + fragment(at.ty(), i);
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          std::int64_t const col = col0 + fragment(at.tx(), j);
          bool const ok = row < w.tile.row_end && col < w.col_end && !(p.exclude_self && row == col);
          keys.valid |= static_cast<std::uint64_t>(ok) << (8 * i + j);
        }
      }
    }
    // Only candidates: the zero padding past the last row and column gives sums of 0, which
    // would all be recomputed (measured on the H100: K1 1.1 -> 2.5 ms when they were).
    if constexpr (Rank::kRecomputes) recompute_inexact_keys(p, acc, row0, col0, at, keys);
    if (diagonal && p.zero_diagonal) {
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          bool const on_diagonal = row0 + fragment(at.ty(), i) == col0 + fragment(at.tx(), j);
          if (on_diagonal && is_finite_key(keys.key[i][j])) keys.key[i][j] = Key(0);  // as cdist
        }
    }
  }

  /// The candidate keys whose float sums left the normal range (rank_key.hpp), replaced by their
  /// exact values: a mask from two compares per key; where it is not empty (never, on ordinary
  /// data), one rolled loop over its bits computes each exact key once and moves it into place
  /// with static indices, so the keys stay in registers and the recomputation's code appears once.
  /// The diagonal of a self-join is left to make_keys, which sets its finite keys to exact 0.
  __device__ static void recompute_inexact_keys(Params const& p, typename Op::Acc const (&acc)[8][8],
                                                std::int64_t row0, std::int64_t col0,
                                                ThreadPlace const& at, TileKeys<Key>& keys) {
    std::uint64_t redo = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) redo |= static_cast<std::uint64_t>(Rank::inexact(acc[i][j])) << (8 * i + j);
#pragma unroll 1
    for (redo &= keys.valid; redo != 0; redo &= redo - 1) {
      int const b = __ffsll(static_cast<long long>(redo)) - 1;
      std::int64_t const row = row0 + fragment(at.ty(), b / 8);
      std::int64_t const col = col0 + fragment(at.tx(), b % 8);
      if (p.zero_diagonal && row == col) continue;
      Key const exact = p.rank.exact(row, col);
#pragma unroll
      for (int q = 0; q < 64; ++q)
        if (q == b) keys.key[q / 8][q % 8] = exact;
    }
  }

  /// Mutual check: per column, the best (key, query row) of the tile's rows, merged into
  /// column_best with a 64-bit atomic minimum (entries compare as (key, index), so the smallest
  /// query row wins ties, as in a sequential scan).
  __device__ static void update_column_best(Entry* column_best, TileKeys<Key> const& keys,
                                            WorkItem const& w, ThreadPlace const& at) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      Entry best = Traits::empty();
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        auto const row = static_cast<std::uint32_t>(keys.row0 + fragment(at.ty(), i) - w.tile.x_begin);
        if (keys.is_valid(i, j)) best = min_entry(best, Traits::entry(keys.key[i][j], row));
      }
      best = min_entry(best, shfl_xor(best, 16));  // the other half-warp: same columns, 8 more rows
      if (at.lane() < 16 && best != Traits::empty()) {
        atomicMin(reinterpret_cast<unsigned long long*>(column_best + keys.col0 + fragment(at.tx(), j)),
                  static_cast<unsigned long long>(best));
      }
    }
  }
};

/// The one __global__ trampoline of the selection kernels (this one and the tensor-core searches,
/// bounded_search_kernel.cuh and exact_u8_l2_kernel.cuh): dynamic shared memory holds the kernel's
/// SharedStorage, then from Kernel::kDynamicOffset the part whose size depends on the launch.
template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreads, Kernel::kMinBlocks)
    fused_select_kernel(__grid_constant__ typename Kernel::Params const p) {
  extern __shared__ __align__(16) unsigned char smem[];
  auto& storage = *reinterpret_cast<typename Kernel::SharedStorage*>(smem);
  char* dynamic = reinterpret_cast<char*>(smem) + Kernel::kDynamicOffset;
  Kernel{}(p, storage, dynamic, blockIdx.x, static_cast<int>(threadIdx.x));
}

}  // namespace cudist::neighbors::detail::cuda
