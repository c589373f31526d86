// Thread-per-row SpMV over staged nonzeros. The rows are cut into row blocks of rows_per_block
// consecutive rows, so a row block's nonzeros are one contiguous range of the CSR arrays,
// [row_offsets[r0], row_offsets[r1]). A block reads that range in passes of one stage
// (ThreadPerRowPolicy): kVec-element (16-byte) streaming loads of indices and values, coalesced
// whatever the row lengths, kChunksInFlight of each per thread (a round) before the gathers of
// x; the products go to shared memory. After a barrier, thread i adds the products of row
// r0 + i that fall in the pass, and finally writes y (the block's writes are coalesced). No
// search, no scan, no partial rows between blocks.
//
// The grid is persistent (as many blocks as the GPU holds at once) and each block walks every
// gridDim-th row block, software-pipelined: the first round of a row block's index and value
// loads is issued when the block starts on the row block before it, and its row offsets, which
// those loads' addresses need, one row block earlier still. So a row block's nonzeros are in
// flight while the block waits on the previous one's gathers, barriers and sums: the block never
// waits for three dependent memory latencies in series (offsets, nonzeros, gathers of x).
//
// For short rows of similar length (kAuto's rule): rows_per_block is then chosen so that one
// pass holds a row block, and for 4-byte values and indices one round. A row longer than the
// stage is still summed, by one thread over several passes, correctly but slowly. kVec = 1
// serves index or value arrays that are not aligned to a vector load.
#pragma once

#include <cstdint>
#include <type_traits>

#include "sparse/detail/cuda/csr_arrays.cuh"
#include "sparse/detail/cuda/kernel_launch.cuh"
#include "sparse/detail/cuda/load.cuh"
#include "sparse/detail/cuda/policy.hpp"
#include "sparse/detail/cuda/strided_vector.cuh"

namespace cudist::sparse::detail::cuda {

template <class T, class I, int kVec, class Semiring, class Output>
struct ThreadPerRowSpmv {
  using Policy = ThreadPerRowPolicy;
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kChunksInFlight = Policy::kChunksInFlight;
  static constexpr int kRoundChunks = kThreads * kChunksInFlight;
  static constexpr int kStageValues = thread_per_row_stage_values(sizeof(T));
  static constexpr int kPassChunks = kStageValues / kVec;
  // Shared-memory banks are 4 bytes wide and a warp's request is served 128 bytes at a time, so
  // 2^kBankValuesLog2 values of T sit in distinct banks.
  static constexpr int kBankValuesLog2 = sizeof(T) == 8 ? 4 : 5;
  static_assert(sizeof(T) << kBankValuesLog2 == 128, "values of 4 or 8 bytes");

  // Row numbers and positions in the CSR arrays. With int32 indices they fit 32 bits (the API
  // caps rows and nnz at INT32_MAX there), so their arithmetic and the addresses made from them
  // are 32-bit; unsigned, because base + kStageValues may pass INT32_MAX.
  using Position = std::make_unsigned_t<I>;

  struct Params {
    CsrArrays<T, I> a;
    StridedVector<T const> x;
    StridedVector<T> y;
    Output out;
    int rows_per_block;   // <= kThreads
    Position row_blocks;  // ceil(rows / rows_per_block)
  };
  struct SharedStorage {
    alignas(16) T products[kStageValues];  // products of the pass's nonzeros, from a chunk start
  };

  /// What a thread knows of a row block before its nonzeros arrive; all zero past the last one.
  struct RowBlock {
    Position first, last;         // the row block's nonzeros
    Position row_begin, row_end;  // this thread's row's; empty where the thread has no row
  };
  /// A pass over a row block: stage slot k holds nonzero base + k (base a multiple of kVec); the
  /// row block's nonzeros fill slots [lo, hi), and slots below vector_chunks * kVec are read as
  /// whole vectors (the rest is the arrays' partial last chunk).
  struct Pass {
    Position base;
    int lo, hi;
    int vector_chunks;
  };
  /// kChunksInFlight chunks of indices and of values per thread: the loads in flight at once.
  struct Round {
    Chunk<I, kVec> cols[kChunksInFlight];
    Chunk<T, kVec> vals[kChunksInFlight];
  };
  /// Where a round lies: chunks start, start + kThreads, ... (kChunksInFlight of them) of a pass.
  struct RoundAt {
    Pass pass;
    int start;
  };

