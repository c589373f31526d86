// Merge-path SpMV/SpMM (merge_path.hpp): tile t of the merge path, kTileItems rows + nonzeros,
// is one block. The block
//   1. stages the tile in shared memory: the local end of every row that ends in the tile, and
//      the product mul(a_k, x(col_k, c)) of every nonzero (coalesced, streaming loads);
//   2. lets each thread consume kItemsPerThread consecutive steps of the path, summing products
//      and closing rows, keeping the sum of the row it is in at the end (its carry);
//   3. combines the carries with a block-wide segmented scan, so the first row each thread closes
//      receives the part of that row held by the threads before it;
//   4. writes y for the rows the tile holds from start to end, coalesced.
// The tile's first closed row (the head, which may have begun in earlier tiles) and the sum of
// the unfinished row at its end (the carry) go to per-tile scratch; MergePathFixup then writes
// each head with the carries of the tiles before it, in tile order. No atomics: the result is
// the same every run.
#pragma once

#include <cub/block/block_scan.cuh>

#include <climits>
#include <cstdint>

#include "sparse/detail/cuda/csr_arrays.cuh"
#include "sparse/detail/cuda/kernel_launch.cuh"
#include "sparse/detail/cuda/load.cuh"
#include "sparse/detail/cuda/policy.hpp"
#include "sparse/detail/cuda/strided_vector.cuh"
#include "sparse/detail/cuda/warp_reduce.cuh"
#include "sparse/detail/dense_operand.hpp"
#include "sparse/detail/merge_path.hpp"

namespace cudist::sparse::detail::cuda {

/// Per-tile partial rows of a merge-path product, kCols values each (scratch of the plan).
template <class T>
struct TilePartials {
  T* heads;    // (tiles, kCols): the first row each tile closes, this tile's part only
  T* carries;  // (tiles, kCols): the row each tile leaves unfinished, this tile's part
};

/// The row-end list of a staged tile, in the tile's own 32-bit positions.
struct StagedRowEnds {
  int const* ends;
  CUDIST_HD int operator()(int i) const { return ends[i]; }
};

template <class T, class I, int kCols, class Semiring, class Output>
struct MergePathSpmv {
  using Policy = MergePathPolicy<T>;
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kItemsPerThread = Policy::kItemsPerThread;
  static constexpr int kTileItems = Policy::kTileItems;

  /// What a thread passes to the threads after it: its carry, and whether it closed a row (then
  /// nothing before it matters to the threads after it).
  struct Carry {
    T value[kCols];
    bool closed_row;
  };
  struct SegmentedSum {
    __device__ Carry operator()(Carry const& before, Carry const& after) const {
      if (after.closed_row) return after;
      Carry sum;
      sum.closed_row = before.closed_row;
#pragma unroll
      for (int c = 0; c < kCols; ++c) sum.value[c] = Semiring::add(before.value[c], after.value[c]);
      return sum;
    }
  };
  // Warp scans, not raking: the raking grid would hold a Carry per thread in shared memory.
  using BlockScan = cub::BlockScan<Carry, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;

  struct Params {
    CsrArrays<T, I> a;
    std::int64_t const* tile_rows;  // (tiles + 1): rows closed before each tile
    DenseOperand<T const> x;        // columns [0, active_cols) of this pass
    DenseOperand<T> y;
    int active_cols;  // <= kCols
    Output out;
    TilePartials<T> partials;
  };

  struct SharedStorage {
    int row_ends[kTileItems + 1];  // tile-local end of each row closed in the tile; sentinel
    T values[kTileItems * kCols];  // staged products, then the closed rows' sums
    typename BlockScan::TempStorage scan;
  };

