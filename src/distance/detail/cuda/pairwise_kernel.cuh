// The pairwise contraction engine: one CUDA kernel template computes D = finish(reduce_k
// step(x[i][k], y[j][k])) for any op struct (ops.hpp), any element type, into a full or condensed
// output. SIMT FP32/FP64/INT32 arithmetic, exact (no expanded-norm shortcut).
//
// Block: 256 threads own a 128 x 128 output tile; thread (tx, ty) owns rows {4ty..4ty+3,
// 64+4ty..64+4ty+3} and the same pattern of columns with tx, so every shared-memory read is a
// 16-byte vector and every output row segment a warp stores is contiguous.
// Pipeline: the next k-slab is loaded from global memory into registers while the current one is
// consumed from shared memory (double buffer, one barrier per slab).
// Inputs are read row-major with any stride: 16-byte loads where the rows allow, predicated
// scalar loads at the edges; k beyond d is padded with Op::pad() (zero for the distance ops, the
// identity of "add" for the semiring ops), which leaves every op's reduction unchanged.
// y is either one point per row ((n, d), the distance layout) or k-major ((d, n), the B of a
// matrix product C = A (x) B), which is read along its rows straight into the k-major tile.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/interrupt_word.cuh"
#include "distance/detail/cuda/policy.hpp"
#include "distance/detail/element_load.hpp"
#include "distance/detail/ops.hpp"
#include "distance/detail/problem.hpp"

namespace cudist::detail::cuda {

template <class T, int N>
struct alignas(sizeof(T) * N) VecN {
  T v[N];
};

/// Stores 4 consecutive outputs with streaming (evict-first) hints: the distance matrix is
/// written once and not re-read by this kernel, so it should not evict the inputs from L2.
__device__ __forceinline__ void store4_streaming(float* p, float const (&v)[4]) {
  __stcs(reinterpret_cast<float4*>(p), make_float4(v[0], v[1], v[2], v[3]));
}
__device__ __forceinline__ void store4_streaming(double* p, double const (&v)[4]) {
  __stcs(reinterpret_cast<double2*>(p), make_double2(v[0], v[1]));
  __stcs(reinterpret_cast<double2*>(p) + 1, make_double2(v[2], v[3]));
}

/// How y is stored: one point per row, y[j][k] (distances), or k-major, y[k][j] (the B operand of
/// a semiring matrix product, used as given: no transpose).
enum class YLayout : std::uint8_t { kRowPerPoint, kKMajor };

template <class Op, class Elem, class Policy, YLayout kYLayout = YLayout::kRowPerPoint>
struct PairwiseTileKernel {
  using C = typename Op::Compute;
  using Acc = typename Op::Acc;
  using Out = typename Op::Output;

  static constexpr TilePolicy kPolicy = Policy::value;
  static constexpr int kBM = kPolicy.block_m;
  static constexpr int kBN = kPolicy.block_n;
  static constexpr int kBK = kPolicy.block_k;
  static constexpr int kThreads = kPolicy.threads;
  static constexpr int kMinBlocks = kPolicy.min_blocks_per_sm;
  static constexpr int kTM = kBM / 16, kTN = kBN / 16;  // outputs per thread (8 x 8 or 4 x 4)
  static constexpr int kGroupStride = 64;  // 16 threads x 4: a thread's 4-wide groups are 64 apart
  static constexpr int kVec = 4;          // elements per global load chunk
  static constexpr int kPad = 4;          // keeps k-major rows 16-byte aligned, staggers banks
  static constexpr int kChunksPerRow = kBK / kVec;
  static constexpr int kChunksPerKRow = kBN / kVec;  // k-major y: chunks along one row of y
  // Chunks per thread per slab; the same for a k-major y slab, which has as many elements.
  static constexpr int kLoads = (kBM * kChunksPerRow + kThreads - 1) / kThreads;
  static_assert(kBM == kBN && kTM % 4 == 0 && kThreads == 256, "thread layout is 16 x 16");
  static_assert(kBK % kVec == 0, "block_k must be a multiple of the load width");
  static_assert(kThreads % kChunksPerRow == 0 && kThreads % kChunksPerKRow == 0,
                "a thread's chunks of a slab are a fixed stride apart (InteriorChunks)");

