// Tuning of the CUDA SpMV/SpMM kernels and the rule that picks one, for sm_90 (H100 SXM, 132 SMs,
// 256 KB L1/shared per SM, 50 MB L2, 3.35 TB/s HBM3). Host-compilable so the tests can check
// the decisions. docs/sparse.md records the measurements behind each number.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudist/sparse/spmv.hpp"

namespace cudist::sparse::detail::cuda {

struct RowSplitPolicy {
  static constexpr int kThreads = 256;
  // Vector loads each lane issues before it gathers x. Two 16-byte chunks of indices and two of
  // values per lane put ~128 KB in flight per SM at full occupancy; HBM3 needs about
  // 3.35 TB/s x 0.7 us / 132 SMs = 18 KB per SM to stay busy.
  static constexpr int kChunksPerLane = 2;
  // kAuto picks row-split for rows of at least kMinMeanRowNnz nonzeros on average whose longest
  // row is at most kMaxRowImbalance times the mean: a group of lanes then finishes its rows in
  // about the same time as its neighbours, and the kernel needs no shared memory, so the whole
  // L1 caches x (S1: x is 203 KB). Shorter or more uneven rows go to merge-path.
  static constexpr double kMinMeanRowNnz = 32.0;
  static constexpr double kMaxRowImbalance = 4.0;
  // Threads of a block that stages x in shared memory: one such block may hold an SM (S1's x is
  // 203 KB), so it brings the SM's full 32 warps of loads in flight.
  static constexpr int kStagedXThreads = 1024;
  // Staging copies x once per block; the gathers must outnumber the copied elements by this
  // factor for the copy (sequential, from L2) to pay for itself. S1: 27 M gathers, 132 blocks x
  // 52000 elements = 6.9 M copied.
  static constexpr std::int64_t kMinGathersPerStagedElement = 2;
};

/// Whether row-split stages x (`cols` elements of `value_bytes`) in shared memory: x fits the
/// `block_shared_bytes` one block may use, and the nonzeros outnumber the elements `blocks`
/// blocks copy (RowSplitPolicy).
constexpr bool row_split_stages_x(std::int64_t cols, std::int64_t nnz, std::size_t value_bytes,
                                  std::size_t block_shared_bytes, std::int64_t blocks) {
  return cols > 0 && blocks > 0 &&
         static_cast<std::size_t>(cols) * value_bytes <= block_shared_bytes &&
         nnz >= RowSplitPolicy::kMinGathersPerStagedElement * blocks * cols;
}

struct ThreadPerRowPolicy {
  static constexpr int kThreads = 256;
  // Products staged per block and pass: 8 KB, 2048 float or 1024 double values. ptxas gives the
  // float32/int32 kernel 48 registers, so 5 blocks fit an SM (the persistent grid): 40 KB of
  // shared memory, the rest of the SM's 256 KB left to L1 for x.
  static constexpr int kStageBytes = 8 * 1024;
  // 16-byte loads of indices and of values that each thread issues before it gathers x (a
  // round): two of each (64 bytes per thread, 80 KB per SM, in flight while the block finishes
  // the row block before) fill a float32/int32 block's stage in one round. Four took 80
  // registers (3 blocks per SM) for the same bytes in flight per SM, before the pipeline.
  static constexpr int kChunksInFlight = 2;
  // kAuto picks thread-per-row for matrices whose longest row is at most kMaxRowNnz nonzeros
  // and at most kMaxRowImbalance times the mean: a float block then covers at least
  // 2048 / 32 = 64 rows in one pass, and no thread sums many more products than its neighbours
  // (S3: 7 and 6.96; S2u: 16 and 16). Longer rows belong to row-split, uneven ones to merge-path.
  static constexpr std::int64_t kMaxRowNnz = 32;
  static constexpr double kMaxRowImbalance = 4.0;
};

/// Values of `value_bytes` bytes each that ThreadPerRowPolicy's stage holds.
constexpr int thread_per_row_stage_values(std::size_t value_bytes) {
  return static_cast<int>(ThreadPerRowPolicy::kStageBytes / value_bytes);
}

template <class T>
struct MergePathPolicy {
  static constexpr int kThreads = 256;
  // Merge-path items (rows + nonzeros) per thread. Odd, so that threads consuming consecutive
  // staged products (stride kItemsPerThread in shared memory) fall in distinct banks. float:
  // 7 x 256 = 1792 items per tile, 14 KB of shared memory; double: 5 keeps the same footprint.
  static constexpr int kItemsPerThread = sizeof(T) == 4 ? 7 : 5;
  static constexpr int kTileItems = kThreads * kItemsPerThread;
  // SpMM columns per pass over A: each staged nonzero then carries this many products.
  static constexpr int kMaxCols = 4;
  // SpMV's blocks an SM that the shared-memory carveout is sized for (prefer_blocks_per_sm), the
  // rest of the SM's memory going to L1, where the gathers of x hit: on S2 (H200, float, runs
  // 170-172) 4 blocks 497-499 us (1024 threads, 192 KB of L1), 6 blocks 506, 8 (the driver's
  // choice) 510, 2 684. SpMM keeps the driver's choice (not measured).
  static constexpr int kBlocksPerSm = 4;
};

/// Elements per 16-byte load when indices and values are both read in lockstep (the wider type
/// sets the count: int32/float32 -> 4, anything with 8-byte elements -> 2).
constexpr int wide_vector_width(std::size_t value_bytes, std::size_t index_bytes) {
  return static_cast<int>(16 / (value_bytes > index_bytes ? value_bytes : index_bytes));
}

struct RowStats {
  std::int64_t rows = 0;
  std::int64_t nnz = 0;
  std::int64_t max_row_nnz = 0;

