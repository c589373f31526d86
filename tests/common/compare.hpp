// Comparing a backend's output with the float64 reference: exact (==) or within a tolerance
// |got - want| <= atol + rtol |want|, NaN matching NaN and infinities matching exactly. Failures
// print the first mismatches with their coordinates.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
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

/// `got` bit for bit equal to `want` (of one shape and dtype, each in host or device memory),
/// except that a NaN matches a NaN of any payload: the GPU's NaN (sqrtf of one) is not the host's.
/// For answers that must not depend on how the work was divided (shards, windows, chunks).
inline ::testing::AssertionResult identical(ConstMatrixView got_view, ConstMatrixView want_view) {
  Array const got = Array::copy_of(got_view, Device::cpu());
  Array const want = Array::copy_of(want_view, Device::cpu());
  if (got.rows() != want.rows() || got.cols() != want.cols() || got.dtype() != want.dtype()) {
    return ::testing::AssertionFailure() << dtype_name(got.dtype()) << " (" << got.rows() << ", "
                                         << got.cols() << ") but expected " << dtype_name(want.dtype())
                                         << " (" << want.rows() << ", " << want.cols() << ")";
  }
  bool const floating = got.dtype() == DType::kFloat32 || got.dtype() == DType::kFloat64;
  std::size_t const width = size_of(got.dtype());
  auto const* g = static_cast<char const*>(got.data());
  auto const* w = static_cast<char const*>(want.data());
  for (std::int64_t e = 0; e < got.size(); ++e) {
    if (std::memcmp(g + e * width, w + e * width, width) == 0) continue;
    if (floating && std::isnan(value_at(got, e)) && std::isnan(value_at(want, e))) continue;
    std::ostringstream values;
    if (floating) values << ": got " << value_at(got, e) << ", want " << value_at(want, e);
    return ::testing::AssertionFailure() << "first difference at (" << e / got.cols() << ", "
                                         << e % got.cols() << ")" << values.str();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace cudist::test
