// Byte rows (uint8, int8) read as 32-bit words of four bytes, the form of the dp4a and int8
// tensor-core contractions of squared L2 and inner product (packed_u8_l2.cuh,
// packed_u8_mma_tile.cuh): whether a pair of inputs can be read so, the word view, and each row's
// sum of squares for the expansion |x|^2 + |y|^2 - 2 x.y (exact in integers).
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

/// (rows, 1) int32 on the current device, in stream order: sq[r] = the sum of the squares of the
/// bytes of row r of `words`, read as int8 where signed_bytes, else as uint8.
Array byte_squares(ConstMatrixView words, bool signed_bytes, void* stream);

/// The row squares (byte_squares) of x and of y, word views, kept alive in `keep`: y's are x's
/// when y is x.
std::pair<void const*, void const*> row_squares(ConstMatrixView x_words, ConstMatrixView y_words, bool signed_bytes,
                                                std::vector<Array>& keep, void* stream);

}  // namespace cudist::detail::cuda
