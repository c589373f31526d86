// The numbers of the GPU selection: which path a k takes, the row buffers' size, the occupancy
// guess and the column split. Derived from the resources of an H100 block (227 KB of shared
// memory, 64 K registers per SM); the measurements that confirm them go to docs/neighbors.md.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "distance/detail/problem.hpp"

namespace cudist::neighbors::detail::cuda {

/// Shared memory of the engine's tiles (both operands, double-buffered), for the occupancy guess.
constexpr std::size_t kEngineSmem = 34 * 1024;
/// Two 256-thread blocks per SM fit when a block needs at most this much shared memory (the
/// engine's 128 registers per thread allow two).
constexpr std::size_t kTwoBlocksSmem = 112 * 1024;
/// Largest k selected on chip, by entry size: 128 rows x 2 k entries of 8 (16) bytes plus the
/// engine's tiles stay within a block's 227 KB. Larger k takes the sorted second path.
constexpr std::int64_t kMaxOnChipK8 = 64, kMaxOnChipK16 = 32;
/// Column chunks per row tile at most: one lane of the merging warp per chunk.
constexpr int kMaxChunks = 32;

/// Ops with fused consumers (top-k, best two, radius): the metrics of search and descriptor
/// matching; the others take the materialised paths. Must agree with kFusedOp in
/// fused_launch.cuh.
inline bool has_fused_path(cudist::detail::OpKind kind) {
  using cudist::detail::OpKind;
  return kind == OpKind::kSqDiffSum || kind == OpKind::kAbsDiffSum || kind == OpKind::kAbsDiffMax ||
         kind == OpKind::kDot || kind == OpKind::kXorPopcount;
}

/// Row buffer entries: twice k (a compaction then frees at least k slots), 32 at least (the
/// warp's width), a power of two (the bitonic sort).
inline int row_buffer_capacity(std::int64_t k) {
  int c = 32;
  while (c < 2 * k) c *= 2;
  return c;
}

/// Column chunks per row tile: the fewest that minimise (waves of blocks) x (tiles per block),
/// so that few row tiles still fill the GPU without a long tail (K1: 32 row tiles on 264 slots
/// take 8 chunks of 20 tiles; K2: 79 row tiles, 10 chunks, 1.3 % above a perfect split), among
/// the counts that give at least `min_blocks` blocks where 32 chunks can. A search whose chunks
/// start from earlier chunks' answers (chunk_chain.cuh) asks for 4 waves' worth: the blocks of the
/// first wave start before any chunk of their row tile has finished, so they start cold, and
/// with 4 waves at most a quarter of the blocks do (H200, 2026-11-28, same run: K3i 10 -> 20
/// chunks 3.05 -> 2.59 ms, K2 5 -> 10 chunks 4.04 -> 3.78 ms, K2c 5 -> 10 chunks +2 %;
/// docs/tuning.md).
inline int choose_chunks(std::int64_t row_tiles, std::int64_t col_tiles, std::int64_t slots, std::int64_t min_blocks = 0) {
  std::int64_t const most = std::min<std::int64_t>(kMaxChunks, std::max<std::int64_t>(col_tiles, 1));
  std::int64_t const fill = (min_blocks + row_tiles - 1) / std::max<std::int64_t>(row_tiles, 1);
  int best = 1;
  std::int64_t best_cost = std::numeric_limits<std::int64_t>::max();
  for (int s = static_cast<int>(std::clamp<std::int64_t>(fill, 1, most)); s <= most; ++s) {
    std::int64_t const waves = (row_tiles * s + slots - 1) / slots;
    std::int64_t const cost = waves * ((col_tiles + s - 1) / s);
    if (cost < best_cost) {
      best_cost = cost;
      best = s;
    }
  }
  return best;
}

/// The least blocks a search without chained chunks asks choose_chunks for: enough that a block
/// walks at most kMaxBlockTiles column tiles, but no more than kBalanceWaves waves of them. The SMs
/// run the same blocks at different speeds (K5's search at 10 chunks of 782 tiles: 5 or 6 blocks
/// an SM, the busiest SM's active cycles 84% above the least busy one's; H200 run 148), and blocks
/// of a few hundred tiles let the faster SMs take more of them: K5 7.77 -> 6.18 ms at 30 chunks,
/// same run (20: 6.47, 32: 6.43). Where the row tiles alone make that many waves they balance
/// the SMs already. Chained float32 searches keep their four waves (K2: 3.72 ms at 10 and 20
/// chunks, 3.87 at 30, 3.91 at 32), the byte search has its own rule (byte_search_chunks), and
/// K1's blocks are short (20 tiles; 16 chunks made K1s 4% slower).
constexpr std::int64_t kMaxBlockTiles = 300;
constexpr std::int64_t kBalanceWaves = 9;
inline std::int64_t balance_blocks(std::int64_t row_tiles, std::int64_t col_tiles, std::int64_t slots) {
  std::int64_t const short_blocks = row_tiles * ((col_tiles + kMaxBlockTiles - 1) / kMaxBlockTiles);
  return std::min(short_blocks, kBalanceWaves * slots);
}

/// The chunks of the byte search with chained chunks (exact_u8_l2_kernel.cuh): blocks of at most
/// kByteBlockTiles column tiles, and at least kBalanceWaves waves of them. Its chunks start from
/// exact answers at little cost, so choose_chunks' many short blocks only add each block's fixed
/// work (x's tile, the earlier answers, the final sort and write), while few long ones leave SMs
/// idle at the end: K3 (1241 row and column tiles) 16.7 ms at choose_chunks' 17 chunks, 16.0-16.4
/// at 6-12, 16.6 at 4; K3i (79 row tiles) 2.04 ms at its 20, 1.95 at 30 (H200 runs 159-160).
constexpr std::int64_t kByteBlockTiles = 128;
inline int byte_search_chunks(std::int64_t row_tiles, std::int64_t col_tiles, std::int64_t slots) {
  std::int64_t const most = std::min<std::int64_t>(kMaxChunks, std::max<std::int64_t>(col_tiles, 1));
  std::int64_t const short_blocks = (col_tiles + kByteBlockTiles - 1) / kByteBlockTiles;
  std::int64_t const balanced = (kBalanceWaves * slots + row_tiles - 1) / std::max<std::int64_t>(row_tiles, 1);
  return static_cast<int>(std::clamp<std::int64_t>(std::max(short_blocks, balanced), 1, most));
}

}  // namespace cudist::neighbors::detail::cuda
