// Converting stored elements (including the 16-bit float formats, kept as raw bits in host code)
// to a compute type, identically on host and device.
#pragma once

#include <cstdint>
#include <cstring>

#include "cudist/core/matrix_view.hpp"
#include "distance/detail/ops.hpp"

namespace cudist::detail {

CUDIST_HD float bits_to_float(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
#endif
}

/// IEEE binary16 -> float32, exact (subnormals, infinities and NaN included).
CUDIST_HD float half_to_float(std::uint16_t h) {
  std::uint32_t const sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t const exp = (h >> 10) & 0x1fu;
  std::uint32_t const man = h & 0x3ffu;
  if (exp == 0x1f) return bits_to_float(sign | 0x7f800000u | (man << 13));  // inf / NaN
  if (exp != 0) return bits_to_float(sign | ((exp + 112) << 23) | (man << 13));
  float const sub = static_cast<float>(man) * 5.9604644775390625e-8f;  // man * 2^-24
  return (h & 0x8000u) ? -sub : sub;
}

template <class C, class Elem>
CUDIST_HD C load_as(Elem v) { return static_cast<C>(v); }
template <class C>
CUDIST_HD C load_as(half_t v) { return static_cast<C>(half_to_float(v.bits)); }
template <class C>
CUDIST_HD C load_as(bfloat16_t v) {
  return static_cast<C>(bits_to_float(static_cast<std::uint32_t>(v.bits) << 16));
}

}  // namespace cudist::detail
