// What the tensor-core candidate search (bounded_search_kernel.cuh) needs to know of its op: how a
// pair's float16 MMA product c (of the rows scaled by powers of two: rounded_rows.hpp) and the
// rows' terms bound the key the SIMT path ranks, and that key itself. Two ops, each proven in
// expansion_bound.hpp:
//
// - L2Bound, squared L2 through the expansion |x|^2 + |y|^2 - 2 x.y: a pair is a candidate when
//   y's lower term - 2 P (P = x_scale y_scale c) does not exceed the row's bar in expansion units.
// - DotBound, inner product (key -x.y) and cosine (key 1 - x.y / (|x| |y|)): P is within
//   e |x| |y| + slack of the SIMT path's float32 sum (e: the MMA's and the sum's errors and this
//   test's roundings), so a pair is a candidate when P + D |y| >= T, where the row's D and T come
//   from its bar: inner product D = e |x|, T = -bar - slack; cosine D = (bar - 1 + e) |x|,
//   T = -slack (the key is monotone in the sum; its roundings are inside e).
//
// Each gives, per row (slot), Row (its terms, once per block) and Limit (from the row's bar, per
// half tile); per pair, candidate() (the hot test: two multiplies, a fused multiply-add and a
// compare) and upper() (an upper bound of the key in the seed's units, for the first tile);
// rank_of(), the SIMT path's key of a problem; and exact_key(), that key of a pair, bit for bit.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "distance/detail/cuda/source_sums.cuh"
#include "distance/detail/dispatch_op.hpp"
#include "distance/detail/ops.hpp"
#include "neighbors/detail/cuda/rounded_rows.hpp"
#include "neighbors/detail/problem.hpp"
#include "neighbors/detail/rank_key.hpp"

namespace cudist::neighbors::detail::cuda {

using cudist::detail::cuda::SourceSums;
using cudist::detail::cuda::SourceSumsOf;

struct L2Bound {
  using Op = cudist::detail::ops::SqDiffSumOp<float, float>;
  using Rank = RankKey<Op>;
  /// A self-join's (i, i) pairs pass the test with their key set to 0: x = y makes the lower
  /// bound at most the slack.
  static constexpr bool kZeroDiagonalBounded = true;
  struct Constants {
    double inv_one_minus_gamma, one_plus_gamma, slack;  // expansion_bound.hpp
  };
  struct Row {
    float lo, scale, hi;  // rounded_rows.hpp
  };
  struct Limit {
    float neg2_scale;  // -2 x_scale
    float t_max;       // the largest y_lo - 2 P of a candidate
  };

  static __device__ Row row(Constants const&, RoundedRows const& x, std::int64_t r) {
    LowerTerm const lower = x.lower[r];
    return {lower.lo, lower.scale, x.hi[r]};
  }

  /// From the row's bar (a key, NaN when open) and its seeded bar: bar / (1 - gamma) + slack -
  /// x's lower term, rounded up. NaN (a row that is always recomputed) rules nothing out.
  static __device__ Limit limit(Constants const& k, Row const& x, float bar, float seeded) {
    float const b = fminf(bar, seeded);  // fminf: an open (NaN) bar leaves the seeded one
    float t_max = __builtin_huge_valf();
    if (b < __builtin_huge_valf()) {
      t_max = __double2float_ru(static_cast<double>(b) * k.inv_one_minus_gamma + k.slack - static_cast<double>(x.lo));
    }
    return {-2.0f * x.scale, t_max};
  }

  /// y's lower term - 2 P, P = x_scale y_scale c: exact scalings by powers of two.
  static __device__ bool candidate(Limit const& l, LowerTerm const& y, float c) {
    return !(__fmaf_rn(l.neg2_scale * y.scale, c, y.lo) > l.t_max);
  }

  /// y's upper term - 2 P: with x's upper term, an upper bound of the pair's key (seed_bar()).
  static __device__ float upper(Constants const&, Row const& x, LowerTerm const& y, float y_hi, float c) {
    return __fmaf_rn(-2.0f * x.scale * y.scale, c, y_hi);
  }

  /// The row's k-th smallest upper() as a key bound: (u + x's upper term + slack) (1 + gamma).
  static __device__ float seed_bar(Constants const& k, Row const& x, float kth) {
    double const ub = (static_cast<double>(kth) + static_cast<double>(x.hi) + k.slack) * k.one_plus_gamma;
    return kth < __builtin_huge_valf() && ub == ub ? __double2float_ru(ub) : __builtin_huge_valf();
  }

