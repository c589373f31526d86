// The tensor-core searches' tiles (bounded_search_kernel.cuh, exact_u8_l2_kernel.cuh): the shared
// contraction of distance/detail/cuda/mma_column_tiles.cuh (or its wgmma form), with which of a
// lane's pairs belong to the block's work (the chunk's columns, the problem's rows, not a point
// with itself).
#pragma once

#include <cstdint>

#include "distance/detail/cuda/mma_column_tiles.cuh"
#include "neighbors/detail/cuda/work_grid.cuh"

namespace cudist::neighbors::detail::cuda {

/// Base: the contraction, MmaColumnTiles (mma.sync) or WgmmaColumnTiles (wgmma: byte rows, and
/// float16 rows for the best two).
template <int kThreads, class Base = cudist::detail::cuda::MmaColumnTiles<kThreads>>
struct MmaSearchTiles : Base {
  static_assert(Base::kTile == WorkGrid::kTileRows, "a work item's row tile is the contraction's");

  /// Bit 16 h + 2 nt + j of slot s: (row s, column col0 + 64 h + 8 nt + 2 q + j) holds
  /// (WorkItem::holds).
  __device__ static void valid_masks(WorkItem const& w, std::int64_t col0, std::int64_t const (&row)[2], int q,
                                     bool exclude_self, std::uint32_t (&valid)[2]) {
    if (w.holds_whole_tile(col0, exclude_self)) {
      valid[0] = valid[1] = ~0u;
      return;
    }
#pragma unroll
    for (int sl = 0; sl < 2; ++sl) {
      valid[sl] = 0;
#pragma unroll
      for (int b = 0; b < 32; ++b) {
        valid[sl] |= static_cast<std::uint32_t>(w.holds(row[sl], Base::column(col0, b, q), exclude_self)) << b;
      }
    }
  }
};

}  // namespace cudist::neighbors::detail::cuda
