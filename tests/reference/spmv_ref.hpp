// The oracle for sparse products: plain loops over a CSR matrix held in std::vectors, double
// accumulation, definitions written out as the documentation states them. Deliberately shares
// nothing with the library (no op structs, no partitioning), so a bug there cannot hide here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace cudist::reference {

/// A CSR matrix: row r holds entries k in [offsets[r], offsets[r + 1]).
struct Csr {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int64_t> col_indices;
  std::vector<double> values;
};

/// Calls f(row, col, value) for every stored entry of op(A).
template <class F>
void for_each_entry(Csr const& a, bool transpose, F const& f) {
  for (std::int64_t r = 0; r < a.rows; ++r) {
    for (std::int64_t k = a.offsets[r]; k < a.offsets[r + 1]; ++k) {
      if (transpose) {
        f(a.col_indices[k], r, a.values[k]);
      } else {
        f(r, a.col_indices[k], a.values[k]);
      }
    }
  }
}

/// Y = alpha * op(A) X + beta * Y, X and Y row-major with n columns. beta == 0 ignores Y's old
/// values and alpha == 0 ignores op(A) X, as in BLAS.
inline std::vector<double> spmm(Csr const& a, bool transpose, std::vector<double> const& x,
                                std::vector<double> y, std::int64_t n, double alpha, double beta) {
  std::int64_t const out_rows = transpose ? a.cols : a.rows;
  std::vector<double> product(out_rows * n, 0.0);
  for_each_entry(a, transpose, [&](std::int64_t i, std::int64_t j, double v) {
    for (std::int64_t c = 0; c < n; ++c) product[i * n + c] += v * x[j * n + c];
  });
  for (std::int64_t e = 0; e < out_rows * n; ++e) {
    double const scaled = alpha == 0.0 ? 0.0 : alpha * product[e];
    y[e] = beta == 0.0 ? scaled : scaled + beta * y[e];
  }
  return y;
}

/// y = alpha * op(A) x + beta * y.
inline std::vector<double> spmv(Csr const& a, bool transpose, std::vector<double> const& x,
                                std::vector<double> y, double alpha, double beta) {
  return spmm(a, transpose, x, std::move(y), 1, alpha, beta);
}

/// y_i = min(y_i, min_j op(A)_ij + x_j): the minimum over no entries is +inf, and the minimum
/// ignores NaN operands (as C's fmin).
inline std::vector<double> spmv_min_plus(Csr const& a, bool transpose, std::vector<double> const& x,
                                         std::vector<double> y) {
  std::vector<double> best(y.size(), INFINITY);
  for_each_entry(a, transpose, [&](std::int64_t i, std::int64_t j, double v) {
    double const candidate = v + x[j];
    if (candidate < best[i]) best[i] = candidate;  // false for NaN
  });
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (std::isnan(y[i]) || best[i] < y[i]) y[i] = best[i];
  }
  return y;
}

}  // namespace cudist::reference
