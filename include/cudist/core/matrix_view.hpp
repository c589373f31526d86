// Non-owning views of row-major matrices with any row stride, tagged with their dtype and the
// memory they live in. Public functions take these, so one overload covers every dtype.
#pragma once

#include <cstdint>

#include "cudist/core/dtype.hpp"

namespace cudist {

/// Where a view's memory lives. kAuto asks the CUDA runtime (host when CUDA is absent).
enum class Memory : std::uint8_t { kAuto, kHost, kDevice };

struct half_t { std::uint16_t bits; };      ///< IEEE binary16, as stored
struct bfloat16_t { std::uint16_t bits; };  ///< bfloat16, as stored

/// A rows x cols row-major matrix: element (i, j) is at data + i * stride + j (in elements).
/// stride < 0 means "dense" (stride = cols).
/// data sits at a multiple of the element size, except for an input in host memory to a call on
/// GPUs, which copies it to the device byte for byte before anything reads it (such an input may
/// start anywhere, as NumPy blocks that dask.distributed received do).
template <class PtrT>
struct BasicMatrixView {
  PtrT data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t stride = 0;
  DType dtype = DType::kFloat32;
  Memory memory = Memory::kAuto;

  BasicMatrixView() = default;
  BasicMatrixView(PtrT p, std::int64_t r, std::int64_t c, std::int64_t s, DType t,
                  Memory m = Memory::kAuto)
      : data(p), rows(r), cols(c), stride(s < 0 ? c : s), dtype(t), memory(m) {}

  std::int64_t size() const { return rows * cols; }
  bool empty() const { return rows == 0 || cols == 0; }
  bool is_contiguous() const { return stride == cols || rows <= 1; }
};

using ConstMatrixView = BasicMatrixView<void const*>;

struct MatrixView : BasicMatrixView<void*> {
  using BasicMatrixView<void*>::BasicMatrixView;
  operator ConstMatrixView() const { return {data, rows, cols, stride, dtype, memory}; }
};

// Typed constructors: view(ptr, rows, cols[, stride[, memory]]). Concrete overloads, no templates
// over the element type, so the public surface stays host-compilable and explicit.
#define CUDIST_VIEW_OVERLOADS(T, TAG)                                                            \
  inline ConstMatrixView view(T const* p, std::int64_t r, std::int64_t c, std::int64_t s = -1,  \
                              Memory m = Memory::kAuto) {                                       \
    return {p, r, c, s, TAG, m};                                                                \
  }                                                                                             \
  inline MatrixView view(T* p, std::int64_t r, std::int64_t c, std::int64_t s = -1,             \
                         Memory m = Memory::kAuto) {                                            \
    return {p, r, c, s, TAG, m};                                                                \
  }
CUDIST_VIEW_OVERLOADS(float, DType::kFloat32)
CUDIST_VIEW_OVERLOADS(double, DType::kFloat64)
CUDIST_VIEW_OVERLOADS(half_t, DType::kFloat16)
CUDIST_VIEW_OVERLOADS(bfloat16_t, DType::kBFloat16)
CUDIST_VIEW_OVERLOADS(std::uint8_t, DType::kUInt8)
CUDIST_VIEW_OVERLOADS(std::int8_t, DType::kInt8)
CUDIST_VIEW_OVERLOADS(std::int16_t, DType::kInt16)
CUDIST_VIEW_OVERLOADS(std::int32_t, DType::kInt32)
CUDIST_VIEW_OVERLOADS(std::int64_t, DType::kInt64)
#undef CUDIST_VIEW_OVERLOADS

}  // namespace cudist
