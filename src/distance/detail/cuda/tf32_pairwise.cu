// Precision::kTf32 for cdist / pdist of float32 rows (pairwise.hpp): a TF32 GEMM on the tensor
// cores (cuBLAS) computes each entry, then an epilogue decides, per entry, whether the bound
// below may exceed a 16th of it; those entries (identical rows, near rows, non-finite values) are
// computed exactly, by the SIMT path's own sum.
//
// For sqeuclidean / euclidean and cosine the GEMM's product is the distance itself: it multiplies
// augmented rows, x' = [-2 x, hi_x, lo_x, 1, 1] and y' = [y, 1, 1, hi_y, lo_y] with hi + lo = |x|^2
// (float32, rounded up; hi keeps TF32's 10 bits, so the conversion takes it whole, and lo is
// within 2^-10 hi), or x' = [x / |x|, 1] and y' = [-y / |y|, 1] with the op's norms. So the
// output is written once, by the GEMM, and the epilogue only reads it (euclidean's square root
// and the condensed layout write).
//
// The bound (docs/accuracy.md): TF32 keeps 10 bits of each factor (truncated at worst: 2^-10
// each: 2^-9 + 2^-20 on a product), products accumulate in float32 in any order (4 ulps an
// addition at worst, on the sum of the terms' magnitudes), and products below float32's normal
// range may flush to zero (a = d 2^-126 absolute at most).
//   inner product  |G - x.y| <= e |x| |y| + a,  e = 2^-9 + 2^-20 + (d + 2) 2^-22 (the d products)
//   sqeuclidean    |D~ - D| <= E_s (|x|^2 + |y|^2) + 2 a: the terms' magnitudes sum to at most
//                  2 (|x|^2 + |y|^2) over d + 4 terms, the norms carry 2^-23 (their rounding) and
//                  2^-20 (lo's conversion), and 2^-21 covers euclidean's square root
//   cosine         |D~ - (1 - c)| <= E_c + a: the magnitudes sum to at most 2 over d + 1 terms,
//                  and the normalised rows carry 3 2^-23 of c (the norm's rounding, 1 / |x| and
//                  the product)
// and entries of sqeuclidean / euclidean with D~ <= 16 (E_s (|x|^2 + |y|^2) + 2 a), or cosine
// distances <= 16 (E_c + a), are the exact path's.
#include "distance/detail/cuda/tf32_pairwise.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/cuda/check.hpp"
#include "core/cuda/cublas_library.hpp"
#include "core/cuda/device_features.hpp"
#include "core/detail/cuda_runtime.hpp"
#include "cudist/core/array.hpp"
#include "cudist/core/error.hpp"
#include "distance/detail/cuda/source_sums.cuh"
#include "distance/detail/dispatch_op.hpp"
#include "distance/detail/ops.hpp"
#include "distance/detail/tf32_bound.hpp"

