// CPU backend: the structure scan behind validate_csr, and the explicit transpose that plans for
// A^T products build (a stable counting sort by column, so each column of A^T lists its entries
// in row order, and repeated entries stay adjacent).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "sparse/detail/backend.hpp"
#include "sparse/detail/dispatch.hpp"

namespace cudist::sparse::detail::cpu {
namespace {

template <class I>
CsrViolation find_violation(CsrView const& a) {
  using Kind = CsrViolation::Kind;
  auto const* offsets = static_cast<I const*>(a.row_offsets);
  auto const* cols = static_cast<I const*>(a.col_indices);
  if (offsets[0] != 0) return {Kind::kFirstOffset, 0, offsets[0], 0};
  if (offsets[a.rows] != a.nnz) return {Kind::kLastOffset, a.rows, offsets[a.rows], 0};

  std::int64_t first_bad = a.rows + 1;
#pragma omp parallel for reduction(min : first_bad)
  for (std::int64_t i = 1; i <= a.rows; ++i) {
    if (offsets[i] < offsets[i - 1] && i < first_bad) first_bad = i;
  }
  if (first_bad <= a.rows) {
    return {Kind::kDecreasingOffset, first_bad, offsets[first_bad], offsets[first_bad - 1]};
  }

  first_bad = a.nnz;
#pragma omp parallel for reduction(min : first_bad)
  for (std::int64_t k = 0; k < a.nnz; ++k) {
    if ((cols[k] < 0 || cols[k] >= a.cols) && k < first_bad) first_bad = k;
  }
  if (first_bad < a.nnz) return {Kind::kColumnOutOfRange, first_bad, cols[first_bad], 0};
  return {};
}

template <class T, class I>
CsrMatrix transpose_typed(CsrView const& a) {
  CsrMatrix t =
      CsrMatrix::allocate(a.cols, a.rows, a.nnz, a.value_dtype, a.index_dtype, Device::cpu());
  auto const* offsets = static_cast<I const*>(a.row_offsets);
  auto const* cols = static_cast<I const*>(a.col_indices);
  auto const* values = static_cast<T const*>(a.values);
  I* t_offsets = t.row_offsets().data_as<I>();
  I* t_cols = t.col_indices().data_as<I>();
  T* t_values = t.values().data_as<T>();

  std::fill(t_offsets, t_offsets + a.cols + 1, I(0));
  for (std::int64_t k = 0; k < a.nnz; ++k) ++t_offsets[cols[k] + 1];
  std::partial_sum(t_offsets, t_offsets + a.cols + 1, t_offsets);
  std::vector<I> next(t_offsets, t_offsets + a.cols);  // next free slot of each column
  for (std::int64_t r = 0; r < a.rows; ++r) {
    for (I k = offsets[r]; k < offsets[r + 1]; ++k) {
      I const slot = next[cols[k]]++;
      t_cols[slot] = static_cast<I>(r);
      t_values[slot] = values[k];
    }
  }
  return t;
}

}  // namespace

CsrViolation find_csr_violation(CsrView const& a) {
  return with_csr_types(a.value_dtype, a.index_dtype, [&](auto, auto index_tag) {
    return find_violation<typename decltype(index_tag)::type>(a);
  });
}

CsrMatrix transpose(CsrView const& a) {
  return with_csr_types(a.value_dtype, a.index_dtype, [&](auto value_tag, auto index_tag) {
    return transpose_typed<typename decltype(value_tag)::type, typename decltype(index_tag)::type>(
        a);
  });
}

}  // namespace cudist::sparse::detail::cpu
