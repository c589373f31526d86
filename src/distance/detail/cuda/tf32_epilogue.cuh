// precision tf32's epilogue (tf32_pairwise.cu's file comment): pass 1 reads the GEMM's output and
// decides each entry by the bound, pass 2 computes the entries it marked by the SIMT path's own
// sum. For tf32_pairwise.cu alone.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/cuda/check.hpp"
#include "core/cuda/device_features.hpp"
#include "distance/detail/cuda/source_sums.cuh"
#include "distance/detail/ops.hpp"
#include "distance/detail/problem.hpp"

namespace cudist::detail::cuda::tf32 {

enum class Tf32Kind : std::uint8_t { kSquares, kInnerProduct, kCosine };

/// A word of entries that pass 1 could not keep, one a lane: with C columns a lane (C =
/// columns_per_lane), word_index = (r * chunks_per_row + c) * C + k holds columns c 32 C + l C + k
/// of window row r, bit l for lane l.
struct MarkedWord {
  std::uint32_t bits;
  std::uint32_t word_index;
};

struct EpilogueParams {
  float const* g;          // (rows, n) the GEMM's products, row stride ldg
  std::int64_t ldg;
  std::int64_t row0, rows, n;
  float const* x_squares;  // kSquares: (rows) of the window, (n) of y
  float const* y_squares;
  float keep;              // kSquares: 16 E_s, the share of the norms; kCosine: 16 (E_c + a)
  float flushed;           // kSquares: 32 a
  ops::SqDiffSumOp<float, float> squares;  // the exact path's ops, for the entries recomputed
  ops::DotOp<float, float> dot;
  SourceSums source;
  bool zero_diagonal;
  bool condensed;          // out: the condensed entries of the window, from its first row's first
  float* out;
  std::int64_t ld_out;
  int columns_per_lane;        // pass 1 reads kColumns consecutive columns a lane (16 bytes or 4)
  std::int64_t chunks_per_row;  // chunks of 32 columns_per_lane columns
  MarkedWord* marked;           // pass 1 appends, pass 2 computes; at most rows x chunks x columns
  std::uint32_t* marked_count;
};

/// Where column j of window row r goes: out[row_base + j] (the condensed layout holds j > i only).
__device__ std::int64_t row_base(EpilogueParams const& p, std::int64_t r) {
  std::int64_t const i = p.row0 + r;
  if (!p.condensed) return r * p.ld_out;
  return condensed_row_start(p.n, i) - condensed_row_start(p.n, p.row0) - i - 1;
}

/// Pass 1's share of a warp: kRowsPerTask rows of a chunk of 32 kColumns columns, so the rows'
/// loads are all in flight together.
constexpr int kRowsPerTask = 8;
constexpr int kEpilogueThreads = 256;

template <int kColumns>
using Columns = std::conditional_t<kColumns == 4, float4, float>;

template <int kColumns>
__device__ float column_of(Columns<kColumns> const& v, int k) {
  if constexpr (kColumns == 1) {
    return v;
  } else {
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
  }
}

/// Whether the entry at column j0 + k of a task's row is left to pass 2; otherwise `value` becomes
/// what the output holds and `write` says whether it must be stored (the GEMM wrote the product
/// itself there). `squares` is |x|^2 + |y|^2 (kSquares). kInterior: the caller knows the entry is
/// in the output and off the diagonal, so in_row and diagonal are not read.
template <Tf32Kind kKind, bool kInterior>
__device__ bool marked(EpilogueParams const& p, float& value, bool& write, int k, int in_row, int diagonal,
                       float squares) {
  write = false;
  if (!kInterior && !(k < in_row && (!p.condensed || k > diagonal))) return false;  // not an entry
  write = p.condensed;
  bool exact;
  if constexpr (kKind == Tf32Kind::kSquares) {
    exact = !(value > __fmaf_rn(p.keep, squares, p.flushed));  // also NaN, inf
    if (p.squares.take_sqrt) {
      value = sqrtf(value);
      write = true;
    }
  } else if constexpr (kKind == Tf32Kind::kInnerProduct) {
    exact = !isfinite(value);
  } else {
    exact = !(value > p.keep) || !isfinite(value);
    if (value > 2.0f) {  // the exact path's finish clamps the cosine at -1
      value = 2.0f;
      write = true;
    }
  }
  return exact || (!kInterior && p.zero_diagonal && k == diagonal);
}

/// Pass 1, bandwidth-bound: reads each entry of the GEMM and keeps it where the bound holds it
/// (tf32_pairwise.cu's file comment), writing only where the output differs from the product
/// (euclidean's square root, cosine's clamp at 2, the condensed layout); the others are appended
/// to `marked` for pass 2. Measured on D8t's read-only pass: a lane a column moved 1.4 TB/s at
/// 90% of the SMs' issue (the per-row tests and addresses); 16-byte loads share them among four
/// columns.
template <Tf32Kind kKind, int kColumns>
__global__ void __launch_bounds__(kEpilogueThreads) tf32_epilogue_kernel(EpilogueParams const p) {
  static_assert(kRowsPerTask * kColumns <= 32, "a lane holds each of a task's words");
  int const lane = static_cast<int>(threadIdx.x % 32);
  std::int64_t const groups = (p.rows + kRowsPerTask - 1) / kRowsPerTask;
  std::int64_t const warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  std::int64_t const tasks = groups * p.chunks_per_row;
  // The task's products; the next task's are loaded before this one is processed, so a warp keeps
  // its loads in flight while it works.
  auto load = [&](std::int64_t task, Columns<kColumns> (&to)[kRowsPerTask]) {
    std::int64_t const r0 = task / p.chunks_per_row * kRowsPerTask;
    std::int64_t const j0 = task % p.chunks_per_row * (32 * kColumns) + lane * kColumns;
    // The columns and the row stride are multiples of kColumns (launcher): a lane's columns lie in its row.
    auto const* from = reinterpret_cast<Columns<kColumns> const*>(p.g + r0 * p.ldg + j0);
    std::int64_t const step = p.ldg / kColumns;
#pragma unroll
    for (int t = 0; t < kRowsPerTask; ++t) {
      to[t] = task < tasks && j0 < p.n && r0 + t < p.rows ? from[t * step] : Columns<kColumns>{};
    }
  };
  std::int64_t task = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  Columns<kColumns> next[kRowsPerTask];
  load(task, next);
  for (; task < tasks; task += warps) {
    Columns<kColumns> g[kRowsPerTask];
#pragma unroll
    for (int t = 0; t < kRowsPerTask; ++t) g[t] = next[t];
    load(task + warps, next);
    std::int64_t const r0 = task / p.chunks_per_row * kRowsPerTask;
    std::int64_t const c = task % p.chunks_per_row;
    std::int64_t const j0 = c * (32 * kColumns) + lane * kColumns;
    float y_squares[kColumns];
#pragma unroll
    for (int k = 0; k < kColumns; ++k) {
      y_squares[k] = kKind == Tf32Kind::kSquares && j0 + k < p.n ? p.y_squares[j0 + k] : 0.0f;
    }
    // The lane's columns in the output: k < in_row (32-bit tests; the 64-bit ones cost a third of
    // the issue slots).
    int const in_row = static_cast<int>(std::min<std::int64_t>(std::max<std::int64_t>(p.n - j0, 0), kColumns));
    // Row r0 + t's diagonal at column j0 + diagonal (clamped: -1 before the lane's columns,
    // kColumns after): the condensed layout holds k > diagonal, a zero diagonal takes k == it.
    auto diagonal_of = [&](int t) {
      return static_cast<int>(std::min<std::int64_t>(std::max<std::int64_t>(p.row0 + r0 + t - j0, -1), kColumns));
    };
    auto x_squares = [&](int t) { return kKind == Tf32Kind::kSquares ? p.x_squares[r0 + t] : 0.0f; };
    // Each entry decided and its value stored where it must be; per entry only the metric's test
    // where the task is away from the edges, the condensed layout and the diagonal (most tasks).
    std::int64_t const first_column = c * (32 * kColumns), first_row = p.row0 + r0;
    bool const interior = !p.condensed && r0 + kRowsPerTask <= p.rows && first_column + 32 * kColumns <= p.n &&
                          (!p.zero_diagonal || first_row + kRowsPerTask <= first_column ||
                           first_row >= first_column + 32 * kColumns);
    bool any_marked = false;
    auto visit = [&](auto interior_task) {
      constexpr bool kInterior = decltype(interior_task)::value;
#pragma unroll
      for (int t = 0; t < kRowsPerTask; ++t) {
        if (!kInterior && r0 + t >= p.rows) break;  // uniform over the warp
        int const diagonal = kInterior ? 0 : diagonal_of(t);
        float const x = x_squares(t);
#pragma unroll
        for (int k = 0; k < kColumns; ++k) {
          float value = column_of<kColumns>(g[t], k);
          bool write;
          bool const exact = marked<kKind, kInterior>(p, value, write, k, in_row, diagonal, x + y_squares[k]);
          any_marked = any_marked || exact;
          if (!exact && write) p.out[row_base(p, r0 + t) + j0 + k] = value;
        }
      }
    };
    if (interior) {
      visit(std::true_type{});
    } else {
      visit(std::false_type{});
    }
    if (!__any_sync(0xffffffffu, any_marked)) continue;
    // Rare: the marks as words (the decisions again, a ballot each), lane t kColumns + k holding
    // row r0 + t's word k.
    std::uint32_t my_word = 0;
#pragma unroll
    for (int t = 0; t < kRowsPerTask; ++t) {
      if (r0 + t >= p.rows) break;
      int const diagonal = diagonal_of(t);
      float const x = x_squares(t);
#pragma unroll
      for (int k = 0; k < kColumns; ++k) {
        float value = column_of<kColumns>(g[t], k);
        bool write;
        std::uint32_t const word =
            __ballot_sync(0xffffffffu, marked<kKind, false>(p, value, write, k, in_row, diagonal, x + y_squares[k]));
        if (lane == t * kColumns + k) my_word = word;
      }
    }
    // One atomic per task for its marked words.
    bool const marks = my_word != 0;
    std::uint32_t const marked_lanes = __ballot_sync(0xffffffffu, marks);
    if (marked_lanes != 0) {
      std::uint32_t first = 0;
      if (lane == 0) first = atomicAdd(p.marked_count, static_cast<std::uint32_t>(__popc(marked_lanes)));
      first = __shfl_sync(0xffffffffu, first, 0);
      if (marks) {
        std::int64_t const r = r0 + lane / kColumns;
        p.marked[first + static_cast<std::uint32_t>(__popc(marked_lanes & ((1u << lane) - 1)))] = {
            my_word, static_cast<std::uint32_t>((r * p.chunks_per_row + c) * kColumns + lane % kColumns)};
      }
    }
  }
}

/// Pass 2: the marked entries by the exact path's float32 sum in its order, finished; a warp per
/// marked word and a lane per marked column. Its grid is fixed; the work follows the list, so
/// outputs with nothing marked cost a launch.
template <Tf32Kind kKind>
__global__ void tf32_exact_entries_kernel(EpilogueParams const p) {
  int const lane = static_cast<int>(threadIdx.x % 32);
  std::int64_t const count = *p.marked_count;
  std::int64_t const warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  std::int64_t const columns = p.columns_per_lane, words_per_row = p.chunks_per_row * columns;
  for (std::int64_t e = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; e < count;
       e += warps) {
    MarkedWord const m = p.marked[e];
    if ((m.bits >> lane & 1u) == 0) continue;
    std::int64_t const r = m.word_index / words_per_row, in_row = m.word_index % words_per_row;
    std::int64_t const i = p.row0 + r, j = in_row / columns * (32 * columns) + lane * columns + in_row % columns;
    float value = kKind == Tf32Kind::kSquares ? p.squares.finish(p.source.sum(i, j, SquaredDifferenceStep{}), i, j)
                                              : p.dot.finish(p.source.sum(i, j, ProductStep{}), i, j);
    if (p.zero_diagonal && i == j && isfinite(value)) value = 0.0f;
    p.out[row_base(p, r) + j] = value;
  }
}

/// Blocks for `warp_tasks` warps' worth of work: at most as many as are resident at once, whose
/// warps then stride over the tasks with the next task's loads in flight.
template <class Kernel>
unsigned epilogue_blocks(Kernel kernel, std::int64_t warp_tasks) {
  std::int64_t const per_block = kEpilogueThreads / 32;
  return static_cast<unsigned>(std::min((warp_tasks + per_block - 1) / per_block,
                                        resident_blocks(reinterpret_cast<void const*>(kernel), kEpilogueThreads, 0)));
}

template <Tf32Kind kKind, int kColumns>
void launch_pass1(EpilogueParams const& p, cudaStream_t stream) {
  std::int64_t const groups = (p.rows + kRowsPerTask - 1) / kRowsPerTask;
  auto const pass1 = tf32_epilogue_kernel<kKind, kColumns>;
  pass1<<<epilogue_blocks(pass1, groups * p.chunks_per_row), kEpilogueThreads, 0, stream>>>(p);
  CUDIST_CHECK_LAUNCH();
}

template <Tf32Kind kKind>
void launch_epilogue(EpilogueParams const& p, cudaStream_t stream) {
  if (p.columns_per_lane == 4) {
    launch_pass1<kKind, 4>(p, stream);
  } else {
    launch_pass1<kKind, 1>(p, stream);
  }
  // 8192 warps for the marked words: a few microseconds where none is (random rows), and a
  // full GPU where many are (near rows, pdist of duplicates).
  tf32_exact_entries_kernel<kKind><<<1024, kEpilogueThreads, 0, stream>>>(p);
  CUDIST_CHECK_LAUNCH();
}

}  // namespace cudist::detail::cuda::tf32
