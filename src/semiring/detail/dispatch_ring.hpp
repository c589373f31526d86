// The one place where (semiring, dtype) becomes a ring type, for both backends:
// dispatch_ring<E>(semiring, f) calls f(ring) with a value of the ring for elements of type E.
// Compute types: float and double compute in themselves; int16 and int32 in int32 (int16 sums
// cannot overflow it; int32 sums saturate through int64), plus-times on integers in int64.
// The CUDA backend replaces integer min-plus / max-plus by the DPX rings where it can.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cudist/semiring/semiring.hpp"
#include "semiring/detail/semiring_ops.hpp"

namespace cudist::detail::semiring {

template <class E, class F>
void dispatch_ring(Semiring semiring, F&& f) {
  using C = std::conditional_t<std::is_floating_point_v<E>, E, std::int32_t>;
  using Wide = std::conditional_t<std::is_floating_point_v<E>, E, std::int64_t>;
  switch (semiring) {
    case Semiring::kMinPlus: return f(MinPlus<C, E>{});
    case Semiring::kMaxPlus: return f(MaxPlus<C, E>{});
    case Semiring::kMinMax: return f(MinMax<C, E>{});
    case Semiring::kMaxMin: return f(MaxMin<C, E>{});
    case Semiring::kOrAnd: return f(OrAnd<C, E>{});
    case Semiring::kPlusTimes: return f(PlusTimes<Wide, E>{});
  }
}

/// Calls f(op) with the product op for `ring`: the witness op when a witness is wanted.
template <class Ring, class F>
void with_product_op(Ring, bool witness, F&& f) {
  using E = typename Ring::Element;
  if constexpr (Ring::Add::kSelective) {
    if (witness) return f(WitnessProductOp<Ring, E>{});
  }
  f(ProductOp<Ring, E>{});
}

}  // namespace cudist::detail::semiring
