// Squared L2 of byte rows (uint8, or int8) four bytes at a time, for the fused selection on the
// GPU: the rows are read as 32-bit words and the contraction is the dot product, one __dp4a (4
// multiply-adds, unsigned or signed) per word, finished as |x|^2 + |y|^2 - 2 x.y. Integer
// arithmetic, so the expansion is exact: the true value is below 2^31 for d <= 33025, and 32-bit
// wrap-around brings the sum back to it (a negative int8 dot product included). A quarter of the
// instructions of the direct byte form (sub + multiply-add per byte).
#pragma once

#include <cstdint>

#include "distance/detail/cuda/packed_u8_rows.hpp"
#include "distance/detail/ops.hpp"

namespace cudist::detail::cuda {

/// Up to this many columns the squared distance stays below 2^24 (255^2 d: uint8 or int8), so its
/// float32 value, and hence the ranking the CPU backend sees, is the exact integer.
constexpr std::int64_t kMaxPackedU8Cols = 258;

/// kSigned: the words hold int8 (else uint8).
template <bool kSigned>
struct PackedByteSqL2Op : ops::OpBase<std::uint32_t, std::uint32_t> {
  using Acc = std::uint32_t;  // the dot product (two's complement where negative)
  std::uint32_t const* x_sq = nullptr;  // (m) sum of squares of each row of x
  std::uint32_t const* y_sq = nullptr;  // (n)
  static CUDIST_HD Acc init() { return 0; }
  static CUDIST_HD void step(Acc& acc, std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
    if constexpr (kSigned) {
      acc = static_cast<std::uint32_t>(__dp4a(static_cast<int>(a), static_cast<int>(b), static_cast<int>(acc)));
    } else {
      acc = __dp4a(a, b, acc);
    }
#else
    for (int s = 0; s < 32; s += 8) acc += static_cast<std::uint32_t>(byte(a, s) * byte(b, s));
#endif
  }
  /// The byte of v at bit `shift`, as its type reads it.
  static CUDIST_HD int byte(std::uint32_t v, int shift) {
    return kSigned ? static_cast<int>(static_cast<std::int8_t>(v >> shift)) : static_cast<int>((v >> shift) & 0xffu);
  }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return a + b; }
  /// |x|^2 + |y|^2 - 2 x.y: the exact sum of squared differences (see the file comment). With bit
  /// counts for the squares and the bits' AND-popcount for the dot product, the same expression is
  /// the exact Hamming distance.
  static CUDIST_HD std::uint32_t expanded(std::uint32_t x_row_sq, std::uint32_t y_row_sq, Acc dot) {
    return x_row_sq + y_row_sq - 2u * dot;
  }
  CUDIST_HD std::uint32_t finish(Acc dot, std::int64_t i, std::int64_t j) const {
    return expanded(x_sq[i], y_sq[j], dot);
  }
};

/// sum[r] = the RowSum (packed_u8_rows.hpp) of row r (rows of `words` 32-bit words). Eight lanes
/// share a row, reading 32 contiguous bytes (a sector) a step: a thread per row read 4 bytes of 32
/// rows per load, and the two launches of D3u took 17 us of its ~150 (ncu, H200).
struct RowSumsKernel {
  static constexpr int kThreads = 256;
  static constexpr int kLanesPerRow = 8;
  static constexpr int kRowsPerBlock = kThreads / kLanesPerRow;
  struct Params {
    std::uint32_t const* rows;
    std::int64_t count, words, stride;  // stride in words
    std::uint32_t* sum;
    RowSum kind;
  };
  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const r = block * kRowsPerBlock + tid / kLanesPerRow;
    int const lane = tid % kLanesPerRow;
    std::uint32_t acc = 0;
    if (r < p.count) {
      std::uint32_t const* const row = p.rows + r * p.stride;
      for (std::int64_t w = lane; w < p.words; w += kLanesPerRow) {
        std::uint32_t const v = row[w];
        switch (p.kind) {
          case RowSum::kUnsignedSquares: PackedByteSqL2Op<false>::step(acc, v, v); break;
          case RowSum::kSignedSquares: PackedByteSqL2Op<true>::step(acc, v, v); break;
          case RowSum::kBitCounts: acc += __popc(v); break;
        }
      }
    }
    // Every lane of the warp takes part in the row sums (rows past the end add zeros).
#pragma unroll
    for (int offset = kLanesPerRow / 2; offset > 0; offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    if (r < p.count && lane == 0) p.sum[r] = acc;
  }
};

}  // namespace cudist::detail::cuda
