// The fused searches' block -> (row tile, column chunk) map (work_grid.cuh), on the host: in either
// block order every pair of a row tile and a chunk is one block's, and a tile's chunks split its
// columns into adjacent runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "neighbors/detail/cuda/select_policy.hpp"
#include "neighbors/detail/cuda/work_grid.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

/// Every block of `grid` (blocks = row tiles x chunks): its items, checked for the map's promises.
void expect_a_partition(WorkGrid const& grid, std::int64_t rows, std::vector<RowTile> const& tiles) {
  std::int64_t const blocks = grid.row_tiles * grid.chunks;
  std::set<std::pair<std::int64_t, int>> seen;  // (first row, chunk)
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> columns(grid.row_tiles);
  for (std::int64_t b = 0; b < blocks; ++b) {
    WorkItem const w = grid.item(b);
    ASSERT_GE(w.chunk, 0);
    ASSERT_LT(w.chunk, grid.chunks);
    EXPECT_TRUE(seen.insert({w.tile.row0, w.chunk}).second) << "block " << b << " repeats a tile and chunk";
    if (grid.chunks_outer) {
      EXPECT_EQ(w.chunk, b / grid.row_tiles) << "block " << b << ": chunk 0 of every tile comes first";
    } else {
      EXPECT_EQ(w.chunk, b % grid.chunks) << "block " << b << ": a tile's chunks are adjacent";
    }
    std::int64_t const t = grid.chunks_outer ? b % grid.row_tiles : b / grid.chunks;
    RowTile const expected = tiles.empty() ? RowTile{t * WorkGrid::kTileRows, rows, 0, 0, 0} : tiles[t];
    EXPECT_EQ(w.tile.row0, expected.row0);
    columns[t].resize(grid.chunks);
    columns[t][w.chunk] = {w.col_begin, w.col_end};
  }
  EXPECT_EQ(static_cast<std::int64_t>(seen.size()), blocks);
  for (std::int64_t t = 0; t < grid.row_tiles; ++t) {
    RowTile const tile = tiles.empty() ? grid.single : tiles[t];
    std::int64_t at = tile.y_begin;
    for (auto const& [begin, end] : columns[t]) {
      EXPECT_EQ(begin, at) << "tile " << t << ": a chunk starts where the one before ended";
      EXPECT_LE(begin, end);
      at = end;
    }
    EXPECT_EQ(at, tile.y_end) << "tile " << t << ": the chunks cover the tile's columns";
  }
}

TEST(WorkGrid, EveryTileAndChunkIsOneBlocksInEitherOrder) {
  for (bool outer : {false, true}) {
    for (std::int64_t rows : {1, 128, 300, 10000}) {
      for (std::int64_t n : {1, 127, 1000, 100000}) {
        for (int chunks : {1, 2, 5, 8}) {
          WorkGrid grid{};
          grid.single = RowTile{0, rows, 0, 0, n};
          grid.row_tiles = (rows + WorkGrid::kTileRows - 1) / WorkGrid::kTileRows;
          grid.chunks = chunks;
          grid.chunks_outer = outer;
          SCOPED_TRACE(testing::Message() << rows << " x " << n << ", " << chunks << " chunks, outer " << outer);
          expect_a_partition(grid, rows, {});
        }
      }
    }
  }
}

TEST(WorkGrid, BatchesTakeEachTilesOwnColumns) {
  // Two problems: rows [0, 200) against y [0, 50), rows [200, 300) against y [50, 1050).
  std::vector<RowTile> const tiles = {{0, 200, 0, 0, 50}, {128, 200, 0, 0, 50}, {200, 300, 200, 50, 1050}};
  for (bool outer : {false, true}) {
    for (int chunks : {1, 3}) {
      WorkGrid grid{};
      grid.tiles = tiles.data();
      grid.row_tiles = static_cast<std::int64_t>(tiles.size());
      grid.chunks = chunks;
      grid.chunks_outer = outer;
      SCOPED_TRACE(testing::Message() << chunks << " chunks, outer " << outer);
      expect_a_partition(grid, 0, tiles);
    }
  }
}

TEST(WorkGrid, ChunkCountsFillTheWavesTheSearchAsksFor) {
  // (row tiles, column tiles, slots) of the benchmark cases on 132 SMs, the counts measured on an
  // H200 (docs/tuning.md): no least number of blocks gives the plain split; a chained search asks
  // for four waves of blocks, which it gets where 32 chunks can give them; the chained byte search
  // takes blocks of at most 128 column tiles and nine waves at least.
  EXPECT_EQ(choose_chunks(79, 782, 132), 5);                // K2
  EXPECT_EQ(choose_chunks(79, 782, 132, 4 * 132), 10);      // K2, chained: 790 blocks, 6 waves
  EXPECT_EQ(choose_chunks(79, 1563, 264, 4 * 264), 20);     // K3i, chained
  EXPECT_EQ(choose_chunks(1241, 1241, 264, 4 * 264), 17);   // K3 by the float32 search's rule
  EXPECT_EQ(byte_search_chunks(1241, 1241, 264), 10);       // K3: blocks of 125 tiles, 47 waves
  EXPECT_EQ(byte_search_chunks(79, 1563, 264), 31);         // K3i: 9 waves of 51-tile blocks
  EXPECT_EQ(byte_search_chunks(32, 157, 264), 32);          // SIFT matching's shape: the most chunks
  EXPECT_EQ(byte_search_chunks(1, 1, 264), 1);              // one tile
  EXPECT_EQ(choose_chunks(32, 157, 264), 8);                // K1 (best two: no chain)
  EXPECT_EQ(choose_chunks(32, 157, 264, balance_blocks(32, 157, 264)), 8);     // K1: short blocks already
  EXPECT_EQ(choose_chunks(79, 7813, 264), 10);                                 // K5 unbalanced: 782 tiles a block
  EXPECT_EQ(choose_chunks(79, 7813, 264, balance_blocks(79, 7813, 264)), 30);  // K5: 261 tiles, 9 waves
  EXPECT_EQ(balance_blocks(7813, 7813, 264), 9 * 264);  // a million rows: their row tiles fill 9 waves
  EXPECT_EQ(choose_chunks(7813, 7813, 264, balance_blocks(7813, 7813, 264)), choose_chunks(7813, 7813, 264));
  for (std::int64_t rows : {1, 3, 79, 1000}) {
    for (std::int64_t cols : {1, 2, 31, 1563}) {
      for (int waves : {0, 4}) {
        int const s = choose_chunks(rows, cols, 132, waves * 132);
        SCOPED_TRACE(testing::Message() << rows << " x " << cols << " tiles, " << waves << " waves");
        EXPECT_GE(s, 1);
        EXPECT_LE(s, std::min<std::int64_t>(cols, kMaxChunks));
        if (rows * std::min<std::int64_t>(cols, kMaxChunks) >= waves * 132) EXPECT_GE(rows * s, waves * 132);
      }
    }
  }
}

}  // namespace
}  // namespace cudist::neighbors::detail::cuda
