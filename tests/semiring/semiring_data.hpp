// Test data for the semiring products in float32, float64, int32 and int16: seeded integer-valued
// matrices (exact in every dtype) with a share of infinities, and exact comparisons that print
// the first mismatches with their coordinates.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <vector>

#include "common/compare.hpp"
#include "cudist/core/array.hpp"
#include "reference/semiring_ref.hpp"

namespace cudist::test {

inline constexpr DType kSemiringDtypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt32,
                                            DType::kInt16};

/// Stores v (representable in the dtype) at element idx of a host array.
inline void set_value(Array& a, std::int64_t idx, double v) {
  switch (a.dtype()) {
    case DType::kFloat32: a.data_as<float>()[idx] = static_cast<float>(v); break;
    case DType::kFloat64: a.data_as<double>()[idx] = v; break;
    case DType::kInt32: a.data_as<std::int32_t>()[idx] = static_cast<std::int32_t>(v); break;
    case DType::kInt16: a.data_as<std::int16_t>()[idx] = static_cast<std::int16_t>(v); break;
    default: ADD_FAILURE() << "set_value: unexpected dtype " << dtype_name(a.dtype());
  }
}

struct SemiringMatrix {
  Array array;               // host, dense
  reference::Matrix values;  // the same values in float64
};

/// rows x cols: integers uniform in [lo, hi]; with probability special_share an entry is
/// `special` instead (typically the semiring's zero, "no edge").
inline SemiringMatrix integer_matrix(std::int64_t rows, std::int64_t cols, DType dtype, double lo,
                                     double hi, std::uint64_t seed, double special_share = 0,
                                     double special = 0) {
  SemiringMatrix m{Array::allocate(rows, cols, dtype, Device::cpu()),
                   {rows, cols, std::vector<double>(static_cast<std::size_t>(rows * cols))}};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> value(static_cast<long long>(lo), static_cast<long long>(hi));
  std::bernoulli_distribution is_special(special_share);
  for (std::int64_t i = 0; i < rows * cols; ++i) {
    double const v = is_special(rng) ? special : static_cast<double>(value(rng));
    set_value(m.array, i, v);
    m.values.v[static_cast<std::size_t>(i)] = v;
  }
  return m;
}

/// A matrix holding `v` everywhere, with `diagonal` on its diagonal.
inline SemiringMatrix diagonal_matrix(std::int64_t n, DType dtype, double diagonal, double v) {
  SemiringMatrix m{Array::allocate(n, n, dtype, Device::cpu()),
                   {n, n, std::vector<double>(static_cast<std::size_t>(n * n))}};
  for (std::int64_t i = 0; i < n * n; ++i) {
    double const x = i % (n + 1) == 0 ? diagonal : v;
    set_value(m.array, i, x);
    m.values.v[static_cast<std::size_t>(i)] = x;
  }
  return m;
}

/// A witness array (host, int32, dense) against the reference's.
inline ::testing::AssertionResult equals(Array const& got, std::vector<std::int32_t> const& want) {
  std::ostringstream first;
  std::int64_t bad = 0;
  if (static_cast<std::size_t>(got.size()) != want.size()) {
    return ::testing::AssertionFailure() << got.size() << " witnesses but expected " << want.size();
  }
  for (std::int64_t e = 0; e < got.size(); ++e) {
    std::int32_t const g = got.data_as<std::int32_t>()[e], w = want[static_cast<std::size_t>(e)];
    if (g != w && bad++ < 8) first << "\n  entry " << e << " (" << e / got.cols() << ", " << e % got.cols()
                                    << "): got k = " << g << ", want " << w;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " witnesses differ:" << first.str();
}

}  // namespace cudist::test
