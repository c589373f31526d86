// The metric op structs: what one (x_i, y_j) pair contributes per column k, how partial
// accumulators merge, and the epilogue that turns an accumulator into the distance. Shared by the
// CPU backend and the CUDA contraction engine, so both compute the same function.
//
//   D[i][j] = finish(reduce_k step(x[i][k], y[j][k]), i, j)
//
// Every op has:  using Acc;  static Acc init();  static void step(Acc&, C a, C b[, C w]);
//                static Acc merge(Acc, Acc);  Out finish(Acc, int64 i, int64 j) const;
// C is the compute type (float, double, or int32 for exact uint8 arithmetic). Ops whose kWeighted
// is true take a per-column weight in step; the others receive pre-scaled inputs instead
// (see preprocess.hpp), which keeps the hot loops free of weight loads. Ops whose kTakesIndex is
// true (the semiring products' witness ops) receive the global column k in step instead.
// pad() is what the engine feeds for columns beyond d: zero, which every distance op ignores;
// a semiring op returns the identity of its "add" instead (+inf for min-plus).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#if defined(__AVX512VPOPCNTDQ__) && !defined(__CUDACC__)
#include <immintrin.h>
#endif

#include "core/detail/host_device.hpp"

namespace cudist::detail::ops {

/// |a - b|, written as a select so that it also works on integers and on the CPU backend's
/// SIMD vector types (on the GPU it compiles to FADD with the |.| modifier).
template <class T>
CUDIST_HD T abs_diff(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_floating_point_v<T>) return fabs(a - b);
#endif
  return a > b ? a - b : b - a;
}

/// max that ignores a NaN `v`, as scipy's chebyshev does (std::max(dist, diff) in its C++
/// kernels); acc is never NaN. On the GPU this is the native fmax; on the CPU the compare-select
/// form, which vectorises (std::fmax would be a library call per element).
template <class T>
CUDIST_HD T max_ignoring_nan(T acc, T v) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_floating_point_v<T>) return fmax(acc, v);
#endif
  return v > acc ? v : acc;
}

template <class C>
CUDIST_HD C sqrt_of(C v) { return std::sqrt(v); }

/// sqrt(v), correctly rounded, for v in [2^-101, FLT_MAX]: what the CUDA compiler emits for sqrtf
/// there (a reciprocal square root and one Newton step), without the test of the argument's range
/// and the branch around its slow path, which were 15% of the instructions of euclidean pdist at
/// d = 2 (docs/tuning.md, D4c). The in-range entries of a recomputing op (outside_float_range)
/// lie inside [2^-80, FLT_MAX]; tests/distance/sqrt_in_range_test.cu checks every float of that
/// range against sqrtf, bit for bit.
CUDIST_HD float sqrt_in_range(float v) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));  // no subnormal argument in the range
  float const root = v * r;
  return fmaf(fmaf(-root, root, v), 0.5f * r, root);
#else
  return std::sqrt(v);
#endif
}

template <class C, class Out>
struct OpBase {
  using Compute = C;
  using Output = Out;
  static constexpr bool kTakesWeight = false;  // step(acc, a, b, w) instead of step(acc, a, b)
  static constexpr bool kTakesIndex = false;   // step(acc, a, b, k) with the global column k
  static constexpr bool kLaneWise = false;     // step is a template: also runs on SIMD vectors
  static constexpr bool kWeighted = false;     // a weight vector is actually given
  /// finish(acc) = inexact(acc) ? exact_finish(i, j) : in_range_finish(acc, i, j); the GPU
  /// engine writes in_range_finish and fixes the inexact entries after its tile (off the hot path).
  static constexpr bool kRecomputes = false;
  /// Has in_range_finish_unchecked(acc): in_range_finish without sqrtf's range test (SqDiffSumOp).
  static constexpr bool kUncheckedRoot = false;
  static CUDIST_HD C pad() { return C(0); }    // input value for columns beyond d
};

/// One step of `op` at column k0 + k; `w` is the weight vector, indexed by k (the GPU engine
/// passes the slab's weights and the slab-local k, the CPU backend all weights and k0 = 0).
template <class Op, class Acc, class C>
CUDIST_HD void step_at(Op const& op, Acc& acc, C a, C b, C const* w, std::int64_t k,
                       std::int64_t k0 = 0) {
  if constexpr (Op::kTakesIndex) {
    op.step(acc, a, b, k0 + k);
  } else if constexpr (Op::kTakesWeight) {
    if constexpr (Op::kWeighted) {
      op.step(acc, a, b, w[k]);
    } else {
      op.step(acc, a, b, C(1));
    }
  } else {
    op.step(acc, a, b);
  }
}

