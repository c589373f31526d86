// Precision::kTf32 for cdist / pdist of float32 rows (pairwise.hpp): the dot products come from a
// TF32 GEMM on the tensor cores (cuBLAS), then an epilogue forms the distance and decides, per
// entry, whether the bound below may exceed a 16th of it; those entries (identical rows, near
// rows, non-finite values) are computed exactly, by the SIMT path's own sum.
//
// The bound (docs/accuracy.md): TF32 keeps 10 bits of each factor (truncated at worst: 2^-10
// each), products accumulate in float32 in any order (4 ulps an addition at worst), and products
// below float32's normal range may flush to zero (a = d 2^-126 absolute at most), so the GEMM's G
// is within e sum |x_k y_k| + a of x.y, e = 2^-9 + 2^-20 + (d + 2) 2^-22. Hence, E = e + 2^-21
// (the norms, the formula's roundings),
//   sqeuclidean  |D~ - D| <= E (|x|^2 + |y|^2) + 2 a,
//   cosine       |c~ - c| <= E + a / (|x| |y|),
//   inner product |G - x.y| <= e |x| |y| + a,
// and entries of sqeuclidean / euclidean with D~ <= 16 (E (|x|^2 + |y|^2) + 2 a), or cosine
// distances <= 16 (E + a / (|x| |y|)), are the exact path's.
#include "distance/detail/cuda/tf32_pairwise.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/cuda/check.hpp"
#include "core/cuda/cublas_library.hpp"
#include "core/detail/cuda_runtime.hpp"
#include "cudist/core/array.hpp"
#include "distance/detail/cuda/source_sums.cuh"
#include "distance/detail/dispatch_op.hpp"
#include "distance/detail/ops.hpp"

