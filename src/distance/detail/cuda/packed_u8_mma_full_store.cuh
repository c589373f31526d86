// The full-layout store of byte and bit rows' cdist (packed_u8_mma_store.cu) straight from the MMA's
// accumulators: the contraction of mma_column_tiles.cuh (x's 128-row tile resident, y's column
// tiles double-buffered with their rows' squares), and each lane finishes and stores the pairs
// the MMA left in its registers. Lane (g, q) of warp w holds rows 16 w + g and 16 w + g + 8; y's
// rows sit in shared memory in the order that gives it, for each pair of n8 tiles (2 j, 2 j + 1)
// of half-tile h, the four consecutive columns 64 h + 16 j + 4 q + {0, 1 | 2, 3} (ColumnSlots):
// one 16-byte streaming store per row and pair, whose 32 lanes write 8 rows x 64 bytes. A store
// instruction costs L1 a request per 128-byte line it touches (8 here, one per row): in y's own
// order each lane held two consecutive columns, and 8-byte stores paid the same 8 requests for
// half the bytes (ncu, H200 run 101: L1 at 89% of its throughput, 10.1 M store requests).
//
// Why not the engine's store: the contraction of packed_u8_mma_tile.cuh hands its tile to the
// SIMT store's 8 x 8-per-thread layout through shared memory (four passes of 8 stores and 8 loads
// a thread per tile), and ncu on D3u (H200 run 99) put a sixth of the stalls on that exchange; the
// 64-entry register tile it fills spilled. Here a lane holds 32 accumulators at a time.
//
// Rows of whole 16-byte chunks up to kMaxDepth bytes (the contraction's copies); the condensed
// layout, other rows and deeper ones keep packed_u8_mma_store.cu's kernel.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/cuda/interrupt_word.cuh"
#include "distance/detail/cuda/mma_column_tiles.cuh"
#include "distance/detail/cuda/mma_sync.cuh"
#include "distance/detail/cuda/packed_u8_l2.cuh"
#include "distance/detail/cuda/pairwise_kernel.cuh"

namespace cudist::detail::cuda {

/// Product: the MMA (mma::MmaBytes<signed> for uint8 / int8 rows, mma::MmaBitsAnd for bit rows).
/// Op: the finish of the exact integer (Op::finish(acc, i, j) -> float), with Op::kNeedsRowSums
/// where acc is x_row + y_row - 2 x.y (the rows' sums of squares or bit counts) rather than the
/// product itself.
template <class Product, class Op>
struct PackedByteMmaFullStoreKernel {
  static constexpr int kThreads = 256;
  using Tiles = MmaColumnTiles<kThreads>;
  static constexpr int kTile = Tiles::kTile;
  static constexpr int kNTiles = Tiles::kNTiles;
  // Four 55 KB blocks (rows of 128 bytes) fit an SM; 64 registers a thread keeps them there.
  static constexpr int kMinBlocks = 4;
  static constexpr int kMaxDepth = 256;  // bytes: three tiles of 272-byte rows, two blocks an SM
  static constexpr bool kSquares = Op::kNeedsRowSums;
  using Out = typename Op::Output;
  static_assert(sizeof(Out) == 4, "four outputs per 16-byte store");
  // The engine's parameters: the output window, layout and op; x and y as 32-bit words.
  using StoreParams = typename PairwiseTileKernel<Op, std::uint32_t, PairwisePolicy<4, TileShape::kLarge>>::Params;

  struct Params {
    StoreParams store;
    std::uint32_t const *x_sq, *y_sq;  // each row's sum of squares or bit count (kSquares)
    std::int64_t tiles_per_block;      // column tiles a block walks (blockIdx.x: which run of them)
  };

  struct SharedStorage {
    alignas(16) std::uint32_t y_sq[2][kTile];  // the squares of each y buffer's columns
  };
  static constexpr std::size_t kTilesOffset = (sizeof(SharedStorage) + 127) / 128 * 128;

