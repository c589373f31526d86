// The tensor-core contraction for packed byte rows (packed_u8_l2.cuh): the dot products of a
// 128 x 128 tile through mma.sync m16n8k32 u8 x u8 -> s32, or s8 x s8 for int8 rows (sm_80 and
// later). Integer products summed in int32 are exact (255^2 d < 2^31), so the tile equals the
// SIMT engine's one value for value, and its consumers receive it in the engine's layout through
// compute_tile: the fused selections (top-k, best two, radius; the distances never leave the
// chip) and the store of cdist / pdist (packed_u8_mma_store.cu), their epilogues unchanged.
//
// Layout. The consumers need thread (tx, ty) to hold rows fragment(ty, i) and columns
// fragment(tx, j) (fused_select_kernel.cuh; the store's fragment_offset is the same). A warp w
// owns the 16 rows of ty = 2w, 2w + 1 over all 128 columns in both layouts, so warp w computes
// exactly its rows: its MMA row r is the engine's row fragment(2w + r / 8, r % 8). The MMA's
// accumulator layout (lanes of one row share columns) cannot be the engine's, so the warp
// computes the columns in four passes: pass p covers columns
// fragment(tx, 2p) and fragment(tx, 2p + 1) of every tx (its MMA column 2 tx + e is the engine's
// column fragment(tx, 2p + e)), and its 16 x 32 results go through a per-warp shared buffer into
// acc[i][2p], acc[i][2p + 1]. Both tiles are stored in shared memory in this MMA order, so every
// ldmatrix reads 8 consecutive rows (conflict-free with the padded row stride).
// Tiles are copied with cp.async (16-byte copies where the rows allow, else 4-byte words),
// zero-filled past d and past the last row: zeros add nothing. Rows of at most 128 bytes are
// pipelined (x resident, next y tile copied during this one); deeper rows go in 128-byte slabs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "distance/detail/cuda/mma_sync.cuh"
#include "distance/detail/cuda/packed_u8_l2.cuh"

namespace cudist::detail::cuda {

/// kSigned: the rows' bytes are int8 (else uint8). Product: the MMA; the store of bit rows' cdist
/// (packed_u8_mma_store.cu) takes mma::MmaBitsAnd, whose AND-popcounts the same tiles feed.
template <bool kSigned, class Product = mma::MmaBytes<kSigned>>
struct PackedByteMmaTileKernel {
  using Op = PackedByteSqL2Op<kSigned>;  // the engine's op type for the fused consumers
  using Elem = std::uint32_t;  // four bytes of a row
  using Acc = typename Op::Acc;

  static constexpr int kBM = 128, kBN = 128;
  static constexpr int kTM = 8, kTN = 8;  // the engine's outputs per thread, after the exchange
  static constexpr int kThreads = 256;
  // Two blocks per SM, 128 registers per thread: 64 outputs, a pass's 16 accumulators and the
  // fragments (the top-k variant spills ~700 bytes, the others none: ptxas -v, sm_90). The 74 KB
  // of tiles and exchange plus the row buffers of k <= 16 fit two blocks in 227 KB; best two's
  // buffers make it one (measured faster than dp4a at two all the same: docs/tuning.md).
  static constexpr int kMinBlocks = 2;
  static constexpr int kVec = 4;           // words per 16-byte copy
  static constexpr int kSlabBytes = 128;   // columns of d per load (in bytes)
  static constexpr int kRowBytes = kSlabBytes + 16;  // 144: 8 consecutive rows hit all 32 banks once
  static constexpr int kPasses = 4;        // column passes, 32 columns each
  static constexpr int kExchangeStride = 40;  // words: the 8-byte stores of 4 x 4 lanes hit distinct banks

  /// The fields launch_fused() fills (the pairwise engine's, less its output and weights).
  struct Params {
    Elem const* x;
    Elem const* y;
    std::int64_t m, n, d;  // d in words
    std::int64_t ldx, ldy; // in words
    bool x_vec, y_vec;     // rows allow 16-byte copies
    Op op;
  };

  /// The contraction's part of another kernel's parameters (the SIMT engine's, same names).
  template <class P>
  static Params part_of(P const& q) {
    return {q.x, q.y, q.m, q.n, q.d, q.ldx, q.ldy, q.x_vec, q.y_vec, {}};
  }

