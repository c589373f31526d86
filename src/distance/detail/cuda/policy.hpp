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
};

/// 128 x 128 tiles with 8 x 8 outputs per thread: 64 independent accumulators per thread and
/// 4 shared-memory vector loads per 64 (i, j) updates keep the FP32 pipe, not the LSU, the limit.
/// block_k = 16 loads 64-byte row chunks; small d uses block_k = 4 so a 2-D or 3-D problem does not
/// run 16 columns of zero padding per output (the memory-bound cases D2, D4, D5).
template <int kElementBytes, bool kSmallD>
struct PairwisePolicy {
  static constexpr TilePolicy value{128, 128, kSmallD ? 4 : (kElementBytes == 8 ? 8 : 16), 256,
                                    kElementBytes == 8 ? 1 : 2};
};

/// d at or below this runs the small-d tiles (lane-wise ops).
constexpr long kSmallDMaxCols = 8;

}  // namespace cudist::detail::cuda
