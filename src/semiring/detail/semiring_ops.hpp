// The semirings as the contraction engine sees them. A ring says what add and mul are on a
// compute type C holding elements of type E, and what the add's identity ("zero") is; ProductOp
// and WitnessProductOp turn a ring into an op struct of distance/detail/ops.hpp, so the GPU
// engine (PairwiseTileKernel) and the CPU micro-kernel run the products with the same main loop
// as the distances:
//
//   C[i][j] = decode(add over k of mul(A[i][k], B[k][j])), starting from zero().
//
// Shared by both backends. The Hopper DPX rings (packed int16, wrapping adds) are CUDA-only and
// live in cuda/dpx_rings.cuh.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "distance/detail/ops.hpp"

namespace cudist::detail::semiring {

/// "No edge" for elements of type E: the IEEE infinities, or E's extreme values for integers.
template <class E>
CUDIST_HD constexpr E positive_infinity() {
  if constexpr (std::is_floating_point_v<E>) {
    return std::numeric_limits<E>::infinity();
  } else {
    return std::numeric_limits<E>::max();
  }
}
template <class E>
CUDIST_HD constexpr E negative_infinity() {
  if constexpr (std::is_floating_point_v<E>) {
    return -std::numeric_limits<E>::infinity();
  } else {
    return std::numeric_limits<E>::lowest();
  }
}

/// v clamped to E's range (v is a wider integer).
template <class E, class W>
CUDIST_HD W saturate(W v) {
  W const hi = std::numeric_limits<E>::max(), lo = std::numeric_limits<E>::lowest();
  return v > hi ? hi : (v < lo ? lo : v);
}

/// a + b for integers of type E (held in C): an operand equal to `infinity` absorbs, and a finite
/// sum beyond E's range saturates to E's largest or smallest value instead of wrapping around.
template <class E, class C>
CUDIST_HD C saturating_plus(C a, C b, C infinity) {
  using Wide = std::conditional_t<(sizeof(E) < sizeof(std::int32_t)), std::int32_t, std::int64_t>;
  if (a == infinity || b == infinity) return infinity;
  return static_cast<C>(saturate<E>(static_cast<Wide>(a) + static_cast<Wide>(b)));
}

// The add of each semiring, usable in the compute domain (accumulators) and in the output domain
// (the accumulate form C = C (+) product). add(acc, v) takes the running value first: it is never
// NaN, so "v < acc ? v : acc" ignores a NaN term exactly as fmin does; the GPU uses fmin / fmax
// (one FMNMX), the CPU the select, which vectorises (vminps). Selective adds (the result is one
// of the operands) also say when a term strictly improves the running value: that is what
// witnesses record, so the witness is the smallest k achieving the result.

struct MinAdd {
  static constexpr bool kSelective = true;
  template <class T>
  static CUDIST_HD T add(T acc, T v) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_floating_point_v<T>) return fmin(acc, v);
#endif
    return v < acc ? v : acc;
  }
  template <class T>
  static CUDIST_HD auto improves(T v, T acc) { return v < acc; }
};

struct MaxAdd {
  static constexpr bool kSelective = true;
  template <class T>
  static CUDIST_HD T add(T acc, T v) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_floating_point_v<T>) return fmax(acc, v);
#endif
    return v > acc ? v : acc;
  }
  template <class T>
  static CUDIST_HD auto improves(T v, T acc) { return v > acc; }
};

/// Logical or on "nonzero", giving 0 or 1.
struct OrAdd {
  static constexpr bool kSelective = true;
  template <class T>
  static CUDIST_HD T add(T acc, T v) { return T(acc != T(0) || v != T(0)); }
  template <class T>
  static CUDIST_HD bool improves(T v, T acc) { return v != T(0) && acc == T(0); }
};

/// +, saturating for integers narrower than 64 bits (the output domain), wrapping for the 64-bit
/// accumulators of integer plus-times (exact until the sum itself leaves int64).
struct SumAdd {
  static constexpr bool kSelective = false;
  template <class T>
  static CUDIST_HD T add(T acc, T v) {
    if constexpr (std::is_integral_v<T> && sizeof(T) < sizeof(std::int64_t)) {
      return static_cast<T>(saturate<T>(std::int64_t(acc) + std::int64_t(v)));
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<std::uint64_t>(acc) + static_cast<std::uint64_t>(v));
    } else {
      return acc + v;
    }
  }
};

/// What every ring shares: the types, mul_add = add(acc, mul(a, b)), padding with the zero (a
/// padded term mul(zero, zero) is the zero again, so it changes nothing), and a decode that is a
/// plain conversion. Rings whose compute type is floating point also run on the CPU backend's
/// SIMD vectors, so their mul and add are templates.
template <class Ring, class C, class E, class AddT>
struct RingBase {
  using Compute = C;
  using Element = E;
  using Add = AddT;
  static constexpr bool kLaneWise = std::is_floating_point_v<C>;
  static CUDIST_HD C pad() { return Ring::zero(); }
  template <class T>
  static CUDIST_HD T mul_add(T acc, T a, T b) { return AddT::add(acc, Ring::mul(a, b)); }
  template <class Out>
  static CUDIST_HD Out decode(C v) { return static_cast<Out>(v); }
};

