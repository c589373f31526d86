// The independent oracle for pairwise distances: scipy's definitions written out directly, one
// function per metric, plain loops in float64, nothing shared with the library's op structs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "cudist/distance/pairwise.hpp"

namespace cudist::reference {

/// Row-major float64 matrix.
struct Matrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> v;
  double operator()(std::int64_t i, std::int64_t j) const { return v[i * cols + j]; }
  double const* row(std::int64_t i) const { return v.data() + i * cols; }
};

namespace detail {

inline double weight(MetricParams const& p, std::int64_t k) { return p.w.empty() ? 1.0 : p.w[k]; }

inline double sum_w(MetricParams const& p, std::int64_t d) {
  double s = 0;
  for (std::int64_t k = 0; k < d; ++k) s += weight(p, k);
  return s;
}

inline double rel_entr(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
  if (x > 0 && y > 0) return x * std::log(x / y);
  if (x == 0 && y >= 0) return 0;
  return std::numeric_limits<double>::infinity();
}

inline double cosine_like(double const* u, double const* v, std::int64_t d, MetricParams const& p,
                          bool centered) {
  double mu = 0, mv = 0;
  if (centered) {
    double ws = 0;
    for (std::int64_t k = 0; k < d; ++k) {
      mu += weight(p, k) * u[k];
      mv += weight(p, k) * v[k];
      ws += weight(p, k);
    }
    mu /= ws;
    mv /= ws;
  }
  double uv = 0, uu = 0, vv = 0;
  for (std::int64_t k = 0; k < d; ++k) {
    double const a = u[k] - mu, b = v[k] - mv, w = weight(p, k);
    uv += w * a * b;
    uu += w * a * a;
    vv += w * b * b;
  }
  double c = uv / std::sqrt(uu * vv);
  if (std::fabs(c) > 1) c = c > 0 ? 1 : -1;  // NaN stays NaN
  return 1 - c;
}

struct BoolCounts {
  double tt = 0, tf = 0, ft = 0, ff = 0;
};

inline BoolCounts bool_counts(double const* u, double const* v, std::int64_t d, MetricParams const& p) {
  BoolCounts c;
  for (std::int64_t k = 0; k < d; ++k) {
    bool const a = u[k] != 0, b = v[k] != 0;
    double const w = weight(p, k);
    if (a && b) c.tt += w;
    else if (a) c.tf += w;
    else if (b) c.ft += w;
    else c.ff += w;
  }
  return c;
}

}  // namespace detail