  /// The shared row of y's tile column t: MMA column 8 nt + 2 q + e of half h is tile column
  /// 64 h + 16 (nt / 2) + 4 q + 2 (nt % 2) + e.
  struct ColumnSlots {
    __device__ int operator()(int t) const {
      int const c = t % 64, j = c / 16, q = c % 16 / 4, w = c % 4;
      return 64 * (t / 64) + 8 * (2 * j + w / 2) + 2 * q + w % 2;
    }
  };

  /// Dynamic shared memory for rows of `depth` bytes: SharedStorage, then x's tile and y's two.
  static std::size_t smem_bytes(int depth) { return kTilesOffset + 3 * Tiles::tile_bytes(depth); }

  /// Column tile col0 of y, and its rows' squares, into one buffer.
  __device__ static void load_columns(Params const& p, unsigned char const* y, std::int64_t ldy, int depth,
                                      std::int64_t col0, unsigned char* ys, std::uint32_t* y_sq, int tid) {
    std::int64_t const n = p.store.n;
    Tiles::load(y, ldy, n, depth, col0, ys, ColumnSlots{}, tid);
    if (kSquares && tid < kTile) {
      bool const live = col0 + tid < n;
      mma::copy_async<4>(static_cast<unsigned>(__cvta_generic_to_shared(y_sq + tid)), live ? p.y_sq + col0 + tid : p.y_sq,
                         live ? 4 : 0);
    }
  }

  /// The finished output of a pair from its dot product.
  __device__ static Out finish(StoreParams const& o, int dot, std::uint32_t x_sq, std::uint32_t y_sq) {
    auto const acc =
        kSquares ? PackedByteSqL2Op<false>::expanded(x_sq, y_sq, static_cast<std::uint32_t>(dot)) : static_cast<std::uint32_t>(dot);
    return o.op.finish(acc, 0, 0);  // the byte ops' finish reads no per-row or per-column data
  }