  __device__ void operator()(Params const& p, SharedStorage& s, ThreadCoords const& t) const {
    auto const stride = static_cast<Position>(t.blocks);
    auto block = static_cast<Position>(t.block);
    // The rounds form one stream over the block's row blocks, passes and rounds (at least one
    // round per pass and one pass per row block, staging nothing where there is nothing), and
    // `ahead` holds the one to stage next. Row offsets are read two row blocks ahead: the loads
    // of a row block's first round, issued during the row block before it, need them.
    RowBlock current = row_block(p, block, t.thread);
    RowBlock next = row_block(p, block + stride, t.thread);
    Round ahead = load_round(p, first_pass(p, current), 0, t.thread);
    // The trip counts depend on the block only, so every thread reaches every barrier.
    for (; block < p.row_blocks; block += stride) {
      RowBlock const after = row_block(p, block + 2 * stride, t.thread);
      T acc = Semiring::zero();
      Pass pass = first_pass(p, current);
      bool more_passes;
      do {
        __syncthreads();  // the previous pass's sums are done with the stage
        // Several rounds a pass only where a pass has more chunks than a round (kVec < 4).
        RoundAt following;
        int start = 0;
#pragma unroll 1
        do {
          following = round_after(p, current, next, pass, start);
          stage_round(p, s, pass, start, t.thread, ahead, following);
          start += kRoundChunks;
        } while (following.start != 0);
        if (pass.vector_chunks * kVec < pass.hi) stage_partial_chunk(p, s, pass, t.thread);
        __syncthreads();
        Position const end = pass.base + pass.hi;
        Position const lo = current.row_begin > pass.base ? current.row_begin : pass.base;
        Position const hi = current.row_end < end ? current.row_end : end;
        if (lo < hi) {
          acc = add_row(s, acc, static_cast<int>(lo - pass.base), static_cast<int>(hi - lo));
        }
        more_passes = pass.base + kStageValues < current.last;
        pass = following.pass;
      } while (more_passes);
      Position const r = block * p.rows_per_block + t.thread;
      if (t.thread < p.rows_per_block && r < static_cast<Position>(p.a.rows)) {
        T& y = p.y[r];
        y = p.out(acc, p.out.reads_y() ? y : T(0));
      }
      current = next;
      next = after;
    }
  }

  static __device__ RowBlock row_block(Params const& p, Position block, int thread) {
    RowBlock b{0, 0, 0, 0};
    if (block >= p.row_blocks) return b;
    auto const rows = static_cast<Position>(p.a.rows);
    Position const r0 = block * p.rows_per_block;
    Position const r1 = r0 + p.rows_per_block < rows ? r0 + p.rows_per_block : rows;
    Position const r = r0 + thread;
    b.first = load_cached(p.a.row_offsets + r0);
    b.last = load_cached(p.a.row_offsets + r1);
    if (r < r1) {
      b.row_begin = load_cached(p.a.row_offsets + r);
      b.row_end = load_cached(p.a.row_offsets + r + 1);
    }
    return b;
  }

  /// The pass whose stage starts at `base`; passes start at a chunk boundary, so every load and
  /// shared store of whole chunks is a whole vector.
  static __device__ Pass pass_at(Params const& p, RowBlock const& b, Position base) {
    Position const end = base + kStageValues < b.last ? base + kStageValues : b.last;
    Pass pass{base, static_cast<int>((b.first > base ? b.first : base) - base),
              static_cast<int>(end - base), 0};
    // Chunks wholly inside the arrays are vector loads; the arrays' last, partial chunk (when nnz
    // is not a multiple of kVec) is read element by element, apart, so that its addresses are
    // not live beside the vectors in flight (+40 registers when they were).
    Position const whole_chunks_left = static_cast<Position>(p.a.nnz) / kVec - base / kVec;
    int const chunks = (pass.hi + kVec - 1) / kVec;
    pass.vector_chunks = static_cast<Position>(chunks) < whole_chunks_left
                             ? chunks
                             : static_cast<int>(whole_chunks_left);
    return pass;
  }
  static __device__ Pass first_pass(Params const& p, RowBlock const& b) {
    return pass_at(p, b, b.first / kVec * kVec);
  }

  /// The round after the one at `start` of `pass`: the pass's next round, else the first round
  /// of the following pass, this row block's or else the next row block's.
  static __device__ RoundAt round_after(Params const& p, RowBlock const& current,
                                        RowBlock const& next, Pass const& pass, int start) {
    if (kPassChunks > kRoundChunks && start + kRoundChunks < pass.vector_chunks) {
      return {pass, start + kRoundChunks};
    }
    Position const base = pass.base + kStageValues;
    return {base < current.last ? pass_at(p, current, base) : first_pass(p, next), 0};
  }

