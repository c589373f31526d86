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

#include <cstdint>

#include "core/cuda/check.hpp"
#include "core/cuda/cublas_library.hpp"
#include "core/cuda/device_array.hpp"
#include "cudist/core/array.hpp"
#include "cudist/core/error.hpp"
#include "distance/detail/cuda/source_sums.cuh"
#include "distance/detail/cuda/tf32_augmented_rows.cuh"
#include "distance/detail/cuda/tf32_epilogue.cuh"
#include "distance/detail/dispatch_op.hpp"
#include "distance/detail/ops.hpp"
#include "distance/detail/tf32_bound.hpp"

namespace cudist::detail::cuda {
namespace {

using tf32::AugmentParams;
using tf32::EpilogueParams;
using tf32::MarkedWord;
using tf32::Side;
using tf32::Tf32Kind;

/// How many times its bound an entry must be to keep the GEMM's value.
constexpr double kKeepFactor = 16;

bool run_tf32(PairwiseProblem const& pr, cudaStream_t stream) {
  OpSpec const& op = pr.op;
  bool const squares = op.kind == OpKind::kSqDiffSum;
  bool const dot = op.kind == OpKind::kDot;
  bool const applies = pr.tf32 && pr.x.dtype == DType::kFloat32 && pr.out.dtype == DType::kFloat32 &&
                       (squares || dot) && op.weights == nullptr && pr.x.cols >= 1 && cublas_available();
  if (!applies) return false;
  // Neither the window nor y is empty here (pairwise() returns before those).
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
    augmented = device_array(rows + n, depth, DType::kFloat32, stream);
    if (kind == Tf32Kind::kSquares) row_squares = device_array(1, rows + n, DType::kFloat32, stream);
    auto augment = [&](float const* from, std::int64_t ld, std::int64_t count, Side side, float const* norms,
                       std::int64_t first) {
      if (count == 0) return;
      AugmentParams ap{from, ld, count, d, side, kind == Tf32Kind::kCosine, norms,
                       kind == Tf32Kind::kSquares ? row_squares.data_as<float>() + first : nullptr,
                       augmented.data_as<float>() + first * depth, depth};
      tf32::augment_rows_kernel<<<static_cast<unsigned>((count + 7) / 8), 256, 0, stream>>>(ap);
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
    scratch = device_array(rows, ldg, DType::kFloat32, stream);
    g = scratch.data_as<float>();
  }
  gemm_tf32_abt(rows, n, depth, a, lda, b, ldb, g, ldg, stream);
  p.g = g;
  p.ldg = ldg;

  // 16-byte loads where every row's fours of columns lie inside it: a loaded four that ran past
  // column n would read the output's stride padding, which a view's last row need not have.
  bool const vectors = n % 4 == 0 && ldg % 4 == 0 && reinterpret_cast<std::uintptr_t>(g) % 16 == 0;
  p.columns_per_lane = vectors ? 4 : 1;
  p.chunks_per_row = (n + 32 * p.columns_per_lane - 1) / (32 * p.columns_per_lane);
  std::int64_t const words = rows * p.chunks_per_row * p.columns_per_lane;
  CUDIST_EXPECTS(words <= std::int64_t{UINT32_MAX},
                 "precision tf32: an output window of " << words << " 32-column words (at most 2^32 - 1)");
  // The marked words (8 bytes each, 1/16 of the window's output at most) and their count.
  Array marked = device_array(1, 2 * words + 2, DType::kInt32, stream);
  p.marked_count = reinterpret_cast<std::uint32_t*>(marked.data_as<std::int32_t>());
  p.marked = reinterpret_cast<MarkedWord*>(p.marked_count + 2);
  CUDIST_CUDA_TRY(cudaMemsetAsync(p.marked_count, 0, sizeof(std::uint32_t), stream));
  switch (kind) {
    case Tf32Kind::kSquares: tf32::launch_epilogue<Tf32Kind::kSquares>(p, stream); break;
    case Tf32Kind::kInnerProduct: tf32::launch_epilogue<Tf32Kind::kInnerProduct>(p, stream); break;
    case Tf32Kind::kCosine: tf32::launch_epilogue<Tf32Kind::kCosine>(p, stream); break;
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