namespace cudist::detail::cuda {
namespace {

/// How many times its bound an entry must be to keep the GEMM's value.
constexpr double kKeepFactor = 16;

enum class Tf32Kind : std::uint8_t { kSquares, kInnerProduct, kCosine };

/// Which factor of the GEMM an augmented row is (file comment).
enum class Side : std::uint8_t { kX, kY };

/// The augmented rows of `count` rows (d values, row stride ld) into `out` (rows of `width`, zeros
/// past the tail): a warp a row.
struct AugmentParams {
  float const* rows;
  std::int64_t ld, count, d;
  Side side;
  bool cosine;
  float const* norms;  // cosine: the op's norms of these rows
  float* squares;      // sqeuclidean: |row|^2 (float32, rounded up), for the keep rule
  float* out;
  std::int64_t width;
};

__global__ void augment_rows_kernel(AugmentParams const p) {
  std::int64_t const r = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  int const lane = static_cast<int>(threadIdx.x % 32);
  if (r >= p.count) return;
  float const* row = p.rows + r * p.ld;
  float scale;
  float tail[4];
  if (p.cosine) {
    float const inverse = 1.0f / p.norms[r];  // inf for a zero row: its entries come out NaN
    scale = p.side == Side::kX ? inverse : -inverse;
    tail[0] = 1.0f;
    tail[1] = tail[2] = tail[3] = 0.0f;
  } else {
    double sum = 0;
    for (std::int64_t k = lane; k < p.d; k += 32) sum += static_cast<double>(row[k]) * row[k];
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    float const s = __double2float_ru(sum);
    float const hi = __uint_as_float(__float_as_uint(s) & 0xffffe000u);  // sign, exponent, 10 bits
    float const lo = s - hi;                                               // exact
    if (lane == 0) p.squares[r] = s;
    scale = p.side == Side::kX ? -2.0f : 1.0f;
    bool const x = p.side == Side::kX;
    tail[0] = x ? hi : 1.0f;
    tail[1] = x ? lo : 1.0f;
    tail[2] = x ? 1.0f : hi;
    tail[3] = x ? 1.0f : lo;
  }
  float* to = p.out + r * p.width;
  for (std::int64_t k = lane; k < p.d; k += 32) to[k] = row[k] * scale;
  for (std::int64_t k = p.d + lane; k < p.width; k += 32) {
    std::int64_t const t = k - p.d;
    to[k] = t == 0 ? tail[0] : t == 1 ? tail[1] : t == 2 ? tail[2] : t == 3 ? tail[3] : 0.0f;
  }
}

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
/// (file comment), writing only where the output differs from the product (euclidean's square
/// root, cosine's clamp at 2, the condensed layout); the others are appended to `marked` for pass
/// 2. Measured on D8t's read-only pass: a lane a column moved 1.4 TB/s at 90% of the SMs' issue
/// (the per-row tests and addresses); 16-byte loads share them among four columns.
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
  int per_sm = 0;
  CUDIST_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kEpilogueThreads, 0));
  std::int64_t const per_block = kEpilogueThreads / 32;
  return static_cast<unsigned>(std::min<std::int64_t>((warp_tasks + per_block - 1) / per_block,
                                                      std::int64_t{std::max(per_sm, 1)} * multiprocessors()));
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

/// A scratch array on the current device, in stream order.
Array scratch_array(std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  return Array::allocate(rows, cols, DType::kFloat32, Device::cuda(cuda_get_device()), stream);
}

}  // namespace