/// metric(u, v) for rows of d values; V and VI must be given explicitly (no estimation here).
inline double distance(Metric metric, double const* u, double const* v, std::int64_t d,
                       MetricParams const& p) {
  using detail::weight;
  double s = 0;
  switch (metric) {
    case Metric::kSqEuclidean:
    case Metric::kEuclidean:
      for (std::int64_t k = 0; k < d; ++k) s += weight(p, k) * (u[k] - v[k]) * (u[k] - v[k]);
      return metric == Metric::kEuclidean ? std::sqrt(s) : s;
    case Metric::kCityblock:
      for (std::int64_t k = 0; k < d; ++k) s += weight(p, k) * std::fabs(u[k] - v[k]);
      return s;
    case Metric::kChebyshev:
      for (std::int64_t k = 0; k < d; ++k) {
        double const a = std::fabs(u[k] - v[k]);
        if (weight(p, k) > 0 && a > s) s = a;  // NaN components are skipped, as in scipy
      }
      return s;
    case Metric::kMinkowski:
      if (std::isinf(p.p)) return distance(Metric::kChebyshev, u, v, d, p);
      for (std::int64_t k = 0; k < d; ++k) s += weight(p, k) * std::pow(std::fabs(u[k] - v[k]), p.p);
      return std::pow(s, 1.0 / p.p);
    case Metric::kCosine: return detail::cosine_like(u, v, d, p, false);
    case Metric::kCorrelation: return detail::cosine_like(u, v, d, p, true);
    case Metric::kCanberra:
      for (std::int64_t k = 0; k < d; ++k) {
        double const den = std::fabs(u[k]) + std::fabs(v[k]);
        if (den != 0) s += weight(p, k) * std::fabs(u[k] - v[k]) / den;
      }
      return s;
    case Metric::kBraycurtis: {
      double num = 0, den = 0;
      for (std::int64_t k = 0; k < d; ++k) {
        num += weight(p, k) * std::fabs(u[k] - v[k]);
        den += weight(p, k) * std::fabs(u[k] + v[k]);
      }
      return num / den;
    }
    case Metric::kJensenShannon: {
      double su = 0, sv = 0;
      for (std::int64_t k = 0; k < d; ++k) {
        su += u[k];
        sv += v[k];
      }
      for (std::int64_t k = 0; k < d; ++k) {
        double const a = u[k] / su, b = v[k] / sv, m = (a + b) / 2;
        s += detail::rel_entr(a, m) + detail::rel_entr(b, m);
      }
      return std::sqrt(std::max(s / 2, 0.0));
    }
    case Metric::kSEuclidean:
      for (std::int64_t k = 0; k < d; ++k) s += (u[k] - v[k]) * (u[k] - v[k]) / p.V[k];
      return std::sqrt(s);
    case Metric::kMahalanobis:
      for (std::int64_t a = 0; a < d; ++a)
        for (std::int64_t b = 0; b < d; ++b) s += (u[a] - v[a]) * p.VI[a * d + b] * (u[b] - v[b]);
      return std::sqrt(s);
    case Metric::kHamming:
      for (std::int64_t k = 0; k < d; ++k) s += u[k] != v[k] ? weight(p, k) : 0.0;
      return s / detail::sum_w(p, d);
    case Metric::kJaccard: {  // scipy 1.17: on the nonzero pattern, as for booleans
      auto const c = detail::bool_counts(u, v, d, p);
      double const either = c.tt + c.tf + c.ft;
      return either == 0 ? 0.0 : (c.tf + c.ft) / either;
    }
    case Metric::kDice: {  // scipy 1.17 for numeric input: ntt = sum uv, ndiff = sum (u + v - 2uv)
      double ntt = 0, ndiff = 0;
      for (std::int64_t k = 0; k < d; ++k) {
        ntt += weight(p, k) * u[k] * v[k];
        ndiff += weight(p, k) * (u[k] + v[k] - 2 * u[k] * v[k]);
      }
      return ndiff / (2 * ntt + ndiff);
    }
    case Metric::kKulczynski1: {
      auto const c = detail::bool_counts(u, v, d, p);
      return c.tt / (c.tf + c.ft);
    }
    case Metric::kRogersTanimoto:
    case Metric::kSokalMichener: {
      auto const c = detail::bool_counts(u, v, d, p);
      double const r = 2 * (c.tf + c.ft);
      return r / (c.tt + c.ff + r);
    }
    case Metric::kRussellRao: {
      auto const c = detail::bool_counts(u, v, d, p);
      double const n = c.tt + c.tf + c.ft + c.ff;
      return (n - c.tt) / n;
    }
    case Metric::kSokalSneath: {
      auto const c = detail::bool_counts(u, v, d, p);
      double const r = 2 * (c.tf + c.ft);
      return r / (c.tt + r);
    }
    case Metric::kYule: {
      auto const c = detail::bool_counts(u, v, d, p);
      double const half_r = c.tf * c.ft;
      return half_r == 0 ? 0.0 : 2 * half_r / (c.tt * c.ff + half_r);
    }
    case Metric::kInnerProduct:
      for (std::int64_t k = 0; k < d; ++k) s += u[k] * v[k];
      return s;
    case Metric::kHammingBits:  // u, v hold byte values 0..255
      for (std::int64_t k = 0; k < d; ++k) {
        auto const x = static_cast<unsigned>(u[k]) ^ static_cast<unsigned>(v[k]);
        for (unsigned b = x; b != 0; b >>= 1) s += b & 1u;
      }
      return s;
  }
  throw std::logic_error("reference: unknown metric");
}

inline Matrix cdist(Matrix const& x, Matrix const& y, Metric metric, MetricParams const& p = {}) {
  Matrix out{x.rows, y.rows, std::vector<double>(static_cast<std::size_t>(x.rows * y.rows))};
  for (std::int64_t i = 0; i < x.rows; ++i)
    for (std::int64_t j = 0; j < y.rows; ++j)
      out.v[i * y.rows + j] = distance(metric, x.row(i), y.row(j), x.cols, p);
  return out;
}

/// scipy's condensed order: (0,1), (0,2), ..., (0,n-1), (1,2), ...
inline Matrix pdist(Matrix const& x, Metric metric, MetricParams const& p = {}) {
  std::int64_t const n = x.rows;
  Matrix out{1, n * (n - 1) / 2, {}};
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + 1; j < n; ++j) out.v.push_back(distance(metric, x.row(i), x.row(j), x.cols, p));
  return out;
}

}  // namespace cudist::reference
