// Which part of the problem a block of the fused selection works on: one 128-row tile of one
// problem of the batch, and one contiguous chunk of that problem's columns (the column split keeps
// every SM busy when there are few row tiles; the chunks' answers are merged afterwards).
#pragma once

#include <cstdint>

#include "core/detail/host_device.hpp"

namespace cudist::neighbors::detail::cuda {

/// A 128-row tile of x and the problem it belongs to.
struct RowTile {
  std::int64_t row0;      // first row of the tile (global row of x)
  std::int64_t row_end;   // end of the problem's rows
  std::int64_t x_begin;   // first row of the problem: query indices count from here
  std::int64_t y_begin;   // the problem's rows of y: [y_begin, y_end)
  std::int64_t y_end;
};

/// What one block does.
struct WorkItem {
  static constexpr int kTileRows = 128;
  RowTile tile;
  std::int64_t col_begin, col_end;  // this block's chunk of [y_begin, y_end)
  std::int64_t row_tile;            // the tile's index in the grid
  int chunk;

  /// Whether (row, col) is a pair of the problem in this chunk, and not a point with itself in a
  /// self-join without the points themselves.
  CUDIST_HD bool holds(std::int64_t row, std::int64_t col, bool exclude_self) const {
    return row < tile.row_end && col < col_end && !(exclude_self && row == col);
  }

  /// Whether the 128 x 128 tile at (tile.row0, col0) holds pairs (i, i).
  CUDIST_HD bool tile_crosses_diagonal(std::int64_t col0) const {
    return tile.row0 < col0 + kTileRows && col0 < tile.row0 + kTileRows;
  }

  /// Whether every pair of the tile at (tile.row0, col0) holds: then no pair needs its own test.
  CUDIST_HD bool holds_whole_tile(std::int64_t col0, bool exclude_self) const {
    bool const inside = tile.row0 + kTileRows <= tile.row_end && col0 + kTileRows <= col_end;
    return inside && !(exclude_self && tile_crosses_diagonal(col0));
  }
};

struct WorkGrid {
  static constexpr int kTileRows = WorkItem::kTileRows;
  RowTile single;       // the whole problem when tiles is null: row0 is 0, advanced per tile
  RowTile const* tiles; // batch: one entry per row tile (device memory)
  std::int64_t row_tiles;
  int chunks;           // column chunks per row tile
  /// Block order. false: the chunks of a row tile are adjacent blocks. true: blocks take chunk 0 of
  /// every row tile, then chunk 1, and so on, so that where the chunks of a row pool their bars
  /// (the tensor-core search: bounded_search_kernel.cuh's share_bars) only the blocks a GPU runs
  /// first start a row cold and the later chunks find its bar narrowed by a whole chunk.
  bool chunks_outer;
  /// Blocks of the grid that earlier launches ran: a streamed database launches a chunks_outer
  /// grid a few chunks at a time, once their rows of y are on the device (streamed_database.hpp).
  std::int64_t first_block = 0;

  CUDIST_HD WorkItem item(std::int64_t launched) const {
    std::int64_t const block = first_block + launched;
    std::int64_t const t = chunks_outer ? block % row_tiles : block / chunks;
    WorkItem w;
    w.row_tile = t;
    w.chunk = static_cast<int>(chunks_outer ? block / row_tiles : block % chunks);
    if (tiles != nullptr) {
      w.tile = tiles[t];
    } else {
      w.tile = single;
      w.tile.row0 = t * kTileRows;
    }
    // The problem's column tiles are split evenly: chunk c takes tiles [c T / S, (c + 1) T / S).
    std::int64_t const col_tiles = (w.tile.y_end - w.tile.y_begin + kTileRows - 1) / kTileRows;
    std::int64_t const lo = col_tiles * w.chunk / chunks, hi = col_tiles * (w.chunk + 1) / chunks;
    w.col_begin = w.tile.y_begin + lo * kTileRows;
    w.col_end = w.tile.y_begin + hi * kTileRows;
    if (w.col_end > w.tile.y_end) w.col_end = w.tile.y_end;
    return w;
  }
};

}  // namespace cudist::neighbors::detail::cuda