  __device__ void operator()(Params const& p, SharedStorage& s, ThreadCoords const& t) const {
    std::int64_t const tile = t.block;
    std::int64_t const total = p.a.rows + p.a.nnz;
    std::int64_t const d0 = tile * kTileItems;
    std::int64_t const d1 = d0 + kTileItems < total ? d0 + kTileItems : total;
    std::int64_t const row0 = p.tile_rows[tile];
    std::int64_t const nz0 = d0 - row0;
    int const tile_rows = static_cast<int>(p.tile_rows[tile + 1] - row0);
    int const tile_nnz = static_cast<int>(d1 - p.tile_rows[tile + 1] - nz0);

    // 1. Stage row ends and products.
    I const* const ends = p.a.row_offsets + row0 + 1;
    for (int i = t.thread; i < tile_rows; i += kThreads) s.row_ends[i] = static_cast<int>(load_cached(ends + i) - nz0);
    if (t.thread == 0) s.row_ends[tile_rows] = INT_MAX;  // the unfinished last row never ends
    stage_products(p, s, t.thread, nz0, tile_nnz);
    __syncthreads();

    // 2. Consume this thread's steps of the path.
    int const tile_items = tile_rows + tile_nnz;
    int const start =
        t.thread * kItemsPerThread < tile_items ? t.thread * kItemsPerThread : tile_items;
    int row = merge_path_rows<int>(start, StagedRowEnds{s.row_ends}, tile_rows, tile_nnz);
    int nz = start - row;
    int const steps = tile_items - start < kItemsPerThread ? tile_items - start : kItemsPerThread;

    Carry mine;
    mine.closed_row = false;
#pragma unroll
    for (int c = 0; c < kCols; ++c) mine.value[c] = Semiring::zero();
    T closed_sum[kItemsPerThread][kCols];  // sum of the row closed at step i, if any
    int closed_row[kItemsPerThread];       // its tile-local index, or -1
#pragma unroll
    for (int i = 0; i < kItemsPerThread; ++i) {
      closed_row[i] = -1;
      if (i >= steps) continue;
      if (nz < s.row_ends[row]) {
#pragma unroll
        for (int c = 0; c < kCols; ++c) {
          mine.value[c] = Semiring::add(mine.value[c], s.values[nz * kCols + c]);
        }
        ++nz;
      } else {
        closed_row[i] = row++;
        mine.closed_row = true;
#pragma unroll
        for (int c = 0; c < kCols; ++c) {
          closed_sum[i][c] = mine.value[c];
          mine.value[c] = Semiring::zero();
        }
      }
    }

    // 3. What the threads before this one hold of the row it is in when it starts.
    Carry before, tile_carry;
    BlockScan(s.scan).ExclusiveScan(mine, before, SegmentedSum{}, tile_carry);
    if (t.thread == 0) {
      before.closed_row = false;
#pragma unroll
      for (int c = 0; c < kCols; ++c) before.value[c] = Semiring::zero();
    }
    __syncthreads();  // every thread is done with the staged products: reuse them for row sums

    bool first_closed = true;
#pragma unroll
    for (int i = 0; i < kItemsPerThread; ++i) {
      if (closed_row[i] < 0) continue;
      if (first_closed) {
#pragma unroll
        for (int c = 0; c < kCols; ++c)
          closed_sum[i][c] = Semiring::add(before.value[c], closed_sum[i][c]);
        first_closed = false;
      }
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        if (closed_row[i] == 0) {
          p.partials.heads[tile * kCols + c] = closed_sum[i][c];
        } else {
          s.values[closed_row[i] * kCols + c] = closed_sum[i][c];
        }
      }
    }
    if (t.thread == kThreads - 1) {
#pragma unroll
      for (int c = 0; c < kCols; ++c) p.partials.carries[tile * kCols + c] = tile_carry.value[c];
    }
    __syncthreads();

    // 4. Rows held entirely by this tile (all but the head).
    for (int r = 1 + t.thread; r < tile_rows; r += kThreads) {
      for (int c = 0; c < p.active_cols; ++c) {
        T& y = p.y.at(row0 + r, c);
        y = p.out(s.values[r * kCols + c], p.out.reads_y() ? y : T(0));
      }
    }
  }

