// How one finished entry of a semiring product is written, shared by the CUDA epilogue and the
// CPU backend so that both follow the same rules for the accumulate form and the witness.
#pragma once

#include <cstdint>

#include "semiring/detail/problem.hpp"
#include "semiring/detail/semiring_ops.hpp"

namespace cudist::detail::semiring {

/// Where a product's results go, as plain pointers into the backend's memory.
template <class Out>
struct ProductOutput {
  Out* c = nullptr;
  std::int64_t ldc = 0;
  bool accumulate = false;
  std::int32_t* witness = nullptr;  // null: no witness
  std::int64_t ldw = 0;
  std::int32_t const* witness_map = nullptr;  // null: the witness is k itself
  std::int64_t ldmap = 0;
};

template <class Out>
ProductOutput<Out> product_output(SemiringProblem const& p) {
  ProductOutput<Out> o;
  o.c = static_cast<Out*>(p.c.data);
  o.ldc = p.c.stride;
  o.accumulate = p.accumulate;
  o.witness = static_cast<std::int32_t*>(p.witness.data);
  o.ldw = p.witness.stride;
  o.witness_map = static_cast<std::int32_t const*>(p.witness_map.data);
  o.ldmap = p.witness_map.stride;
  return o;
}

/// Writes entry (i, j) from its accumulator v: C = v, or C = v (+) C. The witness follows: in the
/// accumulate form it changes only where v strictly improves C (a tie keeps the witness already
/// there); the witness stored is k, or witness_map[i][k].
template <class Op>
CUDIST_HD void store_entry(ProductOutput<typename Op::Output> const& out, Op const& op,
                           typename Op::Acc const& acc, std::int64_t i, std::int64_t j) {
  using Out = typename Op::Output;
  using Add = typename Op::Add;
  Out const v = op.finish(acc, i, j);
  Out& c = out.c[i * out.ldc + j];
  if (!out.accumulate) {
    c = v;
  } else {
    Out const old = c;
    c = Add::add(v, old);
    if constexpr (Op::kTakesIndex) {
      if (!Add::improves(v, old)) return;
    }
  }
  if constexpr (Op::kTakesIndex) {
    std::int32_t const k = acc.k;
    bool const mapped = k >= 0 && out.witness_map != nullptr;
    out.witness[i * out.ldw + j] = mapped ? out.witness_map[i * out.ldmap + k] : k;
  }
}

}  // namespace cudist::detail::semiring
