// What the byte search (exact_u8_l2_kernel.cuh) needs of a tile's columns besides their rows: each
// column's square (bit rows: its bit count), and its accumulators' start, -floor(y_sq / 2), in the
// MMA's layout. The layout pairs columns (2 i, 2 i + 1) of a tile: a lane's accumulators hold them
// for its rows g and g + 8, so a pair's starts are (s, s', s, s'), one 16-byte load.
//
// On Hopper a tensor map copies a tile's terms from an array of them (ColumnTermsKernel), a row
// of which is one pair: row j holds columns (2 j, 2 j + 1), for tiles at even columns, and row h + j
// holds (2 j + 1, 2 j + 2), as a batch's problem may start its columns at an odd one. A tile is
// then 64 consecutive rows whatever its first column, and no copy starts inside a row (the copies'
// inner coordinate is 0).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cudist::neighbors::detail::cuda {

/// A column's accumulator start: -floor(y_sq / 2).
__device__ inline int accumulator_start(std::uint32_t y_sq) { return -static_cast<int>(y_sq >> 1); }

/// Columns (c, c + 1): their accumulators' starts as the lane holds them, and their squares.
struct alignas(16) ColumnPair {
  int start[4];  // (c, c + 1, c, c + 1)
  std::uint32_t y_sq[2];
  std::uint32_t unused[2];

  /// Column c + e's terms from its square.
  __device__ void set(int e, std::uint32_t sq) {
    y_sq[e] = sq;
    start[e] = start[e + 2] = accumulator_start(sq);
  }
};
static_assert(sizeof(ColumnPair) == 32, "a pair is a 32-byte row of the terms' tensor map");

/// A 128-column tile's terms (0 past the end of y).
struct ColumnTerms {
  static constexpr int kPairs = 64;
  ColumnPair pairs[kPairs];
};

/// The terms array of n columns' squares: 2 h rows (h = first_odd_row(n)).
struct ColumnTermsKernel {
  static constexpr int kThreads = 256;
  struct Params {
    std::uint32_t const* y_sq;  // (n)
    std::int64_t n;
    std::int64_t h;
    ColumnPair* pairs;  // (2 h)
  };
  static std::int64_t first_odd_row(std::int64_t n) { return (n + 1) / 2; }

  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const j = block * kThreads + tid;
    if (j >= 2 * p.h) return;
    std::int64_t const c = j < p.h ? 2 * j : 2 * (j - p.h) + 1;
    ColumnPair pair{};
    pair.set(0, c < p.n ? p.y_sq[c] : 0u);
    pair.set(1, c + 1 < p.n ? p.y_sq[c + 1] : 0u);
    p.pairs[j] = pair;
  }
};

}  // namespace cudist::neighbors::detail::cuda
