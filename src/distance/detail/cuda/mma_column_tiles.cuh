// What the tensor-core kernels that use each pair where the MMA leaves it share (the searches
// bounded_search_kernel.cuh on float16 rows and exact_u8_l2_kernel.cuh on byte rows, and the byte
// rows' cdist store packed_u8_mma_full_store.cuh): a block keeps its 128-row tile of x in shared
// memory for its whole run of columns and streams 128-column tiles of y (double-buffered); warp w
// contracts 16 tile rows (the fused consumers' layout, mma::mma_row_slot, or rows 16 w .. 16 w +
// 15) against 64 columns at a time straight from shared memory. Both MMAs (m16n8k16 float16,
// m16n8k32 uint8) take 32 bytes of each row per step in the same fragment layout, so the tiles are
// bytes and one ldmatrix pattern serves both: c[nt] holds rows g, g + 8 (g = lane / 4) and columns
// 64 h + 8 nt + 2 (lane % 4) + {0, 1}.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/detail/host_device.hpp"
#include "distance/detail/cuda/mma_sync.cuh"

namespace cudist::detail::cuda {

template <int kThreads>
struct MmaColumnTiles {
  static constexpr int kTile = 128;
  static constexpr int kNTiles = kTile / 16;  // n8 MMA tiles across half of a warp's 128 columns

  /// Bytes a tile row's contraction reads: whole 32-byte steps.
  static CUDIST_HD int step_bytes(int data_bytes) { return (data_bytes + 31) / 32 * 32; }

  /// Bytes of a tile row in shared memory: 16 past the steps, so that ldmatrix's 8 consecutive
  /// rows (16 bytes each) fall on distinct banks.
  static CUDIST_HD int row_bytes(int data_bytes) { return step_bytes(data_bytes) + 16; }

  /// One tile of rows of data_bytes (a block holds three: x, and y double-buffered); the tiles
  /// start kAlignment-aligned (aligned(): the block's dynamic shared memory already is).
  static CUDIST_HD std::size_t tile_bytes(int data_bytes) {
    return static_cast<std::size_t>(kTile) * row_bytes(data_bytes);
  }
  static constexpr int kAlignment = 16;
  __device__ static unsigned char* aligned(char* p) { return reinterpret_cast<unsigned char*>(p); }

  /// Between a thread's copies landing and the tile barrier: nothing (ldmatrix reads what the
  /// barrier publishes).
  __device__ static void publish_writes() {}

  /// Whether a kernel may copy y's tiles by TMA into this layout (WgmmaColumnTiles::copy_tile).
  static constexpr bool kByTma = false;

  /// y's buffer buf (0 or 1, or a pipeline's stage), after x's tile among the block's tiles of
  /// tile_bytes each: computed, not read from an array of them (indexed at run time, the array
  /// lives in local memory: a load on every half's path, ncu run 125).
  __device__ static unsigned char* y_buffer(unsigned char* tiles, std::size_t tile_bytes, int buf) {
    return tiles + (1 + buf) * tile_bytes;
  }

  /// Where a tile's row r (0..127) goes among its shared rows: in order (y's columns, and x's
  /// rows where warp w owns rows 16 w .. 16 w + 15), or in the fused consumers' row order
  /// (mma::mma_row_slot); a kernel may order its columns as its epilogue wants them.
  struct InOrder {
    __device__ int operator()(int r) const { return r; }
  };
  struct ConsumerRows {
    __device__ int operator()(int r) const { return mma::mma_row_slot(r); }
  };

  /// Rows row0.. (data_bytes each, a multiple of 16, stride bytes apart, 16-byte aligned) into a
  /// tile, row r at shared row slot(r), zero past row `rows` and past the data up to the last
  /// step's end.
  template <class Slot>
  __device__ static void load(unsigned char const* base, std::int64_t stride, std::int64_t rows, int data_bytes,
                              std::int64_t row0, unsigned char* dst, Slot slot, int tid) {
    auto const to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    int const rb = row_bytes(data_bytes);
    copy_rows(base, stride, rows, data_bytes, row0, [=](int r, int q) { return to + slot(r) * rb + 16 * q; }, tid);
  }

