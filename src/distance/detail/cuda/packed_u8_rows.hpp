// Byte rows (uint8, int8) read as 32-bit words of four bytes, the form of the dp4a and int8
// tensor-core contractions of squared L2 and inner product (packed_u8_l2.cuh,
// packed_u8_mma_tile.cuh): whether a pair of inputs can be read so, the word view, and each row's
// sum for the expansion x_row + y_row - 2 x.y (exact in integers): its sum of squares, or for the
// Hamming distance of bit rows its number of set bits.
#pragma once

#include <utility>
#include <vector>

#include "cudist/core/array.hpp"

namespace cudist::detail::cuda {

/// x and y (uint8 or int8) can be read as rows of 32-bit words: d a positive multiple of 4 and
/// every row start 4-byte aligned.
bool rows_are_words(ConstMatrixView x, ConstMatrixView y);

/// v's rows as 32-bit words: d / 4 int32 columns.
ConstMatrixView as_words(ConstMatrixView v);

/// What a row's sum is, for the expansion x_row + y_row - 2 x.y: the sum of the squares of its
/// bytes read as uint8 or int8 (squared L2), or the number of its set bits (Hamming distance,
/// |a| + |b| - 2 |a & b|, with the bits' AND-popcount as the product).
enum class RowSum { kUnsignedSquares, kSignedSquares, kBitCounts };

/// (rows, 1) int32 on the current device, in stream order: sum[r] = the RowSum of row r of
/// `words` (packed_u8_l2.cuh).
Array row_sums(ConstMatrixView words, RowSum kind, void* stream);

/// The row sums of x and of y, word views, kept alive in `keep`: y's are x's when y is x.
std::pair<void const*, void const*> row_sums(ConstMatrixView x_words, ConstMatrixView y_words, RowSum kind,
                                             std::vector<Array>& keep, void* stream);

/// The row sums of squared L2 for bytes read as int8 (signed_bytes) or uint8.
inline RowSum squares_of(bool signed_bytes) { return signed_bytes ? RowSum::kSignedSquares : RowSum::kUnsignedSquares; }

}  // namespace cudist::detail::cuda