  /// The key the SIMT path ranks (i, j) on: its float32 sum in its order, or, where that left
  /// the normal range, the exact value (fused_select_kernel.cuh's make_keys, entry by entry).
  /// The SIMT path's key of p: the sum itself (planning cleared take_sqrt), with the source rows
  /// for the sums it recomputes in double.
  static Rank rank_of(SelectProblem const& p) {
    Rank rank{};
    rank.op = cudist::detail::sq_diff_sum_op<float, float>(p.pairwise);
    return rank;
  }

  static __device__ float exact_key(Rank const& rank, SourceSums const& rows, std::int64_t i, std::int64_t j,
                                    bool zero_diagonal) {
    float const acc = rows.sum(i, j, cudist::detail::cuda::SquaredDifferenceStep{});
    if (zero_diagonal && i == j) return isfinite(acc) ? 0.0f : acc;
    return Rank::inexact(acc) ? rank.exact(i, j) : acc;
  }
};

struct DotBound {
  using Op = cudist::detail::ops::DotOp<float, float>;
  using Rank = RankKey<Op>;
  /// Cosine's (i, i) keys, set to 0, may lie below their bounds: the kernel adds those pairs.
  static constexpr bool kZeroDiagonalBounded = false;
  /// Margin of the cosine seed: the key's own roundings (division, 1 - c), at most a few 2^-24.
  static constexpr float kCosineMargin = 0x1p-17f;
  struct Constants {
    double e;      // relative, on |x| |y| (expansion_bound.hpp's dot_e)
    float slack;   // absolute, on the sum
    bool cosine;   // else inner product
  };
  struct Row {
    float norm, scale;
    float e_norm;  // e |x|, rounded up
  };
  struct Limit {
    float scale, d, t;
  };

  static __device__ Row row(Constants const& k, RoundedRows const& x, std::int64_t r) {
    LowerTerm const lower = x.lower[r];
    return {lower.lo, lower.scale, __double2float_ru(k.e * static_cast<double>(lower.lo))};
  }

  static __device__ Limit limit(Constants const& k, Row const& x, float bar, float seeded) {
    float const b = fminf(bar, seeded);  // fminf: an open (NaN) bar leaves the seeded one
    if (!(b < __builtin_huge_valf())) return {x.scale, __builtin_huge_valf(), 0.0f};  // +inf or NaN: all pass
    if (k.cosine) {
      return {x.scale, __double2float_ru((static_cast<double>(b) - 1 + k.e) * static_cast<double>(x.norm)), -k.slack};
    }
    return {x.scale, x.e_norm, __double2float_rd(-static_cast<double>(b) - k.slack)};
  }

  static __device__ bool candidate(Limit const& l, LowerTerm const& y, float c) {
    return !(__fmaf_rn(l.scale * y.scale, c, l.d * y.lo) < l.t);
  }

  /// An upper bound of the pair's key: inner product e |x| |y| - P; cosine 1 - (P - e |x| |y| -
  /// slack) / (|x| |y|) (seed_bar() adds the margin of its roundings). +inf where |x| |y| is 0.
  static __device__ float upper(Constants const& k, Row const& x, LowerTerm const& y, float, float c) {
    if (!k.cosine) return __fmaf_rn(-x.scale * y.scale, c, x.e_norm * y.lo);
    float const lower = __fmaf_rn(x.scale * y.scale, c, -x.e_norm * y.lo) - k.slack;
    float const u = 1.0f - lower / (x.norm * y.lo);
    return u == u ? u : __builtin_huge_valf();
  }

  static __device__ float seed_bar(Constants const& k, Row const&, float kth) {
    if (!(kth < __builtin_huge_valf())) return __builtin_huge_valf();
    return __fadd_ru(kth, k.cosine ? kCosineMargin : k.slack);
  }

  /// The SIMT path's key: its float32 sum in order (fused multiply-adds), finished and negated as
  /// RankKey does; a self-join's finite diagonal keys are 0, as cdist's.
  /// The SIMT path's key of p: the op's finish (inner product, or cosine with the rows' norms),
  /// negated for the similarity.
  static Rank rank_of(SelectProblem const& p) {
    Rank rank{};
    rank.op = cudist::detail::dot_op<float, float>(p.pairwise.op);
    rank.negate = p.rank.similarity;
    return rank;
  }

  static __device__ float exact_key(Rank const& rank, SourceSums const& rows, std::int64_t i, std::int64_t j,
                                    bool zero_diagonal) {
    return key_of_sum(rank, rows.sum(i, j, cudist::detail::cuda::ProductStep{}), i, j, zero_diagonal);
  }

  /// exact_key() of the pair whose float32 sum (ProductStep's, in order) is acc.
  static __device__ float key_of_sum(Rank const& rank, float acc, std::int64_t i, std::int64_t j, bool zero_diagonal) {
    float const key = rank(acc, i, j);
    return zero_diagonal && i == j && isfinite(key) ? 0.0f : key;
  }
};

}  // namespace cudist::neighbors::detail::cuda