  /// The round at `start` of `pass`: chunks start, start + kThreads, ... for this thread, as far
  /// as the pass's vector chunks go; the others zero.
  static __device__ Round load_round(Params const& p, Pass const& pass, int start, int thread) {
    Round round;
    load_chunks(p.a.col_indices, pass, start, thread, round.cols);
    load_chunks(p.a.values, pass, start, thread, round.vals);
    return round;
  }
  /// One array's part of load_round.
  template <class E>
  static __device__ void load_chunks(E const* array, Pass const& pass, int start, int thread,
                                     Chunk<E, kVec> (&chunks)[kChunksInFlight]) {
    auto const* all = reinterpret_cast<Chunk<E, kVec> const*>(array);
    Position const base_chunk = pass.base / kVec;
#pragma unroll
    for (int u = 0; u < kChunksInFlight; ++u) {
      int const local = start + u * kThreads + thread;
      // An unsigned index: one IMAD.WIDE.U32 per address.
      chunks[u] = local < pass.vector_chunks ? load_streaming(all + (base_chunk + local))
                                             : Chunk<E, kVec>{};
    }
  }

  /// s.products of the round's chunks (chunks start, start + kThreads, ... of the pass):
  /// mul(a_k, x[col_k]). The slots around the row block's range that share its first and last
  /// chunk get their entries' products too (entries of the neighbouring rows, so valid columns),
  /// which no thread reads: no masks between the loads and the gathers, which then all issue
  /// before the first multiply. `round` is refilled with the round at `refill` as it is used up,
  /// its indices once the gathers have their addresses and its values once the products are
  /// taken: they are in flight while this round's gathers, the barriers and the sums complete,
  /// and no second set of registers holds them.
  static __device__ void stage_round(Params const& p, SharedStorage& s, Pass const& pass,
                                     int start, int thread, Round& round, RoundAt const& refill) {
    T xs[kChunksInFlight][kVec];
#pragma unroll
    for (int u = 0; u < kChunksInFlight; ++u) {
      if (start + u * kThreads + thread >= pass.vector_chunks) continue;
#pragma unroll
      for (int v = 0; v < kVec; ++v) xs[u][v] = load_cached(&p.x[round.cols[u].e[v]]);
    }
    load_chunks(p.a.col_indices, refill.pass, refill.start, thread, round.cols);
    Chunk<T, kVec> products[kChunksInFlight];
#pragma unroll
    for (int u = 0; u < kChunksInFlight; ++u) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        products[u].e[v] = Semiring::mul(round.vals[u].e[v], xs[u][v]);
      }
    }
    load_chunks(p.a.values, refill.pass, refill.start, thread, round.vals);
#pragma unroll
    for (int u = 0; u < kChunksInFlight; ++u) {
      int const local = start + u * kThreads + thread;
      if (local < pass.vector_chunks) {
        reinterpret_cast<Chunk<T, kVec>*>(s.products)[local] = products[u];
      }
    }
  }

  /// The arrays' partial last chunk, where the pass reaches it (the matrix's last pass at most):
  /// fewer than kVec elements.
  static __device__ void stage_partial_chunk(Params const& p, SharedStorage& s, Pass const& pass,
                                             int thread) {
    int const k = pass.vector_chunks * kVec + thread;
    if (k < pass.lo || k >= pass.hi) return;
    Position const e = pass.base + k;
    T const xk = load_cached(&p.x[load_streaming(p.a.col_indices + e)]);
    s.products[k] = Semiring::mul(load_streaming(p.a.values + e), xk);
  }

  /// add(acc, the products in stage slots [begin, begin + length)), each once, the row read
  /// cyclically from a rotation chosen so that a warp's rows of equal length hit distinct banks.
  /// Rows of length L held back to back start L slots apart, so the g = gcd(L, 2^b) lanes whose
  /// starts differ by multiples of lcm(L, 2^b) share every bank (b = kBankValuesLog2; 16 ways
  /// for float rows of 16). lcm(L, 2^b) is an odd multiple of m = max(L & -L, 2^b), so
  /// (start / m) mod g differs between those g lanes, and as their rotation it puts every bank
  /// under one lane per step for any equal length, with shifts and masks only. Odd lengths need
  /// none (g = 1). On S3's rows (7, and 4-6 at the grid's faces) a warp's request takes 1.26
  /// wavefronts by simulation (unrotated 1.18; a rotation by (start / lcm) mod L, 1.53).
  static __device__ T add_row(SharedStorage const& s, T acc, int begin, int length) {
    int const twos = __ffs(length) - 1;  // L = odd x 2^twos
    int const shift = twos > kBankValuesLog2 ? twos : kBankValuesLog2;
    int const sharing = 1 << (twos < kBankValuesLog2 ? twos : kBankValuesLog2);  // g
    int const rotation = (begin >> shift) & (sharing - 1);
    int const end = begin + length;
#pragma unroll 4
    for (int k = begin + rotation; k < end; ++k) acc = Semiring::add(acc, s.products[k]);
#pragma unroll 4
    for (int k = begin; k < begin + rotation; ++k) acc = Semiring::add(acc, s.products[k]);
    return acc;
  }
};

}  // namespace cudist::sparse::detail::cuda