  struct SharedStorage {
    alignas(16) std::uint8_t xs[kBM][kRowBytes];  // row 16 w + r: warp w's MMA row r
    alignas(16) std::uint8_t ys[2][kBN][kRowBytes];  // row 32 p + c: pass p's MMA column c; two tiles
    alignas(16) std::uint32_t exchange[kThreads / 32][16][kExchangeStride];
  };

  /// Shared row of the tile's row t (0..127) of x: the consumers' rows in MMA order.
  __device__ static int x_slot(int t) { return mma::mma_row_slot(t); }

  /// For the fused kernel, before it leaves a block whose next tile's copy is in flight.
  __device__ static void wait_async_copies() { mma::wait_async_copies(); }

  /// Shared row of the tile's column t (0..127) of y: the thread's j-th column of tx goes to pass
  /// j / 2, MMA column 2 tx + j % 2.
  __device__ static int y_slot(int t) {
    int const group = t % 64;
    int const tx = group / 4, j = (t / 64) * 4 + group % 4;
    return 32 * (j / 2) + 2 * tx + j % 2;
  }

  /// Copies columns [k0, k0 + 128) bytes of rows row0..row0 + 127 into their slots; zero past
  /// `rows` and past d.
  template <bool kY>
  __device__ __noinline__ static void load_slab(Elem const* base, std::int64_t rows, std::int64_t ld, bool vec,
                                   std::int64_t row0, std::int64_t k0_words, std::int64_t d,
                                   std::uint8_t (&dst)[kBM][kRowBytes], int tid) {
    constexpr int kChunks = kSlabBytes / 16;  // 16-byte chunks per row
#pragma unroll
    for (int l = 0; l < kBM * kChunks / kThreads; ++l) {
      int const chunk = tid + l * kThreads;
      int const r = chunk / kChunks, c = chunk % kChunks;
      std::int64_t const row = row0 + r;
      std::int64_t const k = k0_words + c * kVec;
      std::int64_t const left = row < rows ? d - k : 0;  // words of this chunk inside the row
      Elem const* src = base + (row < rows ? row * ld : 0) + (left > 0 ? k : 0);
      auto const to = static_cast<unsigned>(__cvta_generic_to_shared(&dst[kY ? y_slot(r) : x_slot(r)][16 * c]));
      if (vec) {
        int const bytes = left <= 0 ? 0 : (left >= kVec ? 16 : static_cast<int>(4 * left));
        mma::copy_async<16>(to, src, bytes);
      } else {
#pragma unroll
        for (int v = 0; v < kVec; ++v) {
          int const bytes = v < left ? 4 : 0;
          mma::copy_async<4>(to + 4 * v, src + (v < left ? v : 0), bytes);
        }
      }
    }
  }

  /// Pass p's 16 x 32 dot products of the slab in shared memory, k-steps of 32 bytes.
  __device__ static void mma_pass(std::uint8_t const (&xs)[kBM][kRowBytes], std::uint8_t const (&ys)[kBN][kRowBytes],
                                  int warp, int lane, int pass, int k_steps, int (&c)[4][4]) {
    // ldmatrix x4 row addresses: A, matrices (rows 0-7 | 8-15) x (bytes 0-15 | 16-31); B, two
    // n-tiles x (bytes 0-15 | 16-31).
    std::uint8_t const* a_row = xs[16 * warp + lane % 8 + 8 * ((lane / 8) % 2)] + 16 * (lane / 16);
    std::uint8_t const* b_row = ys[32 * pass + 8 * (lane / 16) + lane % 8] + 16 * ((lane / 8) % 2);
    for (int ks = 0; ks < k_steps; ++ks) {
      unsigned a[4], b01[4], b23[4];
      mma::ldmatrix_x4(a, a_row + 32 * ks);
      mma::ldmatrix_x4(b01, b_row + 32 * ks);
      mma::ldmatrix_x4(b23, b_row + 16 * kRowBytes + 32 * ks);
      Product{}(c[0], a, b01[0], b01[1]);
      Product{}(c[1], a, b01[2], b01[3]);
      Product{}(c[2], a, b23[0], b23[1]);
      Product{}(c[3], a, b23[2], b23[3]);
    }
  }

  static constexpr int kSlabWords = kSlabBytes / 4;

  /// Rows of at most one slab (d <= 128 bytes, SIFT's 128 among them) are pipelined: x's tile
  /// stays in shared memory for all of the block's column tiles, and the next column tile of y is
  /// copied while this one is computed (ncu, K3: a third of the warps' time was spent waiting at
  /// the barrier behind the copies of both tiles). Deeper rows reload their slabs per pass.
  static constexpr bool kPipelined = true;