template <class C>
struct SumPair {
  C first, second;
};

/// The (m, d) and (n, d) rows an op was given, for the ops that recompute an entry from them.
template <class C>
struct SourceRows {
  C const* x = nullptr;
  C const* y = nullptr;
  std::int64_t ldx = 0, ldy = 0, d = 0;
};

/// True when a float sum of squares (or of |a - b|^p) may be inaccurate: it overflowed, or it is
/// so small that its terms were subnormal or flushed to zero (each such term is off by up to
/// 2^-126 absolutely; at sums >= 2^-80 that stays below float rounding for d up to 2^22), or it
/// is NaN. Two compares per finished entry; ordinary data never takes the branch.
CUDIST_HD bool outside_float_range(float acc) {
  // `&`, not `&&`: both compares always run, so the CPU backend's test of a row has no branches.
  return !((acc >= 0x1p-80f) & (acc <= 3.402823466e+38f));
}

/// sum_k |x_ik - y_jk|^p in double, scaled by the largest |x_ik - y_jk| so that no power
/// overflows or underflows (as BLAS nrm2 scales); returns (scale, sum of scaled powers).
template <class C>
CUDIST_HD SumPair<double> scaled_power_sum(SourceRows<C> const& r, std::int64_t i, std::int64_t j,
                                           double p) {
  C const* a = r.x + i * r.ldx;
  C const* b = r.y + j * r.ldy;
  double scale = 0;
  for (std::int64_t k = 0; k < r.d; ++k) {
    double const v = std::fabs(static_cast<double>(a[k]) - static_cast<double>(b[k]));
    if (v != v) return {v, 1};  // NaN in, NaN out
    if (v > scale) scale = v;
  }
  if (scale == 0 || scale - scale != 0) return {scale, 1};  // 0 or inf: scale is the answer
  double sum = 0;
  for (std::int64_t k = 0; k < r.d; ++k) {
    double const v = std::fabs(static_cast<double>(a[k]) - static_cast<double>(b[k])) / scale;
    sum += p == 2 ? v * v : std::pow(v, p);
  }
  return {scale, sum};
}

/// sqeuclidean / euclidean (take_sqrt): sum (a - b)^2, the direct formula (no cancellation).
/// In float, an entry whose sum overflowed or underflowed (inexact) is recomputed from the source
/// rows in double (scaled), so the answer is right whenever it is representable.
template <class C, class Out>
struct SqDiffSumOp : OpBase<C, Out> {
  using Acc = C;
  static constexpr bool kLaneWise = true;
  static constexpr bool kRecomputes = std::is_same_v<C, float>;
  static constexpr bool kUncheckedRoot = kRecomputes && std::is_same_v<Out, float>;
  bool take_sqrt = false;
  SourceRows<C> rows;  // float only: for the inexact entries
  static CUDIST_HD Acc init() { return Acc(0); }
  template <class T>
  static CUDIST_HD void step(T& acc, T a, T b) {
    T const d = a - b;
    acc += d * d;
  }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return a + b; }
  static CUDIST_HD bool inexact(Acc acc) {
    if constexpr (kRecomputes) return outside_float_range(acc);
    return false;
  }
  /// The sum of squares of entry (i, j) in double, from the source rows.
  CUDIST_HD double exact_squares(std::int64_t i, std::int64_t j) const {
    SumPair<double> const s = scaled_power_sum(rows, i, j, 2.0);
    return s.first * s.first * s.second;
  }
  /// The sum of squares as Out: what neighbour selection ranks on.
  CUDIST_HD Out squares(Acc acc, std::int64_t i, std::int64_t j) const {
    return inexact(acc) ? static_cast<Out>(exact_squares(i, j)) : static_cast<Out>(acc);
  }
  CUDIST_HD Out in_range_finish(Acc acc, std::int64_t, std::int64_t) const {
    Out const v = static_cast<Out>(acc);
    return take_sqrt ? sqrt_of(v) : v;
  }
  /// The same where acc is not inexact(acc), so inside sqrt_in_range's range; any value elsewhere
  /// (the GPU engine writes it for every entry and rewrites the inexact ones after the tile).
  CUDIST_HD Out in_range_finish_unchecked(Acc acc) const {
    Out const v = static_cast<Out>(acc);
    return take_sqrt ? sqrt_in_range(v) : v;
  }
  CUDIST_HD Out exact_finish(std::int64_t i, std::int64_t j) const {
    double const exact = exact_squares(i, j);
    Out const sq = static_cast<Out>(exact);
    if (!take_sqrt) return sq;
    // The root of the rounded square where that is a normal float, as neighbour selection
    // reports it from its key; the root in double where the square is beyond float.
    return sq >= Out(0x1p-126f) && sq <= Out(3.402823466e+38f) ? sqrt_of(sq)
                                                               : static_cast<Out>(std::sqrt(exact));
  }
  CUDIST_HD Out finish(Acc acc, std::int64_t i, std::int64_t j) const {
    return inexact(acc) ? exact_finish(i, j) : in_range_finish(acc, i, j);
  }
};

