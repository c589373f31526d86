// The one place where a sparse product's runtime description becomes template arguments: the
// value and index dtypes of the matrix, and the semiring with its output op. Both backends
// dispatch through here.
#pragma once

#include <cstdint>

#include "cudist/core/dtype.hpp"
#include "sparse/detail/output_ops.hpp"
#include "sparse/detail/problem.hpp"
#include "sparse/detail/semiring.hpp"

namespace cudist::sparse::detail {

template <class T>
struct TypeTag {
  using type = T;
};

/// f(TypeTag<Value>{}, TypeTag<Index>{}) for value in {float32, float64} and index in
/// {int32, int64} (the API layer rejected anything else).
template <class F>
decltype(auto) with_csr_types(DType value_dtype, DType index_dtype, F&& f) {
  auto with_index = [&](auto value_tag) -> decltype(auto) {
    if (index_dtype == DType::kInt64) return f(value_tag, TypeTag<std::int64_t>{});
    return f(value_tag, TypeTag<std::int32_t>{});
  };
  if (value_dtype == DType::kFloat64) return with_index(TypeTag<double>{});
  return with_index(TypeTag<float>{});
}

/// f(Semiring{}, output op) for the problem's semiring, in value type T.
template <class T, class F>
decltype(auto) with_semiring(SpmvProblem const& p, F&& f) {
  if (p.semiring == SemiringKind::kMinPlus) return f(MinPlus<T>{}, Accumulate<MinPlus<T>>{});
  return f(PlusTimes<T>{}, Axpby<T>{static_cast<T>(p.alpha), static_cast<T>(p.beta)});
}

}  // namespace cudist::sparse::detail
