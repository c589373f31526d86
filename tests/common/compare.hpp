// Comparing a backend's output with the float64 reference: exact (==) or within a tolerance
// |got - want| <= atol + rtol |want|, NaN matching NaN and infinities matching exactly. Failures
// print the first mismatches with their coordinates.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>

#include "cudist/core/array.hpp"
#include "reference/pairwise_ref.hpp"

namespace cudist::test {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

inline double element(Array const& a, std::int64_t idx) {
  return a.dtype() == DType::kFloat64 ? a.data_as<double>()[idx] : a.data_as<float>()[idx];
}

/// `got` (host, float32/float64, dense) against `want`; exact when tol is zero.
inline ::testing::AssertionResult matches(Array const& got, reference::Matrix const& want,
                                          Tolerance tol = {}) {
  if (got.rows() != want.rows || got.cols() != want.cols) {
    return ::testing::AssertionFailure() << "shape (" << got.rows() << ", " << got.cols()
                                         << ") but expected (" << want.rows << ", " << want.cols << ")";
  }
  std::ostringstream first;
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < want.rows; ++i) {
    for (std::int64_t j = 0; j < want.cols; ++j) {
      double const g = element(got, i * want.cols + j), w = want(i, j);
      bool ok;
      if (std::isnan(w) || std::isnan(g)) {
        ok = std::isnan(w) && std::isnan(g);
      } else if (std::isinf(w) || std::isinf(g)) {
        ok = g == w;
      } else {
        ok = std::fabs(g - w) <= tol.atol + tol.rtol * std::fabs(w);
      }
      if (!ok && bad++ < 8) first << "\n  (" << i << ", " << j << "): got " << g << ", want " << w;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << want.rows * want.cols
                                       << " entries differ (rtol " << tol.rtol << ", atol " << tol.atol
                                       << "):" << first.str();
}

}  // namespace cudist::test