  /// s.values[k * kCols + c] = mul(a_k, x(col_k, c)) for the tile's nonzeros: coalesced loads,
  /// all issued before the first gather of x. Addresses from the tile's base pointers with 32-bit
  /// offsets; an SpMV's x as StridedVector (one IMAD.WIDE.U32 a gather for 32-bit indices).
  ///
  /// A tile starts at any nonzero, so a warp's 32 consecutive loads of an array touched 5 sectors
  /// where 4 hold them (ncu run 171 on S2: 4.87 sectors a load, the matrix's stream 1.4x its bytes
  /// through L2, on a kernel bound by L2 throughput), in two 128-byte lines, so two L2 requests
  /// where one holds them (run 179: S2 bound by L2 tag lookups, one a request, and making 2.0 M
  /// more read requests than cuSPARSE from fewer L1 misses). So the lanes' loads start at the
  /// 128-byte line of the values at or before the tile's first nonzero, `lead` elements earlier;
  /// those lanes load nothing. Indices of the values' width share the boundary where their array
  /// is aligned alike (cudaMalloc's arrays are); otherwise they stream as before.
  static __device__ void stage_products(Params const& p, SharedStorage& s, int thread,
                                        std::int64_t nz0, int tile_nnz) {
    constexpr int kLineValues = 128 / sizeof(T);
    static_assert(kLineValues <= kThreads, "the lead fits in the one extra load of each thread");
    int const lead = static_cast<int>(reinterpret_cast<std::uintptr_t>(p.a.values + nz0) / sizeof(T) % kLineValues);
    I const* const col_indices = p.a.col_indices + nz0 - lead;  // element `lead` is the tile's first
    T const* const values = p.a.values + nz0 - lead;
    int const loads = lead + tile_nnz;
    // One more than a tile's items: lead + tile_nnz exceeds them in tiles of fewer rows than lead.
    constexpr int kLoads = kItemsPerThread + 1;
    I cols[kLoads];
    T vals[kLoads];
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      int const k = thread + i * kThreads;
      if (k >= lead && k < loads) {
        cols[i] = load_streaming(col_indices + k);
        vals[i] = load_streaming(values + k);
      }
    }
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      int const k = thread + i * kThreads;
      if (k < lead || k >= loads) continue;
      int const at = k - lead;
      if constexpr (kCols == 1) {
        StridedVector<T const> const x{reinterpret_cast<unsigned char const*>(p.x.data),
                                       static_cast<std::uint64_t>(p.x.row_stride) * sizeof(T)};
        s.values[at] = Semiring::mul(vals[i], load_cached(&x[cols[i]]));
      } else {  // SpMM: StridedVector's four column bases spilled at its 64 registers
#pragma unroll
        for (int c = 0; c < kCols; ++c) {
          s.values[at * kCols + c] =
              c < p.active_cols ? Semiring::mul(vals[i], load_cached(&p.x.at(cols[i], c))) : Semiring::zero();
        }
      }
    }
  }
};

/// Writes each tile's head row: its own part, plus the carries of the run of tiles before it
/// that ended inside the same row (all of them, for a row spanning many tiles). One warp per
/// tile, reading the run 32 tiles at a time from the nearest; fixed order, so deterministic.
template <class T, int kCols, class Semiring, class Output>
struct MergePathFixup {
  static constexpr int kThreads = 256;
  static constexpr int kWarps = kThreads / 32;

  struct Params {
    std::int64_t const* tile_rows;
    std::int64_t tiles;
    DenseOperand<T> y;
    int active_cols;
    Output out;
    TilePartials<T> partials;
  };
  struct SharedStorage {};

  __device__ void operator()(Params const& p, SharedStorage&, ThreadCoords const& t) const {
    std::int64_t const tile = t.block * kWarps + t.thread / 32;
    int const lane = t.thread % 32;
    if (tile >= p.tiles) return;
    std::int64_t const head = p.tile_rows[tile];
    if (p.tile_rows[tile + 1] == head) return;  // the tile closes no row

    T acc[kCols];
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      acc[c] = lane == 0 ? p.partials.heads[tile * kCols + c] : Semiring::zero();
    }
    // Tile s carries into `head` when it ends inside it: tile_rows[s + 1] == head.
    for (std::int64_t nearest = tile - 1; nearest >= 0; nearest -= 32) {
      std::int64_t const s = nearest - lane;
      bool const in_run = s >= 0 && p.tile_rows[s + 1] == head;
      if (in_run) {
#pragma unroll
        for (int c = 0; c < kCols; ++c) {
          acc[c] = Semiring::add(acc[c], p.partials.carries[s * kCols + c]);
        }
      }
      if (!__all_sync(0xffffffffu, in_run)) break;  // tile_rows is sorted: the run has ended
    }
#pragma unroll
    for (int c = 0; c < kCols; ++c) acc[c] = reduce_lane_groups<Semiring>(acc[c], 5);
    if (lane == 0) {
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        if (c >= p.active_cols) break;
        T& y = p.y.at(head, c);
        y = p.out(acc[c], p.out.reads_y() ? y : T(0));
      }
    }
  }
};

}  // namespace cudist::sparse::detail::cuda