namespace cudist::detail::cuda {
namespace {

/// How many times its bound an entry must be to keep the GEMM's value.
constexpr double kKeepFactor = 16;

/// The GEMM's error, relative to sum |x_k y_k| (file comment), with the epilogue's roundings.
double tf32_error(std::int64_t d) {
  return std::ldexp(1.0, -9) + std::ldexp(1.0, -20) + static_cast<double>(d + 2) * std::ldexp(1.0, -22) +
         std::ldexp(1.0, -21);
}

/// Squared norms of rows row0.. (float32, rounded up; NaN and inf as they come): a warp a row.
__global__ void row_squares_kernel(float const* rows, std::int64_t ld, std::int64_t count, std::int64_t d,
                                   float* out) {
  std::int64_t const r = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  int const lane = static_cast<int>(threadIdx.x % 32);
  if (r >= count) return;
  double sum = 0;
  for (std::int64_t k = lane; k < d; k += 32) {
    double const v = rows[r * ld + k];
    sum += v * v;
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (lane == 0) out[r] = __double2float_ru(sum);
}

enum class Tf32Kind : std::uint8_t { kSquares, kInnerProduct, kCosine };

/// The absolute part a of the GEMM's error (file comment), rounded up: d 2^-126.
float flushed_products(std::int64_t d) { return static_cast<float>(std::ldexp(static_cast<double>(d), -126) * 1.01); }

/// 1 / v for each of `count` values (IEEE division; 1 / 0 = inf, 1 / inf = 0).
__global__ void reciprocals_kernel(float const* v, std::int64_t count, float* out) {
  std::int64_t const t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < count) out[t] = 1.0f / v[t];
}

/// A 32-column word of entries that pass 1 could not keep: bit b is column 32 w + b of window
/// row r, where word_index = r * words_per_row + w.
struct MarkedWord {
  std::uint32_t bits;
  std::uint32_t word_index;
};

struct EpilogueParams {
  Tf32Kind kind;
  float const* g;          // (rows, n) the GEMM's products, row stride ldg
  std::int64_t ldg;
  std::int64_t row0, rows, n;
  float const* x_squares;  // kSquares: (rows) of the window, (n) of y
  float const* y_squares;
  float const* x_inverse_norms;  // kCosine: 1 / the op's norms, (rows) of the window, (n) of y
  float const* y_inverse_norms;
  float keep;              // 16 E: the share of the norms (squares) or the distance (cosine)
  float flushed;           // 16 a (squares: 32 a), the absolute part
  ops::SqDiffSumOp<float, float> squares;  // the exact path's ops, for the entries recomputed
  ops::DotOp<float, float> dot;
  SourceSums source;
  bool zero_diagonal;
  bool condensed;          // out: the condensed entries of the window, from its first row's first
  float* out;
  std::int64_t ld_out;
  std::int64_t words_per_row;  // 32-column words of a row
  MarkedWord* marked;          // pass 1 appends, pass 2 computes; at most rows x words_per_row
  std::uint32_t* marked_count;
};

/// The exact path's value of (i, j): its float32 sum in its order, finished.
__device__ float exact_entry(EpilogueParams const& p, std::int64_t i, std::int64_t j) {
  if (p.kind == Tf32Kind::kSquares) return p.squares.finish(p.source.sum(i, j, SquaredDifferenceStep{}), i, j);
  return p.dot.finish(p.source.sum(i, j, ProductStep{}), i, j);
}

/// Where column j of window row r goes: out[row_base + j] (the condensed layout holds j > i only).
__device__ std::int64_t row_base(EpilogueParams const& p, std::int64_t r) {
  std::int64_t const i = p.row0 + r;
  if (!p.condensed) return r * p.ld_out;
  return condensed_row_start(p.n, i) - condensed_row_start(p.n, p.row0) - i - 1;
}

__device__ void store_exact(EpilogueParams const& p, std::int64_t r, std::int64_t j) {
  std::int64_t const i = p.row0 + r;
  float value = exact_entry(p, i, j);
  if (p.zero_diagonal && i == j && isfinite(value)) value = 0.0f;
  p.out[row_base(p, r) + j] = value;
}

/// Pass 1's share of a warp: a word of 32 columns (a lane each) over kRowsPerTask rows, so the
/// columns' factors are loaded once and the rows' loads are all in flight together.
constexpr int kRowsPerTask = 8;
constexpr int kEpilogueThreads = 256;

/// Pass 1, bandwidth-bound: each entry from the GEMM's product where the bound holds it (file
/// comment); the others are not stored but appended to `marked`, a word per 32 columns, for pass
/// 2. A few instructions an entry (one multiply by the norms' reciprocals for cosine, no division,
/// the addresses per row): a version with the exact sum in the same kernel ran at 0.7 TB/s, one
/// with two divisions an entry at 89% of the SM's issue.
template <Tf32Kind kKind>
__global__ void __launch_bounds__(kEpilogueThreads) tf32_epilogue_kernel(EpilogueParams const p) {
  int const lane = static_cast<int>(threadIdx.x % 32);
  std::int64_t const groups = (p.rows + kRowsPerTask - 1) / kRowsPerTask;
  std::int64_t const warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t task = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
       task < groups * p.words_per_row; task += warps) {
    std::int64_t const r0 = task / p.words_per_row * kRowsPerTask;
    std::int64_t const w = task % p.words_per_row;
    std::int64_t const j = w * 32 + lane;
    bool const column = j < p.n;
    float column_term = 0.0f;
    if (column) column_term = kKind == Tf32Kind::kSquares ? p.y_squares[j]
                              : kKind == Tf32Kind::kCosine ? p.y_inverse_norms[j]
                                                           : 0.0f;
    float g[kRowsPerTask];
    float const* from = p.g + r0 * p.ldg + j;
#pragma unroll
    for (int t = 0; t < kRowsPerTask; ++t, from += p.ldg) g[t] = column && r0 + t < p.rows ? *from : 0.0f;
    std::uint32_t my_word = 0;  // lane t: row r0 + t's word
#pragma unroll
    for (int t = 0; t < kRowsPerTask; ++t) {
      std::int64_t const r = r0 + t;
      if (r >= p.rows) break;  // uniform over the warp
      std::int64_t const i = p.row0 + r;
      bool exact = false;
      if (column && (!p.condensed || j > i)) {
        float value;
        if constexpr (kKind == Tf32Kind::kSquares) {
          float const norms = p.x_squares[r] + column_term;
          float const d2 = fmaxf(__fmaf_rn(-2.0f, g[t], norms), 0.0f);
          exact = !(d2 > __fmaf_rn(p.keep, norms, p.flushed));  // also NaN and inf norms
          value = p.squares.take_sqrt ? sqrtf(d2) : d2;
        } else if constexpr (kKind == Tf32Kind::kInnerProduct) {
          exact = !isfinite(g[t]);
          value = g[t];
        } else {
          // 1 - clamp(g / (|x| |y|)), the exact path's finish with the quotient as two products
          // (within the 2^-21 of E for the epilogue's roundings); a zero or infinite norm gives
          // a non-finite value or threshold, so the entry is marked.
          float const inverse_x = p.x_inverse_norms[r];
          float const c = g[t] * (inverse_x * column_term);
          value = 1.0f - fminf(fmaxf(c, -1.0f), 1.0f);
          float const threshold = __fmaf_rn(p.flushed * inverse_x, column_term, p.keep);
          exact = !(value > threshold) || !isfinite(c);
        }
        exact = exact || (p.zero_diagonal && i == j);
        if (!exact) p.out[row_base(p, r) + j] = value;
      }
      std::uint32_t const word = __ballot_sync(0xffffffffu, exact);
      if (lane == t) my_word = word;
    }
    // One atomic per task for its marked words.
    bool const marks_row = lane < kRowsPerTask && my_word != 0;
    std::uint32_t const rows_marked = __ballot_sync(0xffffffffu, marks_row);
    if (rows_marked != 0) {
      std::uint32_t first = 0;
      if (lane == 0) first = atomicAdd(p.marked_count, static_cast<std::uint32_t>(__popc(rows_marked)));
      first = __shfl_sync(0xffffffffu, first, 0);
      if (marks_row) {
        p.marked[first + static_cast<std::uint32_t>(__popc(rows_marked & ((1u << lane) - 1)))] = {
            my_word, static_cast<std::uint32_t>((r0 + lane) * p.words_per_row + w)};
      }
    }
  }
}

/// Pass 2: the marked entries, exactly, a warp per marked word and a lane per marked column. Its
/// grid is fixed; the work follows the list, so outputs with nothing marked cost a launch.
__global__ void tf32_exact_entries_kernel(EpilogueParams const p) {
  int const lane = static_cast<int>(threadIdx.x % 32);
  std::int64_t const count = *p.marked_count;
  std::int64_t const warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t e = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; e < count;
       e += warps) {
    MarkedWord const m = p.marked[e];
    if ((m.bits >> lane & 1u) != 0) {
      store_exact(p, m.word_index / p.words_per_row, m.word_index % p.words_per_row * 32 + lane);
    }
  }
}

