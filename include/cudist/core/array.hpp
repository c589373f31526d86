// An owning row-major matrix on the host or on a CUDA device: what cudist returns when the caller
// does not provide the output, and what the tools and tests use to move data between memories.
#pragma once

#include <cstdint>
#include <memory>

#include "cudist/core/device.hpp"
#include "cudist/core/dtype.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"

namespace cudist {

class Array {
 public:
  Array() = default;

  /// Uninitialised rows x cols dense matrix on `device` (host memory for the CPU).
  /// Device memory is allocated stream-ordered on `stream`. Throws OutOfMemory.
  static Array allocate(std::int64_t rows, std::int64_t cols, DType dtype, Device device,
                        void* stream = nullptr);

  /// A dense copy of `src` on `device`. Copies to the host synchronize `stream`.
  static Array copy_of(ConstMatrixView src, Device device, void* stream = nullptr);

  /// The first `rows` rows (0 <= rows <= this->rows()), sharing this array's memory, which stays
  /// allocated, all of it, while either array lives. Throws InvalidArgument outside that range.
  Array leading_rows(std::int64_t rows) const;

  MatrixView view() { return {data_.get(), rows_, cols_, cols_, dtype_, memory()}; }
  ConstMatrixView view() const { return {data_.get(), rows_, cols_, cols_, dtype_, memory()}; }
  operator ConstMatrixView() const { return view(); }

  void* data() { return data_.get(); }
  void const* data() const { return data_.get(); }
  template <class T>
  T* data_as() { return static_cast<T*>(data_.get()); }
  template <class T>
  T const* data_as() const { return static_cast<T const*>(data_.get()); }

  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t size() const { return rows_ * cols_; }
  std::size_t bytes() const { return static_cast<std::size_t>(size()) * size_of(dtype_); }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  Memory memory() const { return device_.is_cuda() ? Memory::kDevice : Memory::kHost; }

 private:
  std::shared_ptr<void> data_;
  std::int64_t rows_ = 0, cols_ = 0;
  DType dtype_ = DType::kFloat32;
  Device device_ = Device::cpu();
};

/// Copies src into dst (same shape and dtype; any memories, any strides). Synchronizes `stream`
/// when the destination is host memory and the source is device memory.
void copy(ConstMatrixView src, MatrixView dst, void* stream = nullptr);

}  // namespace cudist
