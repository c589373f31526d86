// Thread-per-row SpMV over staged nonzeros. A block owns rows_per_block consecutive rows, so its
// nonzeros are one contiguous range of the CSR arrays, [row_offsets[r0], row_offsets[r1]). The
// block reads that range in passes of one stage (ThreadPerRowPolicy): kVec-element (16-byte)
// streaming loads of indices and values, coalesced whatever the row lengths, kChunksInFlight of
// each per thread before the gathers of x; the products go to shared memory. After a barrier,
// thread i adds the products of row r0 + i that fall in the pass, and finally writes y (the
// block's writes are coalesced). No search, no scan, no partial rows between blocks.
//
// For short rows of similar length (kAuto's rule): rows_per_block is then chosen so that one
// pass holds the block's rows. A row longer than the stage is still summed, by one thread over
// several passes, correctly but slowly. kVec = 1 serves index or value arrays that are not
// aligned to a vector load.
#pragma once

#include <cstdint>

#include "sparse/detail/cuda/csr_arrays.cuh"
#include "sparse/detail/cuda/kernel_launch.cuh"
#include "sparse/detail/cuda/load.cuh"
#include "sparse/detail/cuda/policy.hpp"
#include "sparse/detail/dense_operand.hpp"

namespace cudist::sparse::detail::cuda {

template <class T, class I, int kVec, class Semiring, class Output>
struct ThreadPerRowSpmv {
  using Policy = ThreadPerRowPolicy;
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kChunksInFlight = Policy::kChunksInFlight;
  static constexpr int kStageValues = thread_per_row_stage_values(sizeof(T));
  // Shared-memory banks are 4 bytes wide and a warp's request is served 128 bytes at a time, so
  // this many values of T sit in distinct banks.
  static constexpr int kBankValues = 128 / sizeof(T);

  struct Params {
    CsrArrays<T, I> a;
    DenseOperand<T const> x;  // column 0 is the vector
    DenseOperand<T> y;
    Output out;
    int rows_per_block;  // <= kThreads
  };
  struct SharedStorage {
    alignas(16) T products[kStageValues];  // products of the pass's nonzeros, from a chunk start
  };

  __device__ void operator()(Params const& p, SharedStorage& s, ThreadCoords const& t) const {
    std::int64_t const row_blocks = (p.a.rows + p.rows_per_block - 1) / p.rows_per_block;
    // The trip counts depend on the block only, so every thread reaches every barrier.
    for (std::int64_t block = t.block; block < row_blocks; block += t.blocks) {
      std::int64_t const r0 = block * p.rows_per_block;
      std::int64_t const r1 = r0 + p.rows_per_block < p.a.rows ? r0 + p.rows_per_block : p.a.rows;
      std::int64_t const row = r0 + t.thread;
      bool const has_row = row < r1;
      std::int64_t const first = load_cached(p.a.row_offsets + r0);
      std::int64_t const last = load_cached(p.a.row_offsets + r1);
      std::int64_t const row_begin = has_row ? load_cached(p.a.row_offsets + row) : 0;
      std::int64_t const row_end = has_row ? load_cached(p.a.row_offsets + row + 1) : 0;
      T acc = Semiring::zero();
      // Passes start at a chunk boundary, so every load and shared store is a whole vector.
      for (std::int64_t base = first / kVec * kVec; base < last; base += kStageValues) {
        std::int64_t const base_end = base + kStageValues < last ? base + kStageValues : last;
        __syncthreads();  // the previous pass's sums are done with the stage
        stage_products(p, s, t.thread, base, first > base ? first : base, base_end);
        __syncthreads();
        std::int64_t const lo = row_begin > base ? row_begin : base;
        std::int64_t const hi = row_end < base_end ? row_end : base_end;
        if (lo < hi)
          acc = add_staged(s, acc, static_cast<int>(lo - base), static_cast<int>(hi - lo));
      }
      if (has_row) {
        T& y = p.y.at(row, 0);
        y = p.out(acc, p.out.reads_y() ? y : T(0));
      }
    }
  }

