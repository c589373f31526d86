// Seeded test data: host arrays of any dtype together with the float64 matrix of the values
// they actually hold (after rounding to the dtype), so the reference sees exactly what the
// backend sees.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "cudist/core/array.hpp"
#include "reference/pairwise_ref.hpp"

namespace cudist::test {

struct TestMatrix {
  Array array;               // host, dense
  reference::Matrix values;  // the same values in float64
};

inline std::uint16_t float_to_half_bits(float f) {  // round to nearest even, finite range only
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  std::uint32_t const sign = (b >> 16) & 0x8000u;
  float const a = std::fabs(f);
  if (a < 6.103515625e-05f) {  // subnormal half
    auto const m = static_cast<std::uint32_t>(std::nearbyint(a / 5.9604644775390625e-8f));
    return static_cast<std::uint16_t>(sign | m);
  }
  std::uint32_t const exp = ((b >> 23) & 0xffu) - 112;
  std::uint32_t man = b & 0x7fffffu;
  std::uint32_t h = (exp << 10) | (man >> 13);
  std::uint32_t const rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

inline double half_bits_to_double(std::uint16_t h) {
  int const exp = (h >> 10) & 0x1f;
  int const man = h & 0x3ff;
  double const v = exp == 0 ? std::ldexp(man, -24) : std::ldexp(1024 + man, exp - 25);
  return (h & 0x8000) ? -v : v;
}

/// Stores `value` as `dtype` at element `idx` of `a`, returning the value actually stored.
inline double store(Array& a, std::int64_t idx, double value) {
  switch (a.dtype()) {
    case DType::kFloat32: return a.data_as<float>()[idx] = static_cast<float>(value);
    case DType::kFloat64: return a.data_as<double>()[idx] = value;
    case DType::kUInt8: return a.data_as<std::uint8_t>()[idx] = static_cast<std::uint8_t>(value);
    case DType::kInt8: return a.data_as<std::int8_t>()[idx] = static_cast<std::int8_t>(value);
    case DType::kFloat16: {
      std::uint16_t const h = float_to_half_bits(static_cast<float>(value));
      a.data_as<half_t>()[idx].bits = h;
      return half_bits_to_double(h);
    }
    case DType::kBFloat16: {
      float f = static_cast<float>(value);
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      b = (b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u;  // round to nearest even
      a.data_as<bfloat16_t>()[idx].bits = static_cast<std::uint16_t>(b >> 16);
      std::memcpy(&f, &b, 4);
      return f;
    }
    default: break;
  }
  return value;
}

/// rows x cols of `dtype` filled by gen(rng).
template <class Gen>
TestMatrix make_matrix(std::int64_t rows, std::int64_t cols, DType dtype, std::uint64_t seed, Gen gen) {
  TestMatrix m{Array::allocate(rows, cols, dtype, Device::cpu()), {rows, cols, {}}};
  m.values.v.resize(static_cast<std::size_t>(rows * cols));
  std::mt19937_64 rng(seed);
  for (std::int64_t i = 0; i < rows * cols; ++i) m.values.v[i] = store(m.array, i, gen(rng));
  return m;
}

/// The values of `t` as a float32 array (exact for every integer dtype's test data).
inline Array float32_copy(TestMatrix const& t) {
  Array out = Array::allocate(t.array.rows(), t.array.cols(), DType::kFloat32, Device::cpu());
  for (std::int64_t i = 0; i < t.array.size(); ++i) out.data_as<float>()[i] = static_cast<float>(t.values.v[i]);
  return out;
}

/// Integers in [lo, hi]: makes L1, L-inf, L2^2, inner product and Hamming exact in float32.
inline TestMatrix random_integers(std::int64_t rows, std::int64_t cols, DType dtype, int lo, int hi,
                                  std::uint64_t seed) {
  return make_matrix(rows, cols, dtype, seed, [lo, hi](std::mt19937_64& r) {
    return static_cast<double>(std::uniform_int_distribution<int>(lo, hi)(r));
  });
}

/// Uniform reals in [lo, hi).
inline TestMatrix random_reals(std::int64_t rows, std::int64_t cols, DType dtype, double lo, double hi,
                               std::uint64_t seed) {
  return make_matrix(rows, cols, dtype, seed, [lo, hi](std::mt19937_64& r) {
    return std::uniform_real_distribution<double>(lo, hi)(r);
  });
}

}  // namespace cudist::test