/// cityblock: sum |a - b|.
template <class C, class Out>
struct AbsDiffSumOp : OpBase<C, Out> {
  static constexpr bool kLaneWise = true;
  using Acc = C;
  static CUDIST_HD Acc init() { return Acc(0); }
  template <class T>
  static CUDIST_HD void step(T& acc, T a, T b) { acc += abs_diff(a, b); }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return a + b; }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const { return static_cast<Out>(acc); }
};

/// chebyshev: max |a - b| (NaN components ignored, as scipy does).
template <class C, class Out>
struct AbsDiffMaxOp : OpBase<C, Out> {
  static constexpr bool kLaneWise = true;
  using Acc = C;
  static CUDIST_HD Acc init() { return Acc(0); }
  template <class T>
  static CUDIST_HD void step(T& acc, T a, T b) { acc = max_ignoring_nan(acc, abs_diff(a, b)); }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return max_ignoring_nan(a, b); }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const { return static_cast<Out>(acc); }
};

/// minkowski: (sum |a - b|^p)^(1/p) for a general p (p = 1, 2, inf dispatch to the ops above).
/// In float, inexact entries are recomputed from the source rows in double (scaled).
template <class C, class Out>
struct PowDiffSumOp : OpBase<C, Out> {
  using Acc = C;
  static constexpr bool kRecomputes = std::is_same_v<C, float>;
  C p = C(3);
  C inv_p = C(1) / C(3);
  SourceRows<C> rows;  // float only
  static CUDIST_HD Acc init() { return Acc(0); }
  CUDIST_HD void step(Acc& acc, C a, C b) const { acc += std::pow(abs_diff(a, b), p); }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return a + b; }
  static CUDIST_HD bool inexact(Acc acc) {
    if constexpr (kRecomputes) return outside_float_range(acc);
    return false;
  }
  CUDIST_HD Out in_range_finish(Acc acc, std::int64_t, std::int64_t) const {
    return static_cast<Out>(std::pow(acc, inv_p));
  }
  CUDIST_HD Out exact_finish(std::int64_t i, std::int64_t j) const {
    SumPair<double> const s = scaled_power_sum(rows, i, j, static_cast<double>(p));
    return static_cast<Out>(s.first * std::pow(s.second, 1.0 / static_cast<double>(p)));
  }
  CUDIST_HD Out finish(Acc acc, std::int64_t i, std::int64_t j) const {
    return inexact(acc) ? exact_finish(i, j) : in_range_finish(acc, i, j);
  }
};

/// inner_product (a similarity), and cosine / correlation from precomputed row norms:
/// 1 - x.y / (|x| |y|), the cosine clamped to [-1, 1] as scipy does; zero rows give NaN.
template <class C, class Out>
struct DotOp : OpBase<C, Out> {
  using Acc = C;
  enum class Finish : std::uint8_t { kInnerProduct, kCosineDistance };
  Finish kind = Finish::kInnerProduct;
  C const* x_norms = nullptr;  // (m) |x_i| after any centering / weighting
  C const* y_norms = nullptr;  // (n)
  static constexpr bool kLaneWise = true;
  static CUDIST_HD Acc init() { return Acc(0); }
  template <class T>
  static CUDIST_HD void step(T& acc, T a, T b) { acc += a * b; }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return a + b; }
  CUDIST_HD Out finish(Acc acc, std::int64_t i, std::int64_t j) const {
    if (kind == Finish::kInnerProduct) return static_cast<Out>(acc);
    C c = acc / (x_norms[i] * y_norms[j]);
    if (std::fabs(c) > C(1)) c = c > C(0) ? C(1) : C(-1);
    return static_cast<Out>(C(1) - c);
  }
};