  struct Params {
    Elem const* x;
    Elem const* y;  // (n, d) or, k-major, (d, n)
    Out* out;
    std::int64_t m, n, d;
    std::int64_t ldx, ldy, ldo;
    bool x_vec, y_vec, out_vec;  // 16-byte-capable rows
    OutputLayout layout;
    bool zero_diagonal;
    // The store consumer's window: rows row_begin .. row_end - 1 of the result, out holding only
    // them (full: row r at out row r - row_begin; condensed: from entry out_first on).
    std::int64_t row_begin, row_end, out_first;
    C const* weights;  // (d) for weighted ops, else null
    Op op;
    InterruptPoll interrupt;  // blocks return at once after a request (interrupt_word.cuh)
  };

  /// A half-warp's row of a condensed tile on its way out (store_condensed_segment): kBN values
  /// from word kStageLead on. The reads stay inside those kBN words (a host check of every
  /// alignment and lane); the margins are the measured layout of run 190: without them ptxas gave
  /// the shallow sqeuclidean kernel (D4c's) 12 bytes of spills it does not have now.
  static constexpr int kStageLead = 4, kStageRow = kBN + 8;
  using CondensedRows = Out[kThreads / 16][kStageRow];

  struct SharedStorage {
    union {
      C xs[2][kBK][kBM + kPad];  // (BK, BM) k-major
      CondensedRows condensed_rows;  // the store consumer's, after compute_tile's closing barrier
    };
    C ys[2][kBK][kBN + kPad];  // (BK, BN)
    C ws[2][kBK];              // weights of the slab
  };

  /// Registers holding one thread's share of a k-slab of one operand.
  struct Stage {
    C v[kLoads][kVec];
  };

  /// kVec elements from `at` (16-byte-capable rows) in one vector load, as C.
  __device__ static void load_chunk(Elem const* at, C (&dst)[kVec]) {
    auto const q = *reinterpret_cast<VecN<Elem, kVec> const*>(at);
#pragma unroll
    for (int v = 0; v < kVec; ++v) dst[v] = load_as<C>(q.v[v]);
  }

  __device__ static void load_slab(Elem const* base, std::int64_t rows, std::int64_t ld, bool vec_ok,
                                   std::int64_t row0, std::int64_t k0, std::int64_t d, int tid,
                                   Stage& st) {
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      int const chunk = tid + l * kThreads;
      int const r = chunk / kChunksPerRow;
      int const kq = (chunk % kChunksPerRow) * kVec;
      std::int64_t const row = row0 + r;
      std::int64_t const k = k0 + kq;
      bool const live = r < kBM && row < rows;
      if (live && vec_ok && k + kVec <= d) {
        load_chunk(base + row * ld + k, st.v[l]);
      } else {
#pragma unroll
        for (int v = 0; v < kVec; ++v)
          st.v[l][v] = (live && k + v < d) ? load_as<C>(base[row * ld + k + v]) : Op::pad();
      }
    }
  }

