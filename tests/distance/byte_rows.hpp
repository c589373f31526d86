// What the uint8 and int8 pairwise tests share: the tolerance of an exact integer rounded once to
// float32, their shapes, and the same rows moved one byte off a word boundary, the form that
// takes the SIMT engine where aligned rows take the tensor cores.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "common/backend.hpp"
#include "common/compare.hpp"
#include "common/data.hpp"
#include "cudist/distance/pairwise.hpp"

namespace cudist::test {

// The float32 rounding of an exact integer (and of its square root).
constexpr Tolerance kRounded{1.2e-7, 0};

struct Shape {
  std::int64_t m, n, d;
};

inline std::string label(Metric metric, Shape s) {
  return std::string(metric_name(metric)) + " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
         " d=" + std::to_string(s.d);
}

/// x's rows (bytes) in backend memory, each starting one byte past a 4-byte boundary: the SIMT
/// path's form of the same values; `storage` owns them.
inline ConstMatrixView unaligned(TestMatrix const& x, Array& storage) {
  std::int64_t const stride = x.array.cols() + 4;
  Array host = Array::allocate(x.array.rows(), stride, x.array.dtype(), Device::cpu());
  auto* const to = static_cast<unsigned char*>(host.data());
  auto const* const from = static_cast<unsigned char const*>(x.array.data());
  for (std::int64_t r = 0; r < x.array.rows(); ++r) {
    std::memcpy(to + r * stride + 1, from + r * x.array.cols(), static_cast<std::size_t>(x.array.cols()));
  }
  storage = to_backend(host);
  return ConstMatrixView(static_cast<unsigned char const*>(storage.data()) + 1, x.array.rows(), x.array.cols(), stride,
                         x.array.dtype());
}

}  // namespace cudist::test
