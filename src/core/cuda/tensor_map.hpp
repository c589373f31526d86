// Tensor maps for Hopper's tensor memory accelerator (TMA): the descriptor a kernel's bulk tensor
// copies read (cp.async.bulk.tensor), made on the host by the driver's cuTensorMapEncodeTiled,
// reached through the runtime (no link against the driver library).
#pragma once

#include <cuda.h>

#include <cstdint>

namespace cudist::detail::cuda {

/// A map of `rows` rows of `row_bytes` bytes (a multiple of 16; `stride` bytes apart, 16-byte
/// aligned) at `base`, copied in boxes of 128 bytes x 128 rows into the 128-byte-swizzled layout
/// wgmma reads (wgmma_column_tiles.cuh); bytes past a row's end and rows past the last read as
/// zeros. False where the driver or toolkit offers no tensor maps (then the kernel copies by
/// cp.async).
bool encode_byte_rows_map(CUtensorMap& map, void const* base, std::int64_t rows, int row_bytes, std::int64_t stride);

/// A map of `rows` rows of `cols` 32-bit words (contiguous rows of a multiple of 16 bytes) at
/// `base` (16-byte aligned), copied in boxes of box_rows whole rows as they lie (no swizzle); rows
/// past the last read as zeros. False where the driver offers no tensor maps or the arguments
/// are not a map's.
bool encode_word_rows_map(CUtensorMap& map, void const* base, int cols, std::int64_t rows, int box_rows);

}  // namespace cudist::detail::cuda