  /// s.products[k - base] = mul(a_k, x[col_k]) for k in [lo, hi), a range inside
  /// [base, base + kStageValues); base is a multiple of kVec. The positions around the range
  /// that share its first and last chunk get their entries' products too (entries of the
  /// neighbouring rows, so valid columns), which no thread reads: no masks between the loads and
  /// the gathers, which then all issue before the first multiply.
  static __device__ void stage_products(Params const& p, SharedStorage& s, int thread,
                                        std::int64_t base, std::int64_t lo, std::int64_t hi) {
    std::int64_t const base_chunk = base / kVec;
    int const lo_local = static_cast<int>(lo - base), hi_local = static_cast<int>(hi - base);
    // Chunks that lie wholly inside the arrays are vector loads; the array's last, partial
    // chunk (when nnz is not a multiple of kVec) is read element by element, apart, so that its
    // addresses are not live beside the vectors in flight (+40 registers when they were).
    std::int64_t const whole_chunks_left = p.a.nnz / kVec - base_chunk;
    int const chunks = (hi_local + kVec - 1) / kVec;
    int const vector_chunks =
        chunks < whole_chunks_left ? chunks : static_cast<int>(whole_chunks_left);
    for (int round = 0; round < vector_chunks; round += kThreads * kChunksInFlight) {
      Chunk<I, kVec> cols[kChunksInFlight] = {};
      Chunk<T, kVec> vals[kChunksInFlight] = {};
#pragma unroll
      for (int u = 0; u < kChunksInFlight; ++u) {
        int const local = round + u * kThreads + thread;
        if (local < vector_chunks) {
          cols[u] = load_streaming(reinterpret_cast<Chunk<I, kVec> const*>(p.a.col_indices) +
                                   base_chunk + local);
          vals[u] = load_streaming(reinterpret_cast<Chunk<T, kVec> const*>(p.a.values) + base_chunk +
                                   local);
        }
      }
      T xs[kChunksInFlight][kVec];
#pragma unroll
      for (int u = 0; u < kChunksInFlight; ++u) {
        if (round + u * kThreads + thread >= vector_chunks) continue;
#pragma unroll
        for (int v = 0; v < kVec; ++v) xs[u][v] = load_cached(&p.x.at(cols[u].e[v], 0));
      }
#pragma unroll
      for (int u = 0; u < kChunksInFlight; ++u) {
        int const local = round + u * kThreads + thread;
        if (local >= vector_chunks) continue;
        Chunk<T, kVec> products;
#pragma unroll
        for (int v = 0; v < kVec; ++v) products.e[v] = Semiring::mul(vals[u].e[v], xs[u][v]);
        reinterpret_cast<Chunk<T, kVec>*>(s.products)[local] = products;
      }
    }
    int const k = vector_chunks * kVec + thread;  // the partial chunk: fewer than kVec elements
    if (k >= lo_local && k < hi_local) {
      T const xk = load_cached(&p.x.at(load_streaming(p.a.col_indices + base + k), 0));
      s.products[k] = Semiring::mul(load_streaming(p.a.values + base + k), xk);
    }
  }

  /// add(acc, the products at [begin, begin + length) of the stage), each once, the row read
  /// cyclically from a rotation chosen so that a warp's rows of equal length hit distinct banks.
  /// Read from their start, rows of length L held back to back put the lanes L values apart: the
  /// lanes whose starts differ by lcm(L, kBankValues) values then share every bank (16 ways for
  /// float rows of 16). Rotating each row by (start / lcm) mod L gives those lanes distinct
  /// offsets, so every bank serves one lane per step for any equal length; rows of different
  /// lengths are no worse than unrotated.
  static __device__ T add_staged(SharedStorage const& s, T acc, int begin, int length) {
    int const low_bit = length & -length;
    int const shared_factor = low_bit < kBankValues ? low_bit : kBankValues;  // gcd(L, banks)
    int const period = length / shared_factor * kBankValues;                  // lcm(L, banks)
    int i = begin / period % length;
    for (int n = 0; n < length; ++n) {
      acc = Semiring::add(acc, s.products[begin + i]);
      i = i + 1 == length ? 0 : i + 1;
    }
    return acc;
  }
};

}  // namespace cudist::sparse::detail::cuda