  double mean_row_nnz() const { return rows == 0 ? 0.0 : static_cast<double>(nnz) / rows; }
};

/// The kAuto rule (see RowSplitPolicy and ThreadPerRowPolicy).
inline SpmvAlgorithm choose_spmv_algorithm(RowStats const& s) {
  double const mean = s.mean_row_nnz();
  auto const longest = static_cast<double>(s.max_row_nnz);
  if (mean >= RowSplitPolicy::kMinMeanRowNnz && longest <= RowSplitPolicy::kMaxRowImbalance * mean)
    return SpmvAlgorithm::kRowSplit;
  if (s.max_row_nnz <= ThreadPerRowPolicy::kMaxRowNnz &&
      longest <= ThreadPerRowPolicy::kMaxRowImbalance * mean)
    return SpmvAlgorithm::kThreadPerRow;
  return SpmvAlgorithm::kMergePath;
}

/// Lanes per row for row-split: enough for one pass of kChunksPerLane loads each over a row of
/// mean length (counting the partial chunk an unaligned row start costs), as a power of two <= 32.
inline int row_split_group_size(RowStats const& s, int vector_width) {
  double const chunks = (s.mean_row_nnz() + vector_width - 1) / vector_width;
  int lanes = 1;
  while (lanes < 32 && lanes * RowSplitPolicy::kChunksPerLane < chunks) lanes *= 2;
  return lanes;
}

/// Rows per block for thread-per-row: as many as the stage holds at the longest row's length, so
/// that a block's nonzeros take one pass, and at most one per thread. Rows longer than the whole
/// stage get a block each and take several passes.
inline int thread_per_row_rows_per_block(RowStats const& s, std::size_t value_bytes) {
  std::int64_t const fit = thread_per_row_stage_values(value_bytes) /
                           (s.max_row_nnz > 0 ? s.max_row_nnz : std::int64_t(1));
  std::int64_t const threads = ThreadPerRowPolicy::kThreads;
  return static_cast<int>(fit < 1 ? 1 : (fit > threads ? threads : fit));
}

}  // namespace cudist::sparse::detail::cuda
