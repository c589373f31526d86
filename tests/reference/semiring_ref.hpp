// The independent oracle for semiring products: the definitions written out with plain loops on
// float64 values, nothing shared with the library's ring structs.
//
// Every value is held in "output terms": what the dtype stores. For the integer dtypes the
// semiring's infinity is the dtype's extreme value, a term with an infinite operand is infinite,
// and a finite term beyond the dtype's range is clamped to it. Each term is rounded to the dtype
// before the reduction (float32 sums are correctly rounded, so min/max of them is exact), and the
// witness is the first k whose term strictly improves the running result.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cudist/core/dtype.hpp"
#include "cudist/semiring/semiring.hpp"
#include "reference/pairwise_ref.hpp"

namespace cudist::reference {

struct SemiringResult {
  Matrix c;
  std::vector<std::int32_t> witness;  // row-major, -1 where no term improves on the zero
};

namespace detail {

inline bool is_integer(DType dtype) { return dtype == DType::kInt32 || dtype == DType::kInt16; }

inline double dtype_max(DType dtype) {
  return dtype == DType::kInt32 ? 2147483647.0 : dtype == DType::kInt16 ? 32767.0
                                                                         : std::numeric_limits<double>::infinity();
}

inline double dtype_min(DType dtype) {
  return dtype == DType::kInt32 ? -2147483648.0 : dtype == DType::kInt16 ? -32768.0
                                                                          : -std::numeric_limits<double>::infinity();
}

/// The stored value as the extended reals the semiring works in: an integer dtype's infinity
/// becomes a true infinity (only for the semirings that add, where it must absorb).
inline double extended(double v, Semiring s, DType dtype) {
  if (!is_integer(dtype)) return v;
  if (s == Semiring::kMinPlus && v == dtype_max(dtype)) return std::numeric_limits<double>::infinity();
  if (s == Semiring::kMaxPlus && v == dtype_min(dtype)) return -std::numeric_limits<double>::infinity();
  return v;
}

/// An extended value as the dtype stores it: clamped (integers) or rounded (float32).
inline double stored(double v, DType dtype) {
  if (is_integer(dtype)) return v > dtype_max(dtype) ? dtype_max(dtype) : v < dtype_min(dtype) ? dtype_min(dtype) : v;
  if (dtype == DType::kFloat32) return static_cast<double>(static_cast<float>(v));
  return v;
}

/// a (x) b in the extended reals; NaN (inf + -inf) is a term that never counts.
inline double mul(double a, double b, Semiring s) {
  switch (s) {
    case Semiring::kMinPlus:
    case Semiring::kMaxPlus: return a + b;
    case Semiring::kMinMax: return std::max(a, b);
    case Semiring::kMaxMin: return std::min(a, b);
    case Semiring::kOrAnd: return (a != 0 && b != 0) ? 1.0 : 0.0;
    case Semiring::kPlusTimes: return a * b;
  }
  return 0;
}

/// Whether term v strictly improves the running value acc (selective semirings).
inline bool improves(double v, double acc, Semiring s) {
  switch (s) {
    case Semiring::kMinPlus:
    case Semiring::kMinMax: return v < acc;
    case Semiring::kMaxPlus:
    case Semiring::kMaxMin: return v > acc;
    case Semiring::kOrAnd: return v != 0 && acc == 0;
    case Semiring::kPlusTimes: return false;
  }
  return false;
}

inline double zero(Semiring s, DType dtype) {
  switch (s) {
    case Semiring::kMinPlus:
    case Semiring::kMinMax: return dtype_max(dtype);
    case Semiring::kMaxPlus:
    case Semiring::kMaxMin: return dtype_min(dtype);
    default: return 0;
  }
}

}  // namespace detail

/// c = a (x) b (or c0 (+) a (x) b when c0 is given; the witness then starts from w0).
inline SemiringResult semiring_product(Matrix const& a, Matrix const& b, Semiring s, DType dtype,
                                       Matrix const* c0 = nullptr,
                                       std::vector<std::int32_t> const* w0 = nullptr) {
  SemiringResult r{{a.rows, b.cols, std::vector<double>(static_cast<std::size_t>(a.rows * b.cols))},
                   std::vector<std::int32_t>(static_cast<std::size_t>(a.rows * b.cols), -1)};
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t j = 0; j < b.cols; ++j) {
      std::size_t const e = static_cast<std::size_t>(i * b.cols + j);
      if (s == Semiring::kPlusTimes) {
        double sum = c0 ? (*c0)(i, j) : 0.0;
        for (std::int64_t k = 0; k < a.cols; ++k) sum += a(i, k) * b(k, j);
        r.c.v[e] = detail::stored(sum, dtype);
        continue;
      }
      double acc = detail::zero(s, dtype);
      std::int32_t best = -1;
      for (std::int64_t k = 0; k < a.cols; ++k) {
        double const t = detail::mul(detail::extended(a(i, k), s, dtype),
                                     detail::extended(b(k, j), s, dtype), s);
        if (std::isnan(t)) continue;
        double const term = detail::stored(t, dtype);
        if (detail::improves(term, acc, s)) {
          acc = term;
          best = static_cast<std::int32_t>(k);
        }
      }
      if (c0 != nullptr) {  // C = C (+) product; the witness moves only where C strictly improves
        double const old = (*c0)(i, j);
        bool const improved = detail::improves(acc, old, s);
        if (s == Semiring::kOrAnd) {
          acc = (old != 0 || acc != 0) ? 1.0 : 0.0;
        } else if (!improved) {
          acc = old;
        }
        if (!improved) best = w0 != nullptr ? (*w0)[e] : -1;
      }
      r.c.v[e] = acc;
      r.witness[e] = best;
    }
  }
  return r;
}

/// The single term a[i][k] (x) b[k][j] as the dtype stores it (checks that a witness achieves C).
inline double semiring_term(Matrix const& a, Matrix const& b, std::int64_t i, std::int64_t k,
                            std::int64_t j, Semiring s, DType dtype) {
  return detail::stored(detail::mul(detail::extended(a(i, k), s, dtype),
                                    detail::extended(b(k, j), s, dtype), s),
                        dtype);
}

}  // namespace cudist::reference