/// correlation: the cosine distance of centred rows, their dot product accumulated in double.
/// Centred values carry more significant bits than a float product keeps, and correlations near
/// 1 cancel in 1 - c: float accumulation lost up to 2e-4 relative on SIFT descriptors, double
/// leaves the rounding of the inputs and of the result (docs/accuracy.md). Row norms are those of
/// DotOp (prepared in double, rounded to C).
template <class C, class Out>
struct CenteredDotOp : OpBase<C, Out> {
  using Acc = double;
  C const* x_norms = nullptr;  // (m)
  C const* y_norms = nullptr;  // (n)
  static CUDIST_HD Acc init() { return 0; }
  static CUDIST_HD void step(Acc& acc, C a, C b) { acc += static_cast<double>(a) * static_cast<double>(b); }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return a + b; }
  CUDIST_HD Out finish(Acc acc, std::int64_t i, std::int64_t j) const {
    double c = acc / (static_cast<double>(x_norms[i]) * static_cast<double>(y_norms[j]));
    if (std::fabs(c) > 1) c = c > 0 ? 1 : -1;
    return static_cast<Out>(1 - c);
  }
};

/// canberra: sum w |a - b| / (|a| + |b|), a 0/0 term counting 0.
template <class C, class Out, bool Weighted>
struct CanberraOp : OpBase<C, Out> {
  static constexpr bool kTakesWeight = true;
  static constexpr bool kWeighted = Weighted;
  using Acc = C;
  static CUDIST_HD Acc init() { return Acc(0); }
  static CUDIST_HD void step(Acc& acc, C a, C b, C w) {
    C const den = std::fabs(a) + std::fabs(b);
    if (den != C(0)) acc += w * (std::fabs(a - b) / den);
  }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return a + b; }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const { return static_cast<Out>(acc); }
};

/// braycurtis: sum |a - b| / sum |a + b|.
template <class C, class Out>
struct BrayCurtisOp : OpBase<C, Out> {
  using Acc = SumPair<C>;
  static CUDIST_HD Acc init() { return {C(0), C(0)}; }
  static CUDIST_HD void step(Acc& acc, C a, C b) {
    acc.first += std::fabs(a - b);
    acc.second += std::fabs(a + b);
  }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return {a.first + b.first, a.second + b.second}; }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const {
    return static_cast<Out>(acc.first / acc.second);
  }
};

/// scipy.special.rel_entr: x log(x / y), 0 at x = 0 <= y, +inf where undefined.
template <class C>
CUDIST_HD C rel_entr(C x, C y) {
  if (x > C(0) && y > C(0)) return x * std::log(x / y);
  if (x == C(0) && y >= C(0)) return C(0);
  if (x != x || y != y) return x + y;  // NaN in, NaN out
  return C(INFINITY);
}

/// jensenshannon on rows already divided by their sums (preprocess.hpp):
/// sqrt((sum rel_entr(p, m) + rel_entr(q, m)) / 2), m = (p + q) / 2.
template <class C, class Out>
struct JensenShannonOp : OpBase<C, Out> {
  using Acc = C;
  static CUDIST_HD Acc init() { return Acc(0); }
  static CUDIST_HD void step(Acc& acc, C p, C q) {
    C const m = (p + q) * C(0.5);
    acc += rel_entr(p, m) + rel_entr(q, m);
  }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return a + b; }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const {
    C const half = acc * C(0.5);
    if (half != half) return static_cast<Out>(half);
    return static_cast<Out>(std::sqrt(half > C(0) ? half : C(0)));  // rounding can dip below 0
  }
};

/// hamming (share of columns where a != b) and jaccard (as scipy 1.17: columns where exactly one
/// of a, b is nonzero, among those where either is), both optionally weighted.
template <class C, class Out, bool Weighted>
struct MismatchOp : OpBase<C, Out> {
  static constexpr bool kTakesWeight = true;
  static constexpr bool kWeighted = Weighted;
  using Acc = SumPair<C>;  // (weight of the mismatches, weight of a != 0 || b != 0)
  enum class Finish : std::uint8_t { kHamming, kJaccard };
  Finish kind = Finish::kHamming;
  C total_weight = C(0);  // d, or sum of w
  static CUDIST_HD Acc init() { return {C(0), C(0)}; }
  CUDIST_HD void step(Acc& acc, C a, C b, C w) const {
    bool const ta = a != C(0), tb = b != C(0);
    bool const mismatch = kind == Finish::kHamming ? a != b : ta != tb;
    if (mismatch) acc.first += w;
    if (ta || tb) acc.second += w;
  }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return {a.first + b.first, a.second + b.second}; }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const {
    if (kind == Finish::kHamming) return static_cast<Out>(acc.first / total_weight);
    return static_cast<Out>(acc.second == C(0) ? C(0) : acc.first / acc.second);
  }
};