  /// The copies of load(), each 16-byte chunk q of tile row r to shared address place(r, q). A warp
  /// copies 32 / lanes rows at a time, lanes = the power of two at or above the row's chunks; the
  /// addresses advance by a constant.
  template <class Place>
  __device__ static void copy_rows(unsigned char const* base, std::int64_t stride, std::int64_t rows, int data_bytes,
                                   std::int64_t row0, Place place, int tid) {
    int const chunks = step_bytes(data_bytes) / 16, data_chunks = data_bytes / 16;
    // log2 of the lanes a row: no loop (the loop reloaded a spilled value at each step, after
    // every tile barrier of the byte cdist store: ~10% of its stall samples, ncu run 103).
    int const shift = 32 - __clz(chunks - 1);
    int const lane = tid % 32, q = lane & ((1 << shift) - 1);
    if (q >= chunks) return;
    int const step = (kThreads / 32) << (5 - shift);  // rows per pass of the block
    int const first = (tid / 32) * (32 >> shift) + (lane >> shift);
    unsigned char const* src = base + (row0 + first) * stride + 16 * q;
    if (row0 + kTile <= rows && q < data_chunks) {  // every row there, no zero fill: no test per copy
#pragma unroll 4
      for (int r = first; r < kTile; r += step, src += step * stride) mma::copy_async<16>(place(r, q), src, 16);
      return;
    }
    for (int r = first; r < kTile; r += step, src += step * stride) {
      bool const live = row0 + r < rows && q < data_chunks;
      mma::copy_async<16>(place(r, q), live ? src : base, live ? 16 : 0);
    }
  }

  /// The warp's 16 rows x columns 64 half .. 64 half + 63 into c (zeroed first).
  template <class Acc, class Mma>
  __device__ static void contract(unsigned char const* xs, unsigned char const* ys, int data_bytes, int warp,
                                  int lane, int half, Acc (&c)[kNTiles][4], Mma mma) {
#pragma unroll
    for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) c[nt][e] = Acc(0);
    accumulate(xs, ys, data_bytes, warp, lane, half, c, mma);
  }

  /// The same products added to c as it stands: mma(c[nt], a, b0, b1) per 32-byte step. A kernel
  /// that starts c from a per-column term gets it without an instruction per entry.
  template <class Acc, class Mma>
  __device__ static void accumulate(unsigned char const* xs, unsigned char const* ys, int data_bytes, int warp,
                                    int lane, int half, Acc (&c)[kNTiles][4], Mma mma) {
    int const rb = row_bytes(data_bytes);
    // ldmatrix.x4 rows: A, (rows 0-7 | 8-15) x (bytes 0-15 | 16-31); B, two n8 tiles x (bytes
    // 0-15 | 16-31).
    unsigned char const* a_row = xs + (16 * warp + lane % 8 + 8 * ((lane / 8) % 2)) * rb + 16 * (lane / 16);
    unsigned char const* b_row = ys + (64 * half + 8 * (lane / 16) + lane % 8) * rb + 16 * ((lane / 8) % 2);
    for (int k = 0; k < step_bytes(data_bytes); k += 32) {
      unsigned a[4];
      mma::ldmatrix_x4(a, a_row + k);
#pragma unroll
      for (int np = 0; np < kNTiles / 2; ++np) {
        unsigned b[4];
        mma::ldmatrix_x4(b, b_row + 16 * np * rb + k);
        mma(c[2 * np], a, b[0], b[1]);
        mma(c[2 * np + 1], a, b[2], b[3]);
      }
    }
  }

  /// Column of mask bit b (2 nt + j) of the lane with lane % 4 == q in the 64 columns at col0.
  __device__ static std::int64_t column(std::int64_t col0, int b, int q) {
    return col0 + 8 * (b / 2) + 2 * q + b % 2;
  }
};

}  // namespace cudist::detail::cuda
