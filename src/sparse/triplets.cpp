// Triplets -> CSR and Triplets -> dense. CSR: bucket the entries by row, then sort each row by
// column and combine repeated columns, rows in parallel.
#include "cudist/sparse/triplets.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "core/detail/expects.hpp"
#include "sparse/detail/csr_checks.hpp"
#include "sparse/detail/dispatch.hpp"

namespace cudist::sparse {
namespace {

void check_triplets(char const* who, Triplets const& t) {
  CUDIST_EXPECTS(t.rows >= 0 && t.cols >= 0,
                 who << ": negative shape (" << t.rows << ", " << t.cols << ")");
  CUDIST_EXPECTS(t.row.size() == t.value.size() && t.col.size() == t.value.size(),
                 who << ": row, col and value hold " << t.row.size() << ", " << t.col.size()
                     << " and " << t.value.size() << " entries");
  for (std::int64_t e = 0; e < t.size(); ++e) {
    CUDIST_EXPECTS(t.row[e] >= 0 && t.row[e] < t.rows && t.col[e] >= 0 && t.col[e] < t.cols,
                   who << ": entry " << e << " at (" << t.row[e] << ", " << t.col[e]
                       << ") is outside the " << t.rows << " x " << t.cols << " matrix");
  }
}

double combine(double a, double b, Duplicates how) {
  return how == Duplicates::kSum ? a + b : std::min(a, b);
}

template <class T, class I>
CsrMatrix to_csr_typed(Triplets const& t, DType value_dtype, DType index_dtype, Duplicates how) {
  // Bucket entry indices by row (stable), then sort each row's bucket by column.
  std::vector<std::int64_t> starts(t.rows + 1, 0);
  for (std::int64_t r : t.row) ++starts[r + 1];
  std::partial_sum(starts.begin(), starts.end(), starts.begin());
  std::vector<std::int64_t> order(t.value.size());
  std::vector<std::int64_t> next(starts.begin(), starts.end() - 1);
  for (std::int64_t e = 0; e < t.size(); ++e) order[next[t.row[e]]++] = e;

  std::vector<std::int64_t> unique(t.rows + 1, 0);  // distinct columns per row, then offsets
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t r = 0; r < t.rows; ++r) {
    auto const first = order.begin() + starts[r], last = order.begin() + starts[r + 1];
    std::stable_sort(first, last,
                     [&](std::int64_t a, std::int64_t b) { return t.col[a] < t.col[b]; });
    std::int64_t distinct = 0;
    for (auto it = first; it != last; ++it) {
      if (it == first || t.col[*it] != t.col[*(it - 1)]) ++distinct;
    }
    unique[r + 1] = distinct;
  }
  std::partial_sum(unique.begin(), unique.end(), unique.begin());

  CsrMatrix m =
      CsrMatrix::allocate(t.rows, t.cols, unique[t.rows], value_dtype, index_dtype, Device::cpu());
  I* offsets = m.row_offsets().data_as<I>();
  I* cols = m.col_indices().data_as<I>();
  T* values = m.values().data_as<T>();
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t r = 0; r < t.rows; ++r) {
    offsets[r] = static_cast<I>(unique[r]);
    std::int64_t k = unique[r] - 1;
    for (std::int64_t i = starts[r]; i < starts[r + 1]; ++i) {
      std::int64_t const e = order[i];
      if (i == starts[r] || t.col[e] != t.col[order[i - 1]]) {
        cols[++k] = static_cast<I>(t.col[e]);
        values[k] = static_cast<T>(t.value[e]);
      } else {
        values[k] = static_cast<T>(combine(values[k], t.value[e], how));
      }
    }
  }
  offsets[t.rows] = static_cast<I>(unique[t.rows]);
  return m;
}

template <class T>
Array to_dense_typed(Triplets const& t, DType dtype, double missing, Duplicates how) {
  Array a = Array::allocate(t.rows, t.cols, dtype, Device::cpu());
  T* out = a.data_as<T>();
  std::fill(out, out + a.size(), static_cast<T>(missing));
  std::vector<bool> seen(static_cast<std::size_t>(a.size()), false);
  for (std::int64_t e = 0; e < t.size(); ++e) {
    std::int64_t const at = t.row[e] * t.cols + t.col[e];
    out[at] = static_cast<T>(seen[at] ? combine(out[at], t.value[e], how) : t.value[e]);
    seen[at] = true;
  }
  return a;
}

}  // namespace

CsrMatrix to_csr(Triplets const& t, DType value_dtype, DType index_dtype, Duplicates duplicates) {
  check_triplets("to_csr", t);
  // The entry count only bounds nnz (duplicates merge); it is what must fit the index type.
  detail::check_csr_dims("to_csr", t.rows, t.cols, t.size(), value_dtype, index_dtype);
  return detail::with_csr_types(value_dtype, index_dtype, [&](auto value_tag, auto index_tag) {
    return to_csr_typed<typename decltype(value_tag)::type, typename decltype(index_tag)::type>(
        t, value_dtype, index_dtype, duplicates);
  });
}

Array to_dense(Triplets const& t, DType dtype, double missing, Duplicates duplicates) {
  check_triplets("to_dense", t);
  CUDIST_EXPECTS(
      dtype == DType::kFloat32 || dtype == DType::kFloat64,
      "to_dense: dtype " << dtype_name(dtype) << " is not supported; use float32 or float64");
  if (dtype == DType::kFloat32) return to_dense_typed<float>(t, dtype, missing, duplicates);
  return to_dense_typed<double>(t, dtype, missing, duplicates);
}

}  // namespace cudist::sparse
