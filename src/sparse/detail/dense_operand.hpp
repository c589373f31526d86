// A dense vector or matrix operand of SpMV/SpMM as the backends see it: element (i, j) at
// data[i * row_stride + j * col_stride]. Row-major, column-major and strided vectors are all
// this one shape, so no kernel is written twice for a layout.
#pragma once

#include <cstdint>

#include "core/detail/host_device.hpp"

namespace cudist::sparse::detail {

template <class T>
struct DenseOperand {
  T* data = nullptr;
  std::int64_t row_stride = 0;
  std::int64_t col_stride = 0;

  CUDIST_HD T& at(std::int64_t i, std::int64_t j) const {
    return data[i * row_stride + j * col_stride];
  }
  /// The operand whose column 0 is this one's column `first`.
  CUDIST_HD DenseOperand from_column(std::int64_t first) const {
    return {data + first * col_stride, row_stride, col_stride};
  }
};

}  // namespace cudist::sparse::detail
