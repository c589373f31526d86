// How far the tensor-core expansion of a squared distance can be from the exact value, and how
// far cudist's exact float32 sum can be: together they decide which pairs of a knn / match need
// the exact sum at all (bounded_search_kernel.cuh). The inequalities, for rows x, y of depth d with
// squared norms Sx, Sy (computed in double), D = sum (x_k - y_k)^2 exactly, and f the float32
// sum the SIMT engine computes (d fused multiply-adds of rounded differences):
//
//   P, the dot product of the rows scaled by powers of two and rounded to float16 on the tensor
//   cores with float32 accumulation (rounded_rows.hpp), scaled back, satisfies
//   |2 (P - x.y)| <= e (Sx + Sy) + slack, where e covers
//     - the rounding of both factors to float16 (u = 2^-11): (2u + u^2) |x_k y_k| per product,
//       and, for values below float16's normal range (2^-27 of their row's largest), its
//       subnormals' absolute error: 2^-38 max|x| sum |y_k| <= 2^-39 sqrt(d) (Sx + Sy) per side,
//     - the accumulation inside the MMA (truncating adds: 2^-22 of the running magnitude per
//       16-deep step, ceil(d / 16) + 2 steps),
//     - the float32 rounding of the one fused multiply-add that forms y's term minus 2 P
//       (2^-22 (Sx + Sy) at most), and the double sums of the norms;
//   and slack covers the scale factors' product underflowing (|P| < d 2^-98 then).
//   Since 2 |x.y| <= 2 sum |x_k y_k| <= Sx + Sy:
//       (1 - e)(Sx + Sy) - 2P - slack  <=  D  <=  (1 + e)(Sx + Sy) - 2P + slack.
//   f is within gamma of D: (1 - gamma) D <= f <= (1 + gamma) D, gamma = (d + 2) 2^-24 / (1 - (d
//   + 2) 2^-24) plus d 2^-46 for squared differences that underflow (sums below 2^-80 are
//   recomputed in double, as the SIMT path does).
//
// So a pair whose lower bound exceeds a row's current k-th exact key, divided by 1 - gamma,
// cannot be among the row's k nearest (f > that key), and the k-th smallest upper bound among a
// row's pairs, times 1 + gamma, bounds its k-th exact key from above before any is known.
// Rows with a non-finite value, a nonzero value below 2^-100, or norms near float32's range are
// always recomputed: their bounds are NaN.
//
// The dot products (inner product, cosine) use the same two errors on sum |x_k y_k| <= |x| |y|
// directly: |P - x.y| <= e |x| |y| + slack / 2 (the accumulation's and the roundings' terms are
// relative to the same sum), and f, now the float32 sum of x_k y_k by fused multiply-adds, is
// within gamma sum |x_k y_k| (+ d 2^-150 where partial sums are subnormal) of x.y. So
// |P - f| <= dot_e |x| |y| + slack, where dot_e adds 2^-17 for the search's own float32
// roundings of its test (at most a few 2^-24 |x| |y|, search_bounds.cuh) and of the cosine's key
// (the quotient, 1 - c, and the norms: again a few 2^-24). With norms rounded up, a pair whose
// P + dot_e |x| |y| + slack falls below what a key at the row's bar needs cannot enter.
#pragma once

#include <cmath>
#include <cstdint>

namespace cudist::neighbors::detail {

struct ExpansionBound {
  double e = 0;      // relative, on Sx + Sy
  double gamma = 0;  // relative error of the float32 direct sum
  double slack = 0;  // absolute, on 2 (P - x.y)

  /// Relative error on |x| |y| of the tensor-core estimate of a dot product against the float32
  /// sum, with the test's roundings (file comment).
  double dot_e() const { return e + gamma + std::ldexp(1.0, -17); }

  static ExpansionBound for_depth(std::int64_t d) {
    double const u = std::ldexp(1.0, -11);
    double const steps = static_cast<double>((d + 15) / 16 + 2);
    double const product = 2 * u + u * u + std::ldexp(1.0, -36) * std::sqrt(static_cast<double>(d));
    double const accumulate = steps * std::ldexp(1.0, -22) * (1 + u) * (1 + u);
    double const roundings = std::ldexp(1.0, -20) + std::ldexp(1.0, -40);
    double const f = static_cast<double>(d + 2) * std::ldexp(1.0, -24);
    ExpansionBound b;
    b.e = product + accumulate + roundings;
    b.gamma = f / (1 - f) + static_cast<double>(d) * std::ldexp(1.0, -46);
    b.slack = static_cast<double>(d) * std::ldexp(1.0, -94);
    return b;
  }
};

}  // namespace cudist::neighbors::detail