  /// One half-tile's pairs into the output. kInterior: the tile lies inside the window and off
  /// the diagonal the window zeroes, and the rows allow 16-byte stores: no per-pair test.
  template <bool kInterior>
  __device__ static void store_half(StoreParams const& o, int const (&c)[kNTiles][4], std::int64_t const (&row)[2],
                                    Out* const (&row_out)[2], std::uint32_t const (&x_sq)[2],
                                    std::uint32_t const* y_sq, std::int64_t col, int q) {
#pragma unroll
    for (int j = 0; j < kNTiles / 2; ++j) {
      uint4 const ys = kSquares ? *reinterpret_cast<uint4 const*>(y_sq + 16 * j + 4 * q) : make_uint4(0, 0, 0, 0);
      std::int64_t const c0 = col + 16 * j + 4 * q;
#pragma unroll
      for (int sl = 0; sl < 2; ++sl) {
        Out const v[4] = {finish(o, c[2 * j][2 * sl], x_sq[sl], ys.x), finish(o, c[2 * j][2 * sl + 1], x_sq[sl], ys.y),
                          finish(o, c[2 * j + 1][2 * sl], x_sq[sl], ys.z),
                          finish(o, c[2 * j + 1][2 * sl + 1], x_sq[sl], ys.w)};
        if constexpr (kInterior) {
          __stcs(reinterpret_cast<float4*>(row_out[sl] + c0), make_float4(v[0], v[1], v[2], v[3]));
        } else if (row[sl] < o.row_end) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            // The engine's store_value rule for the full layout, through the row's own address:
            // store_value itself (the window's address from the parameters) made ptxas spill more.
            Out w = v[e];
            if (o.zero_diagonal && row[sl] == c0 + e && isfinite(w)) w = Out(0);
            if (c0 + e < o.n) row_out[sl][c0 + e] = w;
          }
        }
      }
    }
  }

  __device__ void operator()(Params const& p, SharedStorage& s, unsigned char* tiles) const {
    StoreParams const& o = p.store;
    std::int64_t const row0 = o.row_begin + static_cast<std::int64_t>(blockIdx.y) * kTile;
    std::int64_t const first = static_cast<std::int64_t>(blockIdx.x) * p.tiles_per_block;
    std::int64_t const last = min(first + p.tiles_per_block, (o.n + kTile - 1) / kTile);
    if (first >= last) return;
    if (block_interrupted(o.interrupt)) return;  // the host throws after the launch
    int const tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32, q = lane % 4;
    int const depth = static_cast<int>(4 * o.d);
    auto const* const x = reinterpret_cast<unsigned char const*>(o.x);
    auto const* const y = reinterpret_cast<unsigned char const*>(o.y);
    std::size_t const tile_bytes = Tiles::tile_bytes(depth);
    unsigned char* const xs = tiles;  // then y's two buffers

    // The lane's rows (slots 0, 1), their outputs (a row past the window keeps the last one's
    // address, never stored through) and their squares.
    std::int64_t const row[2] = {row0 + 16 * warp + lane / 4, row0 + 16 * warp + lane / 4 + 8};
    Out* row_out[2];
    std::uint32_t x_sq[2] = {0, 0};
#pragma unroll
    for (int sl = 0; sl < 2; ++sl) {
      row_out[sl] = o.out + (min(row[sl], o.row_end - 1) - o.row_begin) * o.ldo;
      if (kSquares && row[sl] < o.row_end) x_sq[sl] = p.x_sq[row[sl]];
    }

    Tiles::load(x, 4 * o.ldx, o.row_end, depth, row0, xs, typename Tiles::InOrder{}, tid);
    load_columns(p, y, 4 * o.ldy, depth, first * kTile, xs + tile_bytes, s.y_sq[0], tid);
    for (std::int64_t t = first; t < last; ++t) {
      int const buf = static_cast<int>((t - first) % 2);
      unsigned char* const ys = xs + (1 + buf) * tile_bytes;  // not an array indexed by buf: local memory
      std::int64_t const col0 = t * kTile;
      mma::wait_async_copies();
      __syncthreads();  // this tile is in; every warp is done with the other buffer
      if (t + 1 < last) load_columns(p, y, 4 * o.ldy, depth, col0 + kTile, xs + (2 - buf) * tile_bytes, s.y_sq[buf ^ 1], tid);
      bool const crosses_diagonal = row0 < col0 + kTile && col0 < row0 + kTile;
      bool const interior = row0 + kTile <= o.row_end && col0 + kTile <= o.n && o.out_vec &&
                            !(o.zero_diagonal && crosses_diagonal);
#pragma unroll 1
      for (int half = 0; half < 2; ++half) {
        int c[kNTiles][4];
        Tiles::contract(xs, ys, depth, warp, lane, half, c, Product{});
        std::uint32_t const* y_sq = s.y_sq[buf] + 64 * half;
        std::int64_t const col = col0 + 64 * half;
        if (interior) {
          store_half<true>(o, c, row, row_out, x_sq, y_sq, col, q);
        } else {
          store_half<false>(o, c, row, row_out, x_sq, y_sq, col, q);
        }
      }
    }
  }
};

template <class Product, class Op>
__global__ void __launch_bounds__(PackedByteMmaFullStoreKernel<Product, Op>::kThreads,
                                  PackedByteMmaFullStoreKernel<Product, Op>::kMinBlocks)
    packed_byte_mma_full_store_kernel(typename PackedByteMmaFullStoreKernel<Product, Op>::Params const p) {
  using Kernel = PackedByteMmaFullStoreKernel<Product, Op>;
  extern __shared__ __align__(128) unsigned char smem[];
  Kernel{}(p, *reinterpret_cast<typename Kernel::SharedStorage*>(smem), smem + Kernel::kTilesOffset);
}

}  // namespace cudist::detail::cuda
