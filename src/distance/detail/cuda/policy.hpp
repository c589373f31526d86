// Tile shapes of the pairwise contraction engine. One policy per element width; the numbers are
// justified in docs/tuning.md (measurements on the H100 of bench/results/).
#pragma once

namespace cudist::detail::cuda {

struct TilePolicy {
  int block_m;   // x rows per block
  int block_n;   // y rows per block
  int block_k;   // columns per pipeline stage
  int threads;   // 16 x 16 threads, each owning an 8 x 8 block of outputs
  int min_blocks_per_sm;
  // Shapes for small d or small problems, whose finish and stores weigh as much as their sums: the
  // last slab of a d that is not a multiple of block_k runs only its real columns (the rest would
  // add the op's identity), and euclidean's root skips sqrtf's range test (ops.hpp
  // sqrt_in_range). D4c 985 -> 759 us, D5 162 -> 133, D2 9.3 -> 7.2 (runs 51-55). Deep large tiles
  // keep one straight-line slab loop and sqrtf: either change cost them registers and 1.5-6%
  // (D3, D7, M1) where d fills every slab.
  bool epilogue_bound = false;
};

/// Which tiles a problem gets.
enum class TileShape {
  kLarge,    // 128 x 128 outputs, 8 x 8 per thread, 16-column slabs (8 for float64)
  kShallow,  // 128 x 128 with 4-column slabs: d <= kShallowMaxCols
  kSmall,    // 64 x 64, 4 x 4 per thread: problems too small to fill the GPU with large tiles
  kSmallLaneWise,  // kSmall at 4 blocks an SM (64 registers): the lane-wise float32 ops' small problems
};

/// Large tiles: 64 independent accumulators per thread and 4 shared-memory vector loads per 64
/// (i, j) updates keep the FP32 pipe, not the LSU, the limit. Shallow slabs stop a 2-D or 3-D
/// problem from running 16 columns of zero padding per output (D2, D4, D5). Small tiles give a
/// 2048 x 1024 problem 512 blocks instead of 128 (D1, D2: a third of the SMs idle otherwise).
/// Two blocks per SM cap a thread at 128 registers: enough for 64 float accumulators, not for 64
/// doubles, which run one large block per SM. The lane-wise float32 ops' small tiles run 4 blocks
/// per SM (64 registers; euclidean spills 40 bytes, read back 4): D1's 512 tiles in one wave on
/// 132 SMs, not two (11.2 -> 9.7 us, run 45). (Ops whose accumulator holds two or three values
/// spilled up to 8 KB per thread in large tiles under that cap; they run small tiles.)
template <int kElementBytes, TileShape kShape>
struct PairwisePolicy {
  static constexpr int kDeep = kElementBytes == 8 ? 8 : 16;
  static constexpr bool small = kShape == TileShape::kSmall || kShape == TileShape::kSmallLaneWise;
  static constexpr TilePolicy value{
      small ? 64 : 128, small ? 64 : 128,
      kShape == TileShape::kShallow ? 4 : kDeep, 256,
      kShape == TileShape::kSmallLaneWise ? 4 : kElementBytes == 8 && kShape != TileShape::kSmall ? 1 : 2,
      kShape != TileShape::kLarge};
};

/// d at or below this runs shallow slabs (float32 lane-wise ops).
constexpr long kShallowMaxCols = 8;

/// Fewer large tiles than this (2 per SM on 132 SMs) runs small tiles (float32 lane-wise ops).
constexpr long kSmallProblemTiles = 264;

}  // namespace cudist::detail::cuda
