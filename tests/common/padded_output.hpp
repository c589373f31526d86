// An output view whose rows are `stride` > cols floats apart on the backend, the gaps between
// rows filled with a sentinel: for the tests that a kernel writes a strided output's rows where the
// view puts them and never touches the gaps (kernels take wide vector stores only where a row's
// alignment allows them).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "common/backend.hpp"
#include "cudist/core/array.hpp"

namespace cudist::test {

class PaddedOutput {
 public:
  static constexpr float kPadding = -7.0f;

  PaddedOutput(std::int64_t rows, std::int64_t cols, std::int64_t stride) : rows_(rows), cols_(cols), stride_(stride) {
    Array host = Array::allocate(rows, stride, DType::kFloat32, Device::cpu());
    for (std::int64_t t = 0; t < rows * stride; ++t) host.data_as<float>()[t] = kPadding;
    array_ = to_backend(host);
  }

  MatrixView view() { return MatrixView(array_.data(), rows_, cols_, stride_, DType::kFloat32, array_.memory()); }

  /// The view's entries as a dense host array in `dense`; fails where a gap was written.
  ::testing::AssertionResult read(Array& dense) const {
    Array const back = to_host(array_.view());
    dense = Array::allocate(rows_, cols_, DType::kFloat32, Device::cpu());
    for (std::int64_t i = 0; i < rows_; ++i) {
      for (std::int64_t j = 0; j < stride_; ++j) {
        float const v = back.data_as<float>()[i * stride_ + j];
        if (j < cols_) {
          dense.data_as<float>()[i * cols_ + j] = v;
        } else if (v != kPadding) {
          return ::testing::AssertionFailure() << "padding (" << i << ", " << j << ") written: " << v;
        }
      }
    }
    return ::testing::AssertionSuccess();
  }

 private:
  std::int64_t rows_, cols_, stride_;
  Array array_;
};

}  // namespace cudist::test
