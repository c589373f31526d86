// What the uint8, int8 and bit-row pairwise tests share: the tolerance of an exact integer rounded
// once to float32, their shapes, the same rows moved one byte off a word boundary (the form that
// takes the SIMT engine where aligned rows take the tensor cores), and the checks of windowed and
// strided outputs.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "common/backend.hpp"
#include "common/compare.hpp"
#include "common/data.hpp"
#include "common/padded_output.hpp"
#include "cudist/distance/pairwise.hpp"
#include "reference/pairwise_ref.hpp"

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

/// cdist of x and y (host arrays) into host memory whole, and again in windows of about 20 rows
/// (a memory budget): the same bits, and the reference's values.
inline void expect_windows_equal_the_whole_call(TestMatrix const& x, TestMatrix const& y, Metric metric) {
  std::int64_t const m = x.array.rows(), n = y.array.rows();
  Resources windows = backend_resources();
  windows.memory_budget = static_cast<std::uint64_t>(40 * n * 4);
  Array whole = Array::allocate(m, n, DType::kFloat32, Device::cpu());
  Array streamed = Array::allocate(m, n, DType::kFloat32, Device::cpu());
  cdist(backend_resources(), x.array, y.array, whole.view(), metric);
  cdist(windows, x.array, y.array, streamed.view(), metric);
  EXPECT_TRUE(identical(streamed, whole));
  EXPECT_TRUE(matches(whole, reference::cdist(x.values, y.values, metric), kRounded));
}

/// cdist into a view whose rows are not 16-byte aligned (stride n + 1), which takes every tile's
/// per-entry stores: the padding between rows stays as it was, and the values are the contiguous
/// call's bits and the reference's.
inline void expect_strided_output(TestMatrix const& x, TestMatrix const& y, Metric metric) {
  Resources const res = backend_resources();
  std::int64_t const m = x.array.rows(), n = y.array.rows();
  Array const xb = to_backend(x.array), yb = to_backend(y.array);
  PaddedOutput out(m, n, n + 1);
  cdist(res, xb, yb, out.view(), metric);
  Array got;
  ASSERT_TRUE(out.read(got));
  EXPECT_TRUE(identical(got, to_host(cdist(res, xb, yb, metric))));
  EXPECT_TRUE(matches(got, reference::cdist(x.values, y.values, metric), kRounded));
}

}  // namespace cudist::test
