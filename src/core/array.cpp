#include "cudist/core/array.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <cstring>
#include <new>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"
#include "core/detail/memory.hpp"
#include "cudist/core/memory_budget.hpp"

namespace cudist {
namespace detail {

Memory resolve_memory(void const* data, Memory declared) {
  if (declared != Memory::kAuto) return declared;
  return (data != nullptr && cuda_pointer_is_device(data)) ? Memory::kDevice : Memory::kHost;
}

ConstMatrixView staged(ConstMatrixView v, Device device, void* stream,
                       std::optional<Array>& staging) {
  v = resolved(v);
  if (v.memory == backend_memory(device)) return v;
  staging = Array::copy_of(v, device, stream);
  return staging->view();
}

MatrixView staged_output(MatrixView v, Device device, void* stream, bool read,
                         std::optional<Array>& staging) {
  v = resolved(v);
  if (v.memory == backend_memory(device)) return v;
  staging = read ? Array::copy_of(v, device, stream)
                 : Array::allocate(v.rows, v.cols, v.dtype, device, stream);
  return staging->view();
}

}  // namespace detail


Array Array::allocate(std::int64_t rows, std::int64_t cols, DType dtype, Device device,
                      void* stream) {
  CUDIST_EXPECTS(rows >= 0 && cols >= 0,
                 "Array::allocate: negative shape (" << rows << ", " << cols << ")");
  // Refused before anything is allocated: a size past 64 bits, and a large array that the device
  // cannot hold now (host: before an overcommitted allocation would be killed when touched).
  std::uint64_t bytes_needed = 0;
  CUDIST_EXPECTS(!__builtin_mul_overflow(static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols),
                                         &bytes_needed) &&
                     !__builtin_mul_overflow(bytes_needed, size_of(dtype), &bytes_needed),
                 "Array::allocate: a " << rows << " x " << cols << " " << dtype_name(dtype)
                                       << " array has more bytes than 64 bits can count");
  if (device.is_cuda()) require_device(device, "Array::allocate");
  expect_allocation_fits(device, bytes_needed, "Array::allocate",
                         "a " + std::to_string(rows) + " x " + std::to_string(cols) + " " +
                             std::string(dtype_name(dtype)) + " array");
  Array a;
  a.rows_ = rows;
  a.cols_ = cols;
  a.dtype_ = dtype;
  a.device_ = device;
  std::size_t const bytes = a.bytes();
  if (device.is_cuda()) {
    detail::ScopedDevice const device_scope(device);
    void* p = detail::cuda_malloc_async(bytes, stream, "Array::allocate");
    a.data_ = std::shared_ptr<void>(p, [stream](void* q) { detail::cuda_free_async(q, stream); });
  } else {
    // 64-byte alignment keeps every row start of a dense float/double matrix vector-aligned.
    std::size_t const rounded = (bytes + 63) / 64 * 64;
    void* p = bytes == 0 ? nullptr : std::aligned_alloc(64, rounded);
    if (bytes != 0 && p == nullptr) {
      CUDIST_THROW(OutOfMemory, "Array::allocate: out of host memory allocating " << bytes
                                                                                   << " bytes");
    }
    a.data_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  }
  return a;
}

Array Array::leading_rows(std::int64_t rows) const {
  CUDIST_EXPECTS(rows >= 0 && rows <= rows_,
                 "Array::leading_rows: rows = " << rows << " of an array of " << rows_ << " rows");
  Array a = *this;
  a.rows_ = rows;
  return a;
}

Array Array::copy_of(ConstMatrixView src, Device device, void* stream) {
  Array a = allocate(src.rows, src.cols, src.dtype, device, stream);
  copy(src, a.view(), stream);
  return a;
}

void copy(ConstMatrixView src, MatrixView dst, void* stream) {
  CUDIST_EXPECTS(src.rows == dst.rows && src.cols == dst.cols,
                 "copy: source is " << src.rows << "x" << src.cols << " but destination is "
                                    << dst.rows << "x" << dst.cols);
  CUDIST_EXPECTS(src.dtype == dst.dtype, "copy: source is " << dtype_name(src.dtype)
                                                            << " but destination is "
                                                            << dtype_name(dst.dtype));
  if (src.empty()) return;
  std::size_t const esize = size_of(src.dtype);
  std::size_t const row_bytes = static_cast<std::size_t>(src.cols) * esize;
  Memory const sm = detail::resolve_memory(src.data, src.memory);
  Memory const dm = detail::resolve_memory(dst.data, dst.memory);
  if (sm == Memory::kHost && dm == Memory::kHost) {
    for (std::int64_t i = 0; i < src.rows; ++i) {
      std::memcpy(static_cast<char*>(dst.data) + i * dst.stride * esize,
                  static_cast<char const*>(src.data) + i * src.stride * esize, row_bytes);
    }
    return;
  }
  detail::cuda_memcpy_2d_async(dst.data, dst.stride * esize, src.data, src.stride * esize,
                               row_bytes, src.rows, stream);
  if (dm == Memory::kHost) {
    // The copy ran with its GPU current (cuda_memcpy_2d_async), so on that GPU's default stream
    // where no stream is given: the wait is for that one, whichever GPU the caller has current.
    int const gpu = detail::cuda_pointer_device(src.data);
    detail::ScopedDevice const on(gpu >= 0 ? Device::cuda(gpu) : Device::cpu());
    detail::cuda_stream_synchronize(stream);
  }
}

}  // namespace cudist
