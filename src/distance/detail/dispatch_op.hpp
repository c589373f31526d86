// The one place where an OpSpec (runtime data) becomes an op struct (a compile-time type), for
// both backends: dispatch_op<C, Out>(spec, f) calls f(op) with the configured op.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "distance/detail/ops.hpp"
#include "distance/detail/problem.hpp"

namespace cudist::detail {

/// The problem's rows as an op reads them when it recomputes an entry (ops.hpp SourceRows).
template <class C>
ops::SourceRows<C> source_rows(PairwiseProblem const& p) {
  return {static_cast<C const*>(p.x.data), static_cast<C const*>(p.y.data), p.x.stride, p.y.stride,
          p.x.cols};
}

/// The kDot op (inner product, cosine) of an OpSpec.
template <class C, class Out>
ops::DotOp<C, Out> dot_op(OpSpec const& spec) {
  ops::DotOp<C, Out> op;
  op.kind = static_cast<typename ops::DotOp<C, Out>::Finish>(spec.finish);
  op.x_norms = static_cast<C const*>(spec.x_norms);
  op.y_norms = static_cast<C const*>(spec.y_norms);
  return op;
}

/// The kSqDiffSum op (sqeuclidean, euclidean) of problem p, with its rows for the entries it
/// recomputes.
template <class C, class Out>
ops::SqDiffSumOp<C, Out> sq_diff_sum_op(PairwiseProblem const& p) {
  ops::SqDiffSumOp<C, Out> op;
  op.take_sqrt = p.op.take_sqrt;
  op.rows = source_rows<C>(p);
  return op;
}

/// Calls f(op) for the ops that work on floating-point compute types, configured for problem p
/// (its OpSpec, and its rows for the ops that recompute entries from them).
template <class C, class Out, class F>
void dispatch_floating_op(PairwiseProblem const& p, F&& f) {
  OpSpec const& spec = p.op;
  auto const* weights = static_cast<C const*>(spec.weights);
  auto with_weights = [&](auto unweighted, auto weighted) {
    if (weights != nullptr) {
      f(weighted);
    } else {
      f(unweighted);
    }
  };
  switch (spec.kind) {
    case OpKind::kSqDiffSum: return f(sq_diff_sum_op<C, Out>(p));
    case OpKind::kAbsDiffSum: return f(ops::AbsDiffSumOp<C, Out>{});
    case OpKind::kAbsDiffMax: return f(ops::AbsDiffMaxOp<C, Out>{});
    case OpKind::kPowDiffSum: {
      ops::PowDiffSumOp<C, Out> op;
      op.p = static_cast<C>(spec.p);
      op.inv_p = static_cast<C>(1.0 / spec.p);
      op.rows = source_rows<C>(p);
      return f(op);
    }
    case OpKind::kDot: return f(dot_op<C, Out>(spec));
    case OpKind::kCenteredDot: {
      if constexpr (std::is_same_v<C, double>) {
        return f(dot_op<C, Out>(spec));  // already accumulates in double
      } else {
        ops::CenteredDotOp<C, Out> op;
        op.x_norms = static_cast<C const*>(spec.x_norms);
        op.y_norms = static_cast<C const*>(spec.y_norms);
        return f(op);
      }
    }
    case OpKind::kCanberra:
      return with_weights(ops::CanberraOp<C, Out, false>{}, ops::CanberraOp<C, Out, true>{});
    case OpKind::kBrayCurtis: return f(ops::BrayCurtisOp<C, Out>{});
    case OpKind::kJensenShannon: return f(ops::JensenShannonOp<C, Out>{});
    case OpKind::kMismatch: {
      auto configure = [&](auto op) {
        op.kind = static_cast<typename decltype(op)::Finish>(spec.finish);
        op.total_weight = static_cast<C>(spec.total_weight);
        return op;
      };
      return with_weights(configure(ops::MismatchOp<C, Out, false>{}),
                          configure(ops::MismatchOp<C, Out, true>{}));
    }
    case OpKind::kDice: return with_weights(ops::DiceOp<C, Out, false>{}, ops::DiceOp<C, Out, true>{});
    case OpKind::kBoolean: {
      auto configure = [&](auto op) {
        op.kind = static_cast<typename decltype(op)::Finish>(spec.finish);
        op.total_weight = static_cast<C>(spec.total_weight);
        return op;
      };
      return with_weights(configure(ops::BooleanOp<C, Out, false>{}),
                          configure(ops::BooleanOp<C, Out, true>{}));
    }
    case OpKind::kXorPopcount: break;  // integer-only: dispatch_integer_op
  }
}

/// Calls f(op) for the ops that run exactly on uint8 and int8 inputs (int32 arithmetic).
template <class F>
void dispatch_integer_op(OpSpec const& spec, F&& f) {
  using C = std::int32_t;
  switch (spec.kind) {
    case OpKind::kSqDiffSum: {
      ops::SqDiffSumOp<C, float> op;
      op.take_sqrt = spec.take_sqrt;
      return f(op);
    }
    case OpKind::kAbsDiffSum: return f(ops::AbsDiffSumOp<C, float>{});
    case OpKind::kAbsDiffMax: return f(ops::AbsDiffMaxOp<C, float>{});
    case OpKind::kDot: return f(ops::DotOp<C, float>{});  // inner product only
    default: break;
  }
}

/// Calls f(Elem{}) with the element type of byte rows of `dtype`: std::int8_t for int8, else
/// std::uint8_t.
template <class F>
void with_byte_type(DType dtype, F&& f) {
  if (dtype == DType::kInt8) return f(std::int8_t{});
  f(std::uint8_t{});
}

/// True when `kind` has an exact path for byte rows, uint8 or int8 (the rest are computed from
/// float32 copies).
inline bool has_integer_path(OpKind kind, std::uint8_t finish) {
  return kind == OpKind::kSqDiffSum || kind == OpKind::kAbsDiffSum ||
         kind == OpKind::kAbsDiffMax || (kind == OpKind::kDot && finish == 0);
}

}  // namespace cudist::detail