/// (min, +). Floating point: IEEE sums (an infinite operand absorbs; inf + -inf is NaN, which min
/// ignores). Integers: saturating sums with E's maximum as +infinity.
template <class C, class E = C>
struct MinPlus : RingBase<MinPlus<C, E>, C, E, MinAdd> {
  static CUDIST_HD C zero() { return positive_infinity<E>(); }
  template <class T>
  static CUDIST_HD T mul(T a, T b) {
    if constexpr (std::is_floating_point_v<C>) {
      return a + b;
    } else {
      return saturating_plus<E>(a, b, C(positive_infinity<E>()));
    }
  }
};

/// (max, +), with -infinity (E's minimum for integers) as the zero.
template <class C, class E = C>
struct MaxPlus : RingBase<MaxPlus<C, E>, C, E, MaxAdd> {
  static CUDIST_HD C zero() { return negative_infinity<E>(); }
  template <class T>
  static CUDIST_HD T mul(T a, T b) {
    if constexpr (std::is_floating_point_v<C>) {
      return a + b;
    } else {
      return saturating_plus<E>(a, b, C(negative_infinity<E>()));
    }
  }
};

/// (min, max): the bottleneck of a two-edge path is its larger weight.
template <class C, class E = C>
struct MinMax : RingBase<MinMax<C, E>, C, E, MinAdd> {
  static CUDIST_HD C zero() { return positive_infinity<E>(); }
  template <class T>
  static CUDIST_HD T mul(T a, T b) { return MaxAdd::add(a, b); }
};

/// (max, min): the width of a two-edge path is its smaller capacity.
template <class C, class E = C>
struct MaxMin : RingBase<MaxMin<C, E>, C, E, MaxAdd> {
  static CUDIST_HD C zero() { return negative_infinity<E>(); }
  template <class T>
  static CUDIST_HD T mul(T a, T b) { return MinAdd::add(a, b); }
};

/// (or, and) on "nonzero": results are 0 or 1.
template <class C, class E = C>
struct OrAnd : RingBase<OrAnd<C, E>, C, E, OrAdd> {
  static constexpr bool kLaneWise = false;
  static CUDIST_HD C zero() { return C(0); }
  static CUDIST_HD C mul(C a, C b) { return C(a != C(0) && b != C(0)); }
};

/// (+, *). Integers accumulate in C = int64 and saturate to E at the end.
template <class C, class E = C>
struct PlusTimes : RingBase<PlusTimes<C, E>, C, E, SumAdd> {
  static CUDIST_HD C zero() { return C(0); }
  template <class T>
  static CUDIST_HD T mul(T a, T b) { return a * b; }
  template <class Out>
  static CUDIST_HD Out decode(C v) {
    if constexpr (std::is_integral_v<C>) {
      return static_cast<Out>(saturate<Out>(v));
    } else {
      return static_cast<Out>(v);
    }
  }
};

/// C = A (x) B over Ring, as an op struct for the engine: acc = acc (+) a (x) b.
template <class Ring, class Out>
struct ProductOp : ops::OpBase<typename Ring::Compute, Out> {
  using C = typename Ring::Compute;
  using Acc = C;
  using Add = typename Ring::Add;
  static constexpr bool kLaneWise = Ring::kLaneWise;
  static CUDIST_HD Acc init() { return Ring::zero(); }
  static CUDIST_HD C pad() { return Ring::pad(); }
  template <class T>
  static CUDIST_HD void step(T& acc, T a, T b) { acc = Ring::mul_add(acc, a, b); }
  static CUDIST_HD Acc merge(Acc x, Acc y) { return Add::add(x, y); }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const {
    return Ring::template decode<Out>(acc);
  }
};

/// An accumulator that remembers which k produced its value.
template <class C>
struct Witnessed {
  C value;
  std::int32_t k;  // -1 until a term improves on the zero
};

/// The same product also keeping the smallest k that achieves each entry (selective adds only).
/// step receives the global column k from the engine (kTakesIndex).
template <class Ring, class Out>
struct WitnessProductOp : ops::OpBase<typename Ring::Compute, Out> {
  using C = typename Ring::Compute;
  using Acc = Witnessed<C>;
  using Add = typename Ring::Add;
  static_assert(Add::kSelective, "a witness needs an add that selects one of its operands");
  static constexpr bool kTakesIndex = true;
  static constexpr bool kLaneWise = Ring::kLaneWise;
  static CUDIST_HD Acc init() { return {Ring::zero(), -1}; }
  static CUDIST_HD C pad() { return Ring::pad(); }
  static CUDIST_HD void step(Acc& acc, C a, C b, std::int64_t k) {
    C const v = Ring::mul(a, b);
    if (Add::improves(v, acc.value)) {
      acc.value = v;
      acc.k = static_cast<std::int32_t>(k);
    }
  }
#if !defined(__CUDACC__)
  /// The same step on the CPU backend's SIMD lanes (micro_kernel.hpp): T holds values, I the ks.
  template <class T, class I>
  static void step(T& value, I& ks, T a, T b, I k) {
    T const v = Ring::mul(a, b);
    auto const better = Add::improves(v, value);
    value = better ? v : value;
    ks = __builtin_convertvector(better, I) ? k : ks;
  }
#endif
  /// x covers the smaller ks, so it wins ties.
  static CUDIST_HD Acc merge(Acc x, Acc y) { return Add::improves(y.value, x.value) ? y : x; }
  CUDIST_HD Out finish(Acc acc, std::int64_t, std::int64_t) const {
    return Ring::template decode<Out>(acc.value);
  }
};

}  // namespace cudist::detail::semiring