/// dice as scipy computes it for numeric input: ntt = sum a b, ndiff = sum (a + b - 2 a b),
/// dice = ndiff / (2 ntt + ndiff); for 0/1 data these are the boolean counts.
template <class C, class Out, bool Weighted>
struct DiceOp : OpBase<C, Out> {
  static constexpr bool kTakesWeight = true;
  static constexpr bool kWeighted = Weighted;
  using Acc = SumPair<C>;  // (ntt, ndiff)
  static CUDIST_HD Acc init() { return {C(0), C(0)}; }
  static CUDIST_HD void step(Acc& acc, C a, C b, C w) {
    C const ab = a * b;
    acc.first += w * ab;
    acc.second += w * (a + b - C(2) * ab);
  }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return {a.first + b.first, a.second + b.second}; }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const {
    return static_cast<Out>(acc.second / (C(2) * acc.first + acc.second));
  }
};

template <class C>
struct BoolCounts {
  C tt, tf, ft;  // both nonzero; only a; only b
};

/// The boolean dissimilarities of scipy (inputs taken as a != 0): counts ntt, ntf, nft and
/// nff = n - ntt - ntf - nft, n = d or the sum of the weights.
template <class C, class Out, bool Weighted>
struct BooleanOp : OpBase<C, Out> {
  static constexpr bool kTakesWeight = true;
  static constexpr bool kWeighted = Weighted;
  using Acc = BoolCounts<C>;
  enum class Finish : std::uint8_t {
    kKulczynski1,
    kRogersTanimoto,  // also sokalmichener: the same formula
    kRussellRao,
    kSokalSneath,
    kYule,
  };
  Finish kind = Finish::kRogersTanimoto;
  C total_weight = C(0);
  static CUDIST_HD Acc init() { return {C(0), C(0), C(0)}; }
  static CUDIST_HD void step(Acc& acc, C a, C b, C w) {
    bool const ta = a != C(0), tb = b != C(0);
    if (ta && tb) acc.tt += w;
    if (ta && !tb) acc.tf += w;
    if (!ta && tb) acc.ft += w;
  }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return {a.tt + b.tt, a.tf + b.tf, a.ft + b.ft}; }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const {
    C const ndiff = acc.tf + acc.ft;
    C const nff = total_weight - acc.tt - ndiff;
    switch (kind) {
      case Finish::kKulczynski1: return static_cast<Out>(acc.tt / ndiff);
      case Finish::kRogersTanimoto: return static_cast<Out>(C(2) * ndiff / (acc.tt + nff + C(2) * ndiff));
      case Finish::kRussellRao: return static_cast<Out>((total_weight - acc.tt) / total_weight);
      case Finish::kSokalSneath: return static_cast<Out>(C(2) * ndiff / (acc.tt + C(2) * ndiff));
      case Finish::kYule: {
        C const half_r = acc.tf * acc.ft;
        return static_cast<Out>(half_r == C(0) ? C(0) : C(2) * half_r / (acc.tt * nff + half_r));
      }
    }
    return Out(0);
  }
};

/// Number of set bits in each 32-bit lane of a CPU SIMD vector (GCC vector of uint32).
template <class V>
inline V lane_bit_counts(V v) {
#if defined(__AVX512VPOPCNTDQ__) && !defined(__CUDACC__)
  if constexpr (sizeof(V) == 64) return reinterpret_cast<V>(_mm512_popcnt_epi32(reinterpret_cast<__m512i>(v)));
#endif
  // SWAR: bit counts of pairs, nibbles and bytes, then the four bytes summed into the top one.
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  v = (v + (v >> 4)) & 0x0f0f0f0fu;
  return (v * 0x01010101u) >> 24;
}

/// hamming_bits: number of differing bits between rows of packed words (uint32 or uint8).
/// Not kLaneWise (on the GPU it keeps the small tiles of the multi-instruction ops), but on the
/// CPU its uint32 form also steps on SIMD vectors (see cpu::kSimdStep).
template <class Word, class Out>
struct XorPopcountOp : OpBase<Word, Out> {
  using Acc = std::uint32_t;
  static CUDIST_HD Acc init() { return 0; }
  static CUDIST_HD void step(Acc& acc, Word a, Word b) {
#if defined(__CUDA_ARCH__)
    acc += __popc(static_cast<unsigned>(a ^ b));
#else
    acc += static_cast<Acc>(__builtin_popcount(static_cast<unsigned>(a ^ b)));
#endif
  }
  /// The CPU backend's SIMD form: a vector of uint32 words per operand and accumulator.
  template <class V>
  static void step(V& acc, V a, V b) { acc += lane_bit_counts(a ^ b); }
  static CUDIST_HD Acc merge(Acc a, Acc b) { return a + b; }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const { return static_cast<Out>(acc); }
};

}  // namespace cudist::detail::ops
