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

/// The entry (i, j) from the GEMM's product, or exactly where the bound does not hold it.
__device__ float entry(EpilogueParams const& p, std::int64_t r, std::int64_t j) {
  std::int64_t const i = p.row0 + r;
  float const g = p.g[r * p.ldg + j];
  float value;
  bool exact;
  if (p.kind == Tf32Kind::kSquares) {
    float const norms = p.x_squares[r] + p.y_squares[j];
    float const d2 = fmaxf(__fmaf_rn(-2.0f, g, norms), 0.0f);
    exact = !(d2 > __fmaf_rn(p.keep, norms, p.flushed));  // also NaN and inf norms
    value = p.squares.take_sqrt ? sqrtf(d2) : d2;
  } else if (p.kind == Tf32Kind::kInnerProduct) {
    exact = !isfinite(g);
    value = g;
  } else {
    value = p.dot.finish(g, i, j);  // 1 - clamp(g / (|x| |y|)): the exact path's finish
    float const relative_flush = p.flushed / (p.dot.x_norms[i] * p.dot.y_norms[j]);  // inf where they underflow
    exact = !(value > p.keep + relative_flush) || !isfinite(value);
  }
  if (exact) value = exact_entry(p, i, j);
  if (p.zero_diagonal && i == j && isfinite(value)) value = 0.0f;
  return value;
}

/// Rows by blockIdx.y (strided past 65535), columns by the threads of blockIdx.x.
__global__ void tf32_epilogue_kernel(EpilogueParams const p) {
  for (std::int64_t r = blockIdx.y; r < p.rows; r += gridDim.y) {
    for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < p.n;
         j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
      if (!p.condensed) {
        p.out[r * p.ld_out + j] = entry(p, r, j);
      } else if (j > p.row0 + r) {
        std::int64_t const i = p.row0 + r;
        p.out[condensed_row_start(p.n, i) - condensed_row_start(p.n, p.row0) + (j - i - 1)] = entry(p, r, j);
      }
    }
  }
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
    dim3 const grid(static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 64)),
                    static_cast<unsigned>(std::min<std::int64_t>(rows, 65535)));
    tf32_epilogue_kernel<<<grid, 256, 0, stream>>>(p);
    CUDIST_CHECK_LAUNCH();
  }
  return true;
}

}  // namespace cudist::detail::cuda
