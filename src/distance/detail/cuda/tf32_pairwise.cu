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

struct EpilogueParams {
  Tf32Kind kind;
  float const* g;          // (rows, n) the GEMM's products, row stride ldg
  std::int64_t ldg;
  std::int64_t row0, rows, n;
  float const* x_squares;  // kSquares: (rows) of the window, (n) of y
  float const* y_squares;
  float keep;              // 16 E: the share of the norms (squares) or the distance (cosine)
  float flushed;           // 16 a (squares: 32 a), the absolute part
  ops::SqDiffSumOp<float, float> squares;  // the exact path's ops, for the entries recomputed
  ops::DotOp<float, float> dot;
  SourceSums source;
  bool zero_diagonal;
  bool condensed;          // out: the condensed entries of the window, from its first row's first
  float* out;
  std::int64_t ld_out;
};

/// The exact path's value of (i, j): its float32 sum in its order, finished.
__device__ float exact_entry(EpilogueParams const& p, std::int64_t i, std::int64_t j) {
  if (p.kind == Tf32Kind::kSquares) return p.squares.finish(p.source.sum(i, j, SquaredDifferenceStep{}), i, j);
  return p.dot.finish(p.source.sum(i, j, ProductStep{}), i, j);
}

/// The entry (row0 + r, j) from the GEMM's product g; *exact where the bound does not hold it.
__device__ float approximate_entry(EpilogueParams const& p, std::int64_t r, std::int64_t j, float g, bool* exact) {
  if (p.kind == Tf32Kind::kSquares) {
    float const norms = p.x_squares[r] + p.y_squares[j];
    float const d2 = fmaxf(__fmaf_rn(-2.0f, g, norms), 0.0f);
    *exact = !(d2 > __fmaf_rn(p.keep, norms, p.flushed));  // also NaN and inf norms
    return p.squares.take_sqrt ? sqrtf(d2) : d2;
  }
  if (p.kind == Tf32Kind::kInnerProduct) {
    *exact = !isfinite(g);
    return g;
  }
  std::int64_t const i = p.row0 + r;
  float const value = p.dot.finish(g, i, j);  // 1 - clamp(g / (|x| |y|)): the exact path's finish
  float const relative_flush = p.flushed / (p.dot.x_norms[i] * p.dot.y_norms[j]);  // inf where they underflow
  *exact = !(value > p.keep + relative_flush) || !isfinite(value);
  return value;
}

/// Whether (row0 + r, j) is an entry of the output (the condensed layout holds j > i only).
__device__ bool in_output(EpilogueParams const& p, std::int64_t r, std::int64_t j) {
  return j < p.n && (!p.condensed || j > p.row0 + r);
}

__device__ void store(EpilogueParams const& p, std::int64_t r, std::int64_t j, float value) {
  std::int64_t const i = p.row0 + r;
  if (p.zero_diagonal && i == j && isfinite(value)) value = 0.0f;
  if (!p.condensed) {
    p.out[r * p.ld_out + j] = value;
  } else {
    p.out[condensed_row_start(p.n, i) - condensed_row_start(p.n, p.row0) + (j - i - 1)] = value;
  }
}

/// A warp's share of the epilogue: 32 consecutive columns of one row per bit word of the
/// recompute mask, kWordsPerWarp words (independent loads in flight) per task.
constexpr int kWordsPerWarp = 4;
constexpr int kEpilogueThreads = 256;

__host__ __device__ std::int64_t mask_words_per_row(std::int64_t n) { return (n + 31) / 32; }

/// Pass 1, bandwidth-bound: each entry from the GEMM's product where the bound holds it; the
/// others are marked in `recompute` (bit j % 32 of word (r, j / 32)) for pass 2 and not stored.
/// It holds none of the exact sum's registers, so enough warps stay resident to keep ~100 KB of
/// loads in flight per SM (a fused version, 66 registers and one load a thread, ran at 0.7 TB/s).
__global__ void __launch_bounds__(kEpilogueThreads) tf32_epilogue_kernel(EpilogueParams const p,
                                                                         std::uint32_t* recompute) {
  int const lane = static_cast<int>(threadIdx.x % 32);
  std::int64_t const words_per_row = mask_words_per_row(p.n);
  std::int64_t const tasks_per_row = (words_per_row + kWordsPerWarp - 1) / kWordsPerWarp;
  std::int64_t const warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t task = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
       task < p.rows * tasks_per_row; task += warps) {
    std::int64_t const r = task / tasks_per_row;
    std::int64_t const word0 = task % tasks_per_row * kWordsPerWarp;
    float g[kWordsPerWarp];
#pragma unroll
    for (int w = 0; w < kWordsPerWarp; ++w) {
      std::int64_t const j = (word0 + w) * 32 + lane;
      g[w] = j < p.n ? p.g[r * p.ldg + j] : 0.0f;
    }
#pragma unroll
    for (int w = 0; w < kWordsPerWarp; ++w) {
      std::int64_t const j = (word0 + w) * 32 + lane;
      bool exact = false;
      if (in_output(p, r, j)) {
        float const value = approximate_entry(p, r, j, g[w], &exact);
        if (!exact) store(p, r, j, value);
      }
      std::uint32_t const word = __ballot_sync(0xffffffffu, exact);
      if (lane == 0 && word0 + w < words_per_row) recompute[r * words_per_row + word0 + w] = word;
    }
  }
}

/// Pass 2: the marked entries, exactly. Each lane reads one mask word; the warp then takes the
/// nonzero ones in turn, a lane per marked column, so the work follows the marks, not the output.
__global__ void tf32_exact_entries_kernel(EpilogueParams const p,
                                          std::uint32_t const* recompute) {
  int const lane = static_cast<int>(threadIdx.x % 32);
  std::int64_t const words_per_row = mask_words_per_row(p.n);
  std::int64_t const words = p.rows * words_per_row;
  std::int64_t const warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t base = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32 * 32;
       base < words; base += warps * 32) {
    std::uint32_t const mine = base + lane < words ? recompute[base + lane] : 0u;
    for (std::uint32_t pending = __ballot_sync(0xffffffffu, mine != 0); pending != 0; pending &= pending - 1) {
      int const from = __ffs(static_cast<int>(pending)) - 1;
      std::uint32_t const word = __shfl_sync(0xffffffffu, mine, from);
      if ((word >> lane & 1u) != 0) {
        std::int64_t const r = (base + from) / words_per_row;
        std::int64_t const j = (base + from) % words_per_row * 32 + lane;
        store(p, r, j, exact_entry(p, p.row0 + r, j));
      }
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
  }
  if (rows > 0 && n > 0) {
    std::int64_t const words = rows * mask_words_per_row(n);
    Array recompute = Array::allocate(1, words, DType::kInt32, Device::cuda(cuda_get_device()), stream);
    auto* mask = reinterpret_cast<std::uint32_t*>(recompute.data_as<std::int32_t>());
    tf32_epilogue_kernel<<<epilogue_blocks(rows * ((mask_words_per_row(n) + kWordsPerWarp - 1) / kWordsPerWarp)),
                           kEpilogueThreads, 0, stream>>>(p, mask);
    CUDIST_CHECK_LAUNCH();
    tf32_exact_entries_kernel<<<epilogue_blocks((words + 31) / 32), kEpilogueThreads, 0, stream>>>(p, mask);
    CUDIST_CHECK_LAUNCH();
  }
  return true;
}

}  // namespace cudist::detail::cuda