namespace {

bool run_tf32(PairwiseProblem const& pr, cudaStream_t stream) {
  OpSpec const& op = pr.op;
  bool const squares = op.kind == OpKind::kSqDiffSum;
  bool const dot = op.kind == OpKind::kDot;
  bool const applies = pr.tf32 && pr.x.dtype == DType::kFloat32 && pr.out.dtype == DType::kFloat32 &&
                       (squares || dot) && op.weights == nullptr && pr.x.cols >= 1 && cublas_available();
  if (!applies) return false;
  std::int64_t const row0 = pr.row_begin, rows = pr.window_end() - pr.row_begin, n = pr.y.rows, d = pr.x.cols;
  bool const condensed = pr.layout == OutputLayout::kCondensed;
  auto const* x = static_cast<float const*>(pr.x.data) + row0 * pr.x.stride;
  auto const* y = static_cast<float const*>(pr.y.data);

  EpilogueParams p{};
  p.row0 = row0;
  p.rows = rows;
  p.n = n;
  p.source = SourceSums::of(pr);
  p.zero_diagonal = pr.zero_diagonal;
  p.condensed = condensed;
  p.out = static_cast<float*>(pr.out.data);
  p.ld_out = pr.out.stride;
  Tf32Kind kind = Tf32Kind::kSquares;
  if (squares) {
    p.squares = sq_diff_sum_op<float, float>(pr);
    p.keep = static_cast<float>(kKeepFactor * tf32_squares_error(d));
    p.flushed = static_cast<float>(kKeepFactor * 2 * tf32_flushed_products(d) * 1.01);
  } else {
    p.dot = dot_op<float, float>(op);
    bool const cosine = p.dot.kind == ops::DotOp<float, float>::Finish::kCosineDistance;
    kind = cosine ? Tf32Kind::kCosine : Tf32Kind::kInnerProduct;
    p.keep = static_cast<float>(kKeepFactor * (tf32_cosine_error(d) + tf32_flushed_products(d) * 1.01));
  }

  // The GEMM's factors: the augmented rows (file comment), or the rows themselves (inner product).
  float const *a = x, *b = y;
  std::int64_t lda = pr.x.stride, ldb = pr.y.stride, depth = d;
  Array augmented, row_squares;
  if (kind != Tf32Kind::kInnerProduct) {
    // Rows of 128 bytes: cuBLAS's TF32 GEMM took 479 us for D8t at a width of 516 (rows 16-byte
    // aligned), 358 us at 512.
    depth = (d + (kind == Tf32Kind::kSquares ? 4 : 1) + 31) / 32 * 32;
    augmented = scratch_array(rows + n, depth, stream);
    if (kind == Tf32Kind::kSquares) row_squares = scratch_array(1, rows + n, stream);
    auto augment = [&](float const* from, std::int64_t ld, std::int64_t count, Side side, float const* norms,
                       std::int64_t first) {
      if (count == 0) return;
      AugmentParams ap{from, ld, count, d, side, kind == Tf32Kind::kCosine, norms,
                       kind == Tf32Kind::kSquares ? row_squares.data_as<float>() + first : nullptr,
                       augmented.data_as<float>() + first * depth, depth};
      augment_rows_kernel<<<static_cast<unsigned>((count + 7) / 8), 256, 0, stream>>>(ap);
      CUDIST_CHECK_LAUNCH();
    };
    augment(x, pr.x.stride, rows, Side::kX, kind == Tf32Kind::kCosine ? p.dot.x_norms + row0 : nullptr, 0);
    augment(y, pr.y.stride, n, Side::kY, kind == Tf32Kind::kCosine ? p.dot.y_norms : nullptr, rows);
    a = augmented.data_as<float>();
    b = a + rows * depth;
    lda = ldb = depth;
    if (kind == Tf32Kind::kSquares) {
      p.x_squares = row_squares.data_as<float>();
      p.y_squares = p.x_squares + rows;
    }
  }

  // The products: into the output itself where it is the full matrix, else a scratch window.
  float* g = p.out;
  std::int64_t ldg = p.ld_out;
  Array scratch;
  if (condensed) {
    ldg = n;
    scratch = scratch_array(rows, ldg, stream);
    g = scratch.data_as<float>();
  }
  gemm_tf32_abt(rows, n, depth, a, lda, b, ldb, g, ldg, stream);
  p.g = g;
  p.ldg = ldg;

  if (rows > 0 && n > 0) {
    // 16-byte loads where every row's fours of columns lie inside it: a loaded four that ran past
    // column n would read the output's stride padding, which a view's last row need not have.
    bool const vectors = n % 4 == 0 && ldg % 4 == 0 && reinterpret_cast<std::uintptr_t>(g) % 16 == 0;
    p.columns_per_lane = vectors ? 4 : 1;
    p.chunks_per_row = (n + 32 * p.columns_per_lane - 1) / (32 * p.columns_per_lane);
    std::int64_t const words = rows * p.chunks_per_row * p.columns_per_lane;
    CUDIST_EXPECTS(words <= std::int64_t{UINT32_MAX}, "precision tf32: an output window of " << words
                                                          << " 32-column words (at most 2^32 - 1)");
    // The marked words (8 bytes each, 1/16 of the window's output at most) and their count.
    Array marked = Array::allocate(1, 2 * words + 2, DType::kInt32, Device::cuda(cuda_get_device()), stream);
    p.marked_count = reinterpret_cast<std::uint32_t*>(marked.data_as<std::int32_t>());
    p.marked = reinterpret_cast<MarkedWord*>(p.marked_count + 2);
    CUDIST_CUDA_TRY(cudaMemsetAsync(p.marked_count, 0, sizeof(std::uint32_t), stream));
    switch (kind) {
      case Tf32Kind::kSquares: launch_epilogue<Tf32Kind::kSquares>(p, stream); break;
      case Tf32Kind::kInnerProduct: launch_epilogue<Tf32Kind::kInnerProduct>(p, stream); break;
      case Tf32Kind::kCosine: launch_epilogue<Tf32Kind::kCosine>(p, stream); break;
    }
  }
  return true;
}

}  // namespace

bool tf32_pairwise(PairwiseProblem const& pr, cudaStream_t stream) {
  try {
    return run_tf32(pr, stream);
  } catch (OutOfMemory const&) {
    // No room for the augmented rows (a copy of y per window), the condensed layout's scratch or
    // the marks: the exact path needs none of them and writes every entry of the output again.
    return false;
  }
}

}  // namespace cudist::detail::cuda