/// Blocks for `warp_tasks` warps' worth of work: one task a warp, at most 2^16 blocks (the loops
/// stride past them).
unsigned epilogue_blocks(std::int64_t warp_tasks) {
  std::int64_t const per_block = kEpilogueThreads / 32;
  return static_cast<unsigned>(std::min<std::int64_t>((warp_tasks + per_block - 1) / per_block, 1 << 16));
}

/// A scratch array on the current device, in stream order.
Array scratch_array(std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  return Array::allocate(rows, cols, DType::kFloat32, Device::cuda(cuda_get_device()), stream);
}

}  // namespace

bool tf32_pairwise(PairwiseProblem const& pr, cudaStream_t stream) {
  OpSpec const& op = pr.op;
  bool const squares = op.kind == OpKind::kSqDiffSum;
  bool const dot = op.kind == OpKind::kDot;
  bool const applies = pr.tf32 && pr.x.dtype == DType::kFloat32 && pr.out.dtype == DType::kFloat32 &&
                       (squares || dot) && op.weights == nullptr && pr.x.cols >= 1 && cublas_available();
  if (!applies) return false;
  std::int64_t const row0 = pr.row_begin, rows = pr.window_end() - pr.row_begin, n = pr.y.rows, d = pr.x.cols;
  bool const condensed = pr.layout == OutputLayout::kCondensed;
  auto const* x = static_cast<float const*>(pr.x.data);
  auto const* y = static_cast<float const*>(pr.y.data);

  // The products: into the output itself where it is the full matrix, else a scratch window.
  float* g = static_cast<float*>(pr.out.data);
  std::int64_t ldg = pr.out.stride;
  Array scratch;
  if (condensed) {
    scratch = scratch_array(rows, n, stream);
    g = scratch.data_as<float>();
    ldg = n;
  }
  gemm_tf32_abt(rows, n, d, x + row0 * pr.x.stride, pr.x.stride, y, pr.y.stride, g, ldg, stream);

  EpilogueParams p{};
  p.g = g;
  p.ldg = ldg;
  p.row0 = row0;
  p.rows = rows;
  p.n = n;
  p.keep = static_cast<float>(kKeepFactor * tf32_error(d));
  p.flushed = static_cast<float>(kKeepFactor * (squares ? 2 : 1)) * flushed_products(d);
  p.source = SourceSums::of(pr);
  p.zero_diagonal = pr.zero_diagonal;
  p.condensed = condensed;
  p.out = static_cast<float*>(pr.out.data);
  p.ld_out = pr.out.stride;
  Array norms;
  if (squares) {
    p.kind = Tf32Kind::kSquares;
    p.squares = sq_diff_sum_op<float, float>(pr);
    norms = scratch_array(1, rows + n, stream);
    auto* sq = norms.data_as<float>();
    auto launch_squares = [&](float const* base, std::int64_t ld, std::int64_t count, float* out) {
      if (count == 0) return;
      auto const blocks = static_cast<unsigned>((count + 7) / 8);
      row_squares_kernel<<<blocks, 256, 0, stream>>>(base, ld, count, d, out);
      CUDIST_CHECK_LAUNCH();
    };
    launch_squares(x + row0 * pr.x.stride, pr.x.stride, rows, sq);
    launch_squares(y, pr.y.stride, n, sq + rows);
    p.x_squares = sq;
    p.y_squares = sq + rows;
  } else {
    p.dot = dot_op<float, float>(op);
    bool const cosine = p.dot.kind == ops::DotOp<float, float>::Finish::kCosineDistance;
    p.kind = cosine ? Tf32Kind::kCosine : Tf32Kind::kInnerProduct;
    if (cosine) {
      norms = scratch_array(1, rows + n, stream);
      auto* inverse = norms.data_as<float>();
      auto launch_reciprocals = [&](float const* v, std::int64_t count, float* out) {
        if (count == 0) return;
        reciprocals_kernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(v, count, out);
        CUDIST_CHECK_LAUNCH();
      };
      launch_reciprocals(p.dot.x_norms + row0, rows, inverse);
      launch_reciprocals(p.dot.y_norms, n, inverse + rows);
      p.x_inverse_norms = inverse;
      p.y_inverse_norms = inverse + rows;
    }
  }
  if (rows > 0 && n > 0) {
    p.words_per_row = (n + 31) / 32;
    std::int64_t const words = rows * p.words_per_row;
    CUDIST_EXPECTS(words <= std::int64_t{UINT32_MAX}, "precision tf32: an output window of " << words
                                                          << " 32-column words (at most 2^32 - 1)");
    // The marked words (8 bytes each, 1/16 of the window's output at most) and their count.
    Array marked = Array::allocate(1, 2 * words + 1, DType::kInt32, Device::cuda(cuda_get_device()), stream);
    p.marked_count = reinterpret_cast<std::uint32_t*>(marked.data_as<std::int32_t>());
    p.marked = reinterpret_cast<MarkedWord*>(p.marked_count + 2);
    CUDIST_CUDA_TRY(cudaMemsetAsync(p.marked_count, 0, sizeof(std::uint32_t), stream));
    std::int64_t const groups = (rows + kRowsPerTask - 1) / kRowsPerTask;
    unsigned const blocks = epilogue_blocks(groups * p.words_per_row);
    switch (p.kind) {
      case Tf32Kind::kSquares: tf32_epilogue_kernel<Tf32Kind::kSquares><<<blocks, kEpilogueThreads, 0, stream>>>(p); break;
      case Tf32Kind::kInnerProduct:
        tf32_epilogue_kernel<Tf32Kind::kInnerProduct><<<blocks, kEpilogueThreads, 0, stream>>>(p);
        break;
      case Tf32Kind::kCosine: tf32_epilogue_kernel<Tf32Kind::kCosine><<<blocks, kEpilogueThreads, 0, stream>>>(p); break;
    }
    CUDIST_CHECK_LAUNCH();
    // 8192 warps for the marked words: a few microseconds where none is (random rows), and a
    // full GPU where many are (near rows, pdist of duplicates).
    tf32_exact_entries_kernel<<<1024, kEpilogueThreads, 0, stream>>>(p);
    CUDIST_CHECK_LAUNCH();
  }
  return true;
}

}  // namespace cudist::detail::cuda