  __device__ static bool one_slab(Params const& p) { return p.d <= kSlabWords; }
  __device__ static int y_buffer(std::int64_t col0) { return static_cast<int>((col0 / kBN) % 2); }

  /// Before a block's first column tile: starts the copies of x's tile and of y's first tile.
  __device__ static void start(Params const& p, SharedStorage& s, std::int64_t row0, std::int64_t col0) {
    if (!one_slab(p)) return;
    int const tid = static_cast<int>(threadIdx.x);
    load_slab<false>(p.x, p.m, p.ldx, p.x_vec, row0, 0, p.d, s.xs, tid);
    load_slab<true>(p.y, p.n, p.ldy, p.y_vec, col0, 0, p.d, s.ys[y_buffer(col0)], tid);
  }

  /// The main loop, as the SIMT engine's: acc = x_i . y_j for the tile at (row0, col0), in the
  /// engine's thread layout; start() came first, and has_next says that the column tile
  /// col0 + 128 follows in this block (its copy then starts here).
  __device__ static void compute_tile(Params const& p, SharedStorage& s, std::int64_t row0,
                                      std::int64_t col0, bool has_next, Acc (&acc)[kTM][kTN]) {
    int const tid = static_cast<int>(threadIdx.x);
    if (!one_slab(p)) return compute_slabs(p, s, row0, col0, acc);
    int const buf = y_buffer(col0);
    mma::wait_async_copies();
    __syncthreads();  // this tile is in; every warp is done with the other buffer's tile
    if (has_next) load_slab<true>(p.y, p.n, p.ldy, p.y_vec, col0 + kBN, 0, p.d, s.ys[buf ^ 1], tid);
    int const k_steps = static_cast<int>((p.d + 7) / 8);
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {  // unrolled: acc's indices are constants
      int c[4][4] = {};
      mma_pass(s.xs, s.ys[buf], tid / 32, tid % 32, pass, k_steps, c);
      exchange(s.exchange[tid / 32], c, tid % 32, pass, acc);
    }
  }

  /// Rows deeper than a slab: each pass reloads the slabs of both tiles.
  __device__ static void compute_slabs(Params const& p, SharedStorage& s, std::int64_t row0,
                                       std::int64_t col0, Acc (&acc)[kTM][kTN]) {
    int const tid = static_cast<int>(threadIdx.x);
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      int c[4][4] = {};
      for (std::int64_t k0 = 0; k0 < p.d; k0 += kSlabWords) {
        __syncthreads();  // every warp is done with the last slab
        load_slab<false>(p.x, p.m, p.ldx, p.x_vec, row0, k0, p.d, s.xs, tid);
        load_slab<true>(p.y, p.n, p.ldy, p.y_vec, col0, k0, p.d, s.ys[0], tid);
        mma::wait_async_copies();
        __syncthreads();
        std::int64_t const words = p.d - k0 < kSlabWords ? p.d - k0 : kSlabWords;
        mma_pass(s.xs, s.ys[0], tid / 32, tid % 32, pass, static_cast<int>((words + 7) / 8), c);
      }
      exchange(s.exchange[tid / 32], c, tid % 32, pass, acc);
    }
  }

  /// Pass p's accumulators, c[nt] = rows g, g + 8 (g = lane / 4) x MMA columns
  /// 8 nt + 2 (lane % 4) + {0, 1}, into acc[i][2 p], acc[i][2 p + 1] through the warp's buffer.
  __device__ static void exchange(std::uint32_t (&e)[16][kExchangeStride], int const (&c)[4][4],
                                  int lane, int pass, Acc (&acc)[kTM][kTN]) {
    int const g = lane / 4, q = lane % 4;
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
      *reinterpret_cast<uint2*>(&e[g][8 * nt + 2 * q]) = make_uint2(c[nt][0], c[nt][1]);
      *reinterpret_cast<uint2*>(&e[g + 8][8 * nt + 2 * q]) = make_uint2(c[nt][2], c[nt][3]);
    }
    __syncwarp();
    int const tx = lane % 16, half = lane / 16;
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
      uint2 const v = *reinterpret_cast<uint2 const*>(&e[8 * half + i][2 * tx]);
      acc[i][2 * pass] = v.x;
      acc[i][2 * pass + 1] = v.y;
    }
    __syncwarp();  // the next pass overwrites the buffer
  }
};

}  // namespace cudist::detail::cuda
