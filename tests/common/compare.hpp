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

/// Element idx of a host array of a floating or integer dtype, as double.
inline double value_at(Array const& a, std::int64_t idx) {
  switch (a.dtype()) {
    case DType::kFloat32: return a.data_as<float>()[idx];
    case DType::kFloat64: return a.data_as<double>()[idx];
    case DType::kInt32: return a.data_as<std::int32_t>()[idx];
    case DType::kInt16: return a.data_as<std::int16_t>()[idx];
    default: ADD_FAILURE() << "value_at: unexpected dtype " << dtype_name(a.dtype()); return 0;
  }
}

/// `got` (host, dense) against `want`; exact when tol is zero.
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
      double const g = value_at(got, i * want.cols + j), w = want(i, j);
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
