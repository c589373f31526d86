// Argument checks every entry point makes on the views it is given, with messages naming the
// function and the argument ("semiring_product: b has row stride 3 < its 4 columns").
#pragma once

#include <cstdint>
#include <utility>

#include "core/detail/expects.hpp"
#include "core/detail/memory.hpp"
#include "cudist/core/device.hpp"
#include "cudist/core/matrix_view.hpp"

namespace cudist::detail {

/// A non-negative shape, stride >= cols, and non-null data unless empty; element-aligned data
/// where `aligned` (expect_valid_input says where it need not be).
inline void expect_valid_view(char const* who, char const* name, ConstMatrixView v, bool aligned = true) {
  CUDIST_EXPECTS(v.rows >= 0 && v.cols >= 0,
                 who << ": " << name << " has a negative shape (" << v.rows << ", " << v.cols << ")");
  CUDIST_EXPECTS(v.stride >= v.cols || v.rows <= 1,
                 who << ": " << name << " has row stride " << v.stride << " < its " << v.cols
                     << " columns");
  if (v.empty()) return;
  CUDIST_EXPECTS(v.data != nullptr, who << ": " << name << " is a null pointer with shape ("
                                        << v.rows << ", " << v.cols << ")");
  CUDIST_EXPECTS(!aligned || reinterpret_cast<std::uintptr_t>(v.data) % size_of(v.dtype) == 0,
                 who << ": " << name << " pointer is not aligned to its " << size_of(v.dtype)
                     << "-byte " << dtype_name(v.dtype) << " elements");
}

/// expect_valid_view for an input of a call on `device`, which need not be element-aligned where
/// it is host memory and `device` a GPU: such a call copies host inputs to its GPUs byte for byte
/// before anything reads them (staged, streamed, uploaded through page-locked stages), and
/// dask.distributed hands NumPy blocks over at any offset. A copy to align a 5 GB block first
/// would cost a pass over it; a device copy of all of it, the overlap of a streamed database.
inline void expect_valid_input(char const* who, char const* name, ConstMatrixView v, Device device) {
  bool const copied = device.is_cuda() && !v.empty() && resolve_memory(v.data, v.memory) == Memory::kHost;
  expect_valid_view(who, name, v, !copied);
}

inline void expect_shape(char const* who, char const* name, ConstMatrixView v, std::int64_t rows,
                         std::int64_t cols) {
  CUDIST_EXPECTS(v.rows == rows && v.cols == cols,
                 who << ": " << name << " is (" << v.rows << ", " << v.cols << ") but must be ("
                     << rows << ", " << cols << ")");
}

inline void expect_dtype(char const* who, char const* name, ConstMatrixView v, DType dtype) {
  CUDIST_EXPECTS(v.dtype == dtype, who << ": " << name << " is " << dtype_name(v.dtype)
                                       << " but must be " << dtype_name(dtype));
}

/// True when both views describe the same matrix (a self-join: cdist(x, x), knn(x, x)).
inline bool same_view(ConstMatrixView a, ConstMatrixView b) {
  return a.data == b.data && a.rows == b.rows && a.cols == b.cols && a.stride == b.stride &&
         a.dtype == b.dtype;
}

/// True when the memory spanned by two non-empty views intersects (an output that overlaps an
/// input would be read after it is written).
inline bool views_overlap(ConstMatrixView x, ConstMatrixView y) {
  if (x.empty() || y.empty()) return false;
  auto span = [](ConstMatrixView v) {
    auto const begin = reinterpret_cast<std::uintptr_t>(v.data);
    auto const elements = static_cast<std::uintptr_t>((v.rows - 1) * v.stride + v.cols);
    return std::pair{begin, begin + elements * size_of(v.dtype)};
  };
  auto const [xb, xe] = span(x);
  auto const [yb, ye] = span(y);
  return xb < ye && yb < xe;
}

}  // namespace cudist::detail