  /// The k-major counterpart of load_slab: rows k0..k0+kBK of y, columns col0..col0+kBN, each
  /// warp reading 512 contiguous bytes of one row.
  __device__ static void load_k_major_slab(Elem const* base, std::int64_t cols, std::int64_t ld,
                                           bool vec_ok, std::int64_t col0, std::int64_t k0,
                                           std::int64_t d, int tid, Stage& st) {
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      int const chunk = tid + l * kThreads;
      int const kr = chunk / kChunksPerKRow;
      int const jq = (chunk % kChunksPerKRow) * kVec;
      std::int64_t const k = k0 + kr;
      std::int64_t const col = col0 + jq;
      bool const live = kr < kBK && k < d;
      if (live && vec_ok && col + kVec <= cols) {
        load_chunk(base + k * ld + col, st.v[l]);
      } else {
#pragma unroll
        for (int v = 0; v < kVec; ++v)
          st.v[l][v] = (live && col + v < cols) ? load_as<C>(base[k * ld + col + v]) : Op::pad();
      }
    }
  }

  __device__ static void store_slab(Stage const& st, C (&dst)[kBK][kBM + kPad], int tid) {
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      int const chunk = tid + l * kThreads;
      int const r = chunk / kChunksPerRow;
      int const kq = (chunk % kChunksPerRow) * kVec;
      if (r < kBM) {
#pragma unroll
        for (int v = 0; v < kVec; ++v) dst[kq + v][r] = st.v[l][v];
      }
    }
  }

  /// A k-major slab goes into the tile as it is: one 16-byte shared store per chunk.
  __device__ static void store_k_major_slab(Stage const& st, C (&dst)[kBK][kBN + kPad], int tid) {
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      int const chunk = tid + l * kThreads;
      int const kr = chunk / kChunksPerKRow;
      int const jq = (chunk % kChunksPerKRow) * kVec;
      if (kr < kBK) {
        VecN<C, kVec> q;
#pragma unroll
        for (int v = 0; v < kVec; ++v) q.v[v] = st.v[l][v];
        *reinterpret_cast<VecN<C, kVec>*>(&dst[kr][jq]) = q;
      }
    }
  }

  /// A thread's chunks of one operand, slab after slab, in a tile whose rows (for k-major y,
  /// columns) all exist and take 16-byte loads: chunk l of the current slab starts at
  /// slab + l * chunk_stride. Such slabs load with one address each, advanced by a constant,
  /// instead of load_slab's 64-bit row offsets and bounds per chunk (~110 of the ~290
  /// instructions a deep float slab spent beside its 1024 FFMAs: docs/tuning.md).
  struct InteriorChunks {
    Elem const* slab;
    std::int64_t chunk_stride, slab_stride;

    __device__ void advance() { slab += slab_stride; }
    /// The current slab: the chunks of load_slab's vector branch.
    __device__ void load(Stage& st) const {
#pragma unroll
      for (int l = 0; l < kLoads; ++l) load_chunk(slab + l * chunk_stride, st.v[l]);
    }
  };
  /// Tiles with an interior loop: a thread's kLoads chunks cover a slab with none past the tile
  /// (not shallow slabs), and registers to spare for the two chunk pointers. At 4 blocks an SM
  /// (64 registers) they cost small lane-wise tiles spills and D1 / D2 3% (run 179), for problems
  /// of one or two slabs a tile.
  static constexpr bool kInteriorLoop = kLoads * kThreads == kBM * kChunksPerRow && kMinBlocks <= 2;

  /// The slab at k = 0 of rows row0 .. row0 + kBM - 1 of a row-major operand (x, or y's points).
  __device__ static InteriorChunks row_chunks(Elem const* base, std::int64_t ld, std::int64_t row0, int tid) {
    int const r = tid / kChunksPerRow, kq = (tid % kChunksPerRow) * kVec;
    return {base + (row0 + r) * ld + kq, (kThreads / kChunksPerRow) * ld, kBK};
  }
  /// The slab at k = 0 of y's points (k-major: columns) col0 .. col0 + kBN - 1.
  __device__ static InteriorChunks y_chunks(Params const& p, std::int64_t col0, int tid) {
    if constexpr (kYLayout == YLayout::kKMajor) {
      int const kr = tid / kChunksPerKRow, jq = (tid % kChunksPerKRow) * kVec;
      return {p.y + kr * p.ldy + col0 + jq, (kThreads / kChunksPerKRow) * p.ldy, kBK * p.ldy};
    } else {
      return row_chunks(p.y, p.ldy, col0, tid);
    }
  }
  /// Whether every row of the tile's x (y; k-major y: every column) exists and takes 16-byte loads.
  __device__ static bool interior_tile(Params const& p, std::int64_t row0, std::int64_t col0) {
    return kInteriorLoop && p.x_vec && p.y_vec && row0 + kBM <= p.m && col0 + kBN <= p.n;
  }

  __device__ static void load_y_slab(Params const& p, std::int64_t col0, std::int64_t k0, int tid,
                                     Stage& st) {
    if constexpr (kYLayout == YLayout::kKMajor) {
      load_k_major_slab(p.y, p.n, p.ldy, p.y_vec, col0, k0, p.d, tid, st);
    } else {
      load_slab(p.y, p.n, p.ldy, p.y_vec, col0, k0, p.d, tid, st);
    }
  }

  __device__ static void store_y_slab(Stage const& st, C (&dst)[kBK][kBN + kPad], int tid) {
    if constexpr (kYLayout == YLayout::kKMajor) {
      store_k_major_slab(st, dst, tid);
    } else {
      store_slab(st, dst, tid);
    }
  }

  __device__ static void load_weights(Params const& p, std::int64_t k0, int tid, C (&dst)[kBK]) {
    if constexpr (Op::kWeighted) {
      if (tid < kBK) dst[tid] = k0 + tid < p.d ? p.weights[k0 + tid] : C(0);
    }
  }

  /// kTM values at offsets {4t..4t+3, 64+4t..64+4t+3, ...} of a k-major shared row.
  __device__ static void read_fragment(C const* row, int t, C (&f)[kTM]) {
#pragma unroll
    for (int g = 0; g < kTM / 4; ++g) {
      auto const q = *reinterpret_cast<VecN<C, 4> const*>(row + g * kGroupStride + 4 * t);
#pragma unroll
      for (int v = 0; v < 4; ++v) f[4 * g + v] = q.v[v];
    }
  }

  /// Offset within the tile of a thread's idx-th row (t = ty) or column (t = tx).
  __device__ static std::int64_t fragment_offset(int t, int idx) {
    return (idx / 4) * kGroupStride + 4 * t + idx % 4;
  }

  /// Column kk of the slab in buffer buf, stepped into every accumulator of the thread.
  __device__ static void step_column(Params const& p, SharedStorage const& s, int buf, int kk, std::int64_t k0,
                                     int tx, int ty, Acc (&acc)[kTM][kTN]) {
    C a[kTM], b[kTN];
    read_fragment(s.xs[buf][kk], ty, a);
    read_fragment(s.ys[buf][kk], tx, b);
#pragma unroll
    for (int i = 0; i < kTM; ++i)
#pragma unroll
      for (int j = 0; j < kTN; ++j) ops::step_at(p.op, acc[i][j], a[i], b[j], s.ws[buf], kk, k0);
  }

  /// Every column of the slab in buffer buf, stepped into the thread's accumulators.
  __device__ static void step_slab(Params const& p, SharedStorage const& s, int buf, std::int64_t k0, int tx,
                                   int ty, Acc (&acc)[kTM][kTN]) {
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) step_column(p, s, buf, kk, k0, tx, ty, acc);
  }

  /// The loaded slab at k0 into buffer buf, for the slab loop's next turn.
  __device__ static void store_next_slab(Params const& p, SharedStorage& s, Stage const& sx, Stage const& sy,
                                         int buf, std::int64_t k0, int tid) {
    store_slab(sx, s.xs[buf], tid);
    store_y_slab(sy, s.ys[buf], tid);
    load_weights(p, k0, tid, s.ws[buf]);
  }

  /// The main loop: acc = reduce over all of d for the tile at (row0, col0). Callable repeatedly
  /// by consumers that walk several tiles (fused top-k keeps its selection across column tiles).
  /// Ends with a barrier, so shared memory may be reused right after.
  __device__ static void compute_tile(Params const& p, SharedStorage& s, std::int64_t row0,
                                      std::int64_t col0, Acc (&acc)[kTM][kTN]) {
    int const tid = static_cast<int>(threadIdx.x);
    int const tx = tid % 16, ty = tid / 16;
#pragma unroll
    for (int i = 0; i < kTM; ++i)
#pragma unroll
      for (int j = 0; j < kTN; ++j) acc[i][j] = Op::init();

    Stage sx, sy;
    load_slab(p.x, p.m, p.ldx, p.x_vec, row0, 0, p.d, tid, sx);
    load_y_slab(p, col0, 0, tid, sy);
    store_slab(sx, s.xs[0], tid);
    store_y_slab(sy, s.ys[0], tid);
    load_weights(p, 0, tid, s.ws[0]);
    __syncthreads();

    int buf = 0;
    std::int64_t k0 = 0;
    if (interior_tile(p, row0, col0)) {  // most tiles: the loads of all but the last slab or two
      InteriorChunks xc = row_chunks(p.x, p.ldx, row0, tid), yc = y_chunks(p, col0, tid);
      for (; k0 + 2 * kBK <= p.d; k0 += kBK) {
        xc.advance();
        yc.advance();
        xc.load(sx);
        yc.load(sy);
        step_slab(p, s, buf, k0, tx, ty, acc);
        store_next_slab(p, s, sx, sy, buf ^ 1, k0 + kBK, tid);
        __syncthreads();
        buf ^= 1;
      }
    }
    for (; k0 < p.d; k0 += kBK) {
      bool const has_next = k0 + kBK < p.d;
      if (has_next) {
        load_slab(p.x, p.m, p.ldx, p.x_vec, row0, k0 + kBK, p.d, tid, sx);
        load_y_slab(p, col0, k0 + kBK, tid, sy);
      }
      if (!kPolicy.epilogue_bound || has_next || k0 + kBK == p.d) {
        step_slab(p, s, buf, k0, tx, ty, acc);
      } else {
        // The last slab of a d that is not a multiple of kBK, without its padding columns
        // (policy.hpp): d = 2 in 4-column slabs, d = 1 in 16 (D4, D2).
        int const columns = static_cast<int>(p.d - k0);
#pragma unroll 1
        for (int kk = 0; kk < columns; ++kk) step_column(p, s, buf, kk, k0, tx, ty, acc);
      }
      if (has_next) store_next_slab(p, s, sx, sy, buf ^ 1, k0 + kBK, tid);
      __syncthreads();
      buf ^= 1;
    }
  }

  /// Row and column of a thread's accumulator acc[i][j] within its tile.
  __device__ static int tile_row(int i) { return static_cast<int>(fragment_offset(threadIdx.x / 16, i)); }
  __device__ static int tile_col(int j) { return static_cast<int>(fragment_offset(threadIdx.x % 16, j)); }

  /// The store consumer: one tile per block, written full or condensed.
  __device__ void operator()(Params const& p, SharedStorage& s) const {
    if (block_interrupted(p.interrupt)) return;  // the host throws after the launch
    std::int64_t const row0 = p.row_begin + static_cast<std::int64_t>(blockIdx.y) * kBM;
    std::int64_t const col0 = static_cast<std::int64_t>(blockIdx.x) * kBN;
    if (p.layout == OutputLayout::kCondensed && col0 + kBN <= row0 + 1) return;  // below diagonal
    Acc acc[kTM][kTN];
    compute_tile(p, s, row0, col0, acc);
    int const tid = static_cast<int>(threadIdx.x);
    store_tile(p, acc, row0, col0, tid % 16, tid / 16, s.condensed_rows);
  }

  __device__ static Out finish_in_tile(Params const& p, Acc const& acc, std::int64_t row, std::int64_t col) {
    if constexpr (Op::kUncheckedRoot && kPolicy.epilogue_bound) {
      return p.op.in_range_finish_unchecked(acc);  // rewritten after the tile where inexact
    } else if constexpr (Op::kRecomputes) {
      return p.op.in_range_finish(acc, row, col);
    } else {
      return p.op.finish(acc, row, col);
    }
  }

  /// Index in the window's condensed output of entry (row, col), col > row.
  __device__ static std::int64_t condensed_index(Params const& p, std::int64_t row, std::int64_t col) {
    return condensed_row_start(p.m, row) + col - row - 1 - p.out_first;
  }

  /// Writes one value where the layout puts (row, col) of the window; row < row_end, col < n.
  __device__ static void store_value(Params const& p, std::int64_t row, std::int64_t col, Out v) {
    if (p.zero_diagonal && row == col && isfinite(static_cast<double>(v))) v = Out(0);
    if (p.layout == OutputLayout::kCondensed) {
      if (col > row) p.out[condensed_index(p, row, col)] = v;
    } else {
      p.out[(row - p.row_begin) * p.ldo + col] = v;
    }
  }

  /// The entries of an op's tile whose sums left its fast range (Op::kRecomputes), rewritten
  /// with their exact values once the tile is stored. Out of line and given the parameters by
  /// value: its registers and code stay off the kernel's hot loop, which nothing after it needs.
  __device__ __noinline__ static void rewrite_inexact(Params const p, std::uint64_t inexact, std::int64_t row0,
                                         std::int64_t col0, int tx, int ty) {
#pragma unroll 1
    for (; inexact != 0; inexact &= inexact - 1) {
      int const b = __ffsll(static_cast<long long>(inexact)) - 1;
      std::int64_t const row = row0 + fragment_offset(ty, b / 8);
      std::int64_t const col = col0 + fragment_offset(tx, b % 8);
      store_value(p, row, col, p.op.exact_finish(row, col));
    }
  }

  /// The thread's entries whose sums left the op's fast range (Op::kRecomputes): bit 8 i + j for
  /// acc[i][j], in two 32-bit words of bits known at compile time, so that an entry costs one
  /// predicated OR beside its range test (a 0 / 1 shifted into a 64-bit mask took four: SEL,
  /// IMAD.WIDE and two ORs; docs/tuning.md).
  struct InexactMask {
    std::uint32_t word[2] = {0u, 0u};
    __device__ void mark(int bit, bool inexact) {
      if (inexact) word[bit / 32] |= 1u << (bit % 32);
    }
    __device__ bool any() const { return (word[0] | word[1]) != 0u; }
    __device__ std::uint64_t bits() const { return static_cast<std::uint64_t>(word[1]) << 32 | word[0]; }
  };

  /// The finished values of acc[i][4 half .. 4 half + 3], entries (row, c0 .. c0 + 3), and their
  /// bits in the mask of inexact entries. kEdge: the tile may reach past column n - 1 (those
  /// entries are not finished: finish() may read per-column data such as cosine's y norms) and
  /// may hold the diagonal of a self-distance (exact 0 there).
  template <bool kEdge>
  __device__ static void finish_four(Params const& p, Acc const (&acc)[kTM][kTN], int i, int half,
                                     std::int64_t row, std::int64_t c0, Out (&v)[4], InexactMask& inexact) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      std::int64_t const col = c0 + j;
      bool const live = !kEdge || col < p.n;
      v[j] = live ? finish_in_tile(p, acc[i][4 * half + j], row, col) : Out(0);
      if constexpr (kEdge) {
        if (p.zero_diagonal && row == col && isfinite(static_cast<double>(v[j]))) v[j] = Out(0);
      }
      if constexpr (Op::kRecomputes) {
        inexact.mark(8 * i + 4 * half + j, live && Op::inexact(acc[i][4 * half + j]));
      }
    }
  }

  /// A tile wholly inside the output and off its diagonal (most tiles of a large output): no
  /// per-entry bounds, layout or diagonal test, one address per row, 16-byte streaming stores:
  /// each thread's own four entries for full rows; for condensed rows (tiles wholly above the
  /// diagonal: every col > row), whose segments start at any word, the half-warp's row shifted
  /// to the 16-byte grid through shared memory (store_condensed_segment). The general path's
  /// per-entry tests made write-bound cases issue-bound (docs/tuning.md).
  template <bool kCondensed>
  __device__ static void store_interior_tile(Params const& p, Acc const (&acc)[kTM][kTN], std::int64_t row0,
                                             std::int64_t col0, int tx, int ty, CondensedRows& rows) {
    constexpr bool kShifted = kCondensed && sizeof(Out) == 4;  // float rows: shifted 16-byte stores
    InexactMask inexact;
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
      std::int64_t const row = row0 + fragment_offset(ty, i);
      Out* const row_out =
          kCondensed ? p.out + condensed_index(p, row, col0) : p.out + (row - p.row_begin) * p.ldo + col0;
      Out v[kTN / 4][4];
#pragma unroll
      for (int half = 0; half < kTN / 4; ++half) {
        finish_four<false>(p, acc, i, half, row, col0 + fragment_offset(tx, 4 * half), v[half], inexact);
        Out* const at = row_out + fragment_offset(tx, 4 * half);
        if constexpr (!kCondensed) {
          store4_streaming(at, v[half]);
        } else if constexpr (!kShifted) {
#pragma unroll
          for (int j = 0; j < 4; ++j) __stcs(at + j, v[half][j]);
        }
      }
      if constexpr (kShifted) store_condensed_segment(row_out, v, tx, rows[ty]);
    }
    // Shifted stores write other lanes' entries, which store_condensed_segment's closing
    // __syncwarp orders before any rewrite.
    if constexpr (Op::kRecomputes) {
      if (inexact.any()) rewrite_inexact(p, inexact.bits(), row0, col0, tx, ty);
    }
  }

  /// One condensed row segment of the tile, kBN values from `segment` on (any word alignment),
  /// held by a half-warp as chunks of four (chunk 16 h + tx in thread tx), written in 16-byte
  /// stores on the output's grid. With the segment r words past a 16-byte boundary, aligned chunk
  /// q holds entries 4 q - r .. 4 q - r + 3: the half-warp puts its row into `row` (shared
  /// memory) and each lane reads its aligned chunks back as words from 4 q - r on, so that no
  /// register selects on r (the shuffles and selects this replaced cost ~6 instructions an entry:
  /// docs/tuning.md). The 4 - r entries before the first boundary and the r after the last go as
  /// single words, one a lane.
  __device__ static void store_condensed_segment(Out* segment, Out const (&v)[kTN / 4][4], int tx,
                                                 Out (&row)[kStageRow]) {
    constexpr int kChunks = kBN / 4;
#pragma unroll
    for (int h = 0; h < kTN / 4; ++h) {
      VecN<Out, 4> q;
#pragma unroll
      for (int e = 0; e < 4; ++e) q.v[e] = v[h][e];
      *reinterpret_cast<VecN<Out, 4>*>(&row[kStageLead + fragment_offset(tx, 4 * h)]) = q;
    }
    __syncwarp();
    int const r = static_cast<int>(reinterpret_cast<std::uintptr_t>(segment) / sizeof(Out) % 4);
    Out const* const shifted = row + kStageLead - r;  // aligned chunk q from shifted[4 q] on
#pragma unroll
    for (int t = 0; t < kChunks / 16; ++t) {
      int const q = 16 * t + tx;
      if (t > 0 || q > 0 || r == 0) {  // chunk 0 is whole only where the segment is aligned
        Out w[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) w[e] = shifted[4 * q + e];
        store4_streaming(segment - r + 4 * q, w);
      }
    }
    if (r != 0 && tx < 4) {  // the head's 4 - r words, then the tail's r
      int const at = tx < 4 - r ? tx : kBN - 4 + tx;
      __stcs(segment + at, row[kStageLead + at]);
    }
    __syncwarp();  // every lane's reads before the half-warp's next row
  }

  /// The tile's outputs; `rows`: shared memory for condensed rows (any, after the tile's reads).
  __device__ static void store_tile(Params const& p, Acc const (&acc)[kTM][kTN], std::int64_t row0,
                                    std::int64_t col0, int tx, int ty, CondensedRows& rows) {
    static_assert(!Op::kRecomputes || (kTM <= 8 && kTN <= 8), "bit 8 i + j per entry of the thread's tile");
    bool const inside = row0 + kBM <= p.row_end && col0 + kBN <= p.n;
    if (inside && p.layout == OutputLayout::kFull && p.out_vec &&
        !(p.zero_diagonal && row0 < col0 + kBN && col0 < row0 + kBM)) {
      return store_interior_tile<false>(p, acc, row0, col0, tx, ty, rows);
    }
    if (inside && p.layout == OutputLayout::kCondensed && col0 >= row0 + kBM) {
      return store_interior_tile<true>(p, acc, row0, col0, tx, ty, rows);
    }
    InexactMask inexact;
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
      std::int64_t const row = row0 + fragment_offset(ty, i);
      if (row >= p.row_end) continue;
#pragma unroll
      for (int half = 0; half < kTN / 4; ++half) {
        std::int64_t const c0 = col0 + fragment_offset(tx, 4 * half);
        Out v[4];
        finish_four<true>(p, acc, i, half, row, c0, v, inexact);
        if (p.layout == OutputLayout::kCondensed) {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (c0 + j > row && c0 + j < p.n) p.out[condensed_index(p, row, c0 + j)] = v[j];
        } else if (p.out_vec && c0 + 4 <= p.n) {
          store4_streaming(p.out + (row - p.row_begin) * p.ldo + c0, v);
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (c0 + j < p.n) p.out[(row - p.row_begin) * p.ldo + c0 + j] = v[j];
        }
      }
    }
    if constexpr (Op::kRecomputes) {
      if (inexact.any()) rewrite_inexact(p, inexact.bits(), row0, col0, tx, ty);
    }
  }
};

/// The one __global__ trampoline: builds the block-level object and runs it.
template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreads, Kernel::kMinBlocks)
    pairwise_tile_kernel(typename Kernel::Params const p) {
  __shared__ typename Kernel::SharedStorage smem;
  Kernel{}(p, smem);
}

}  // namespace cudist::detail::cuda
