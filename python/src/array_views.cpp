#include "array_views.hpp"

#include <cstdint>
#include <sstream>
#include <string>

namespace nb = nanobind;

namespace cudist::python {
namespace {

// DLPack device types (dlpack.h DLDeviceType) that cudist can read.
constexpr int kDLCPU = 1;
constexpr int kDLCUDA = 2;
constexpr int kDLCUDAHost = 3;     // pinned host memory
constexpr int kDLCUDAManaged = 13;

std::string dtype_text(nb::dlpack::dtype t) {
  std::ostringstream s;
  s << "DLPack type code " << int(t.code) << " with " << int(t.bits) << " bits";
  if (t.lanes != 1) s << " x " << t.lanes << " lanes";
  return s.str();
}

DType dtype_of(nb::dlpack::dtype t, char const* what) {
  using Code = nb::dlpack::dtype_code;
  if (t.lanes == 1) {
    switch (static_cast<Code>(t.code)) {
      case Code::Float:
        if (t.bits == 16) return DType::kFloat16;
        if (t.bits == 32) return DType::kFloat32;
        if (t.bits == 64) return DType::kFloat64;
        break;
      case Code::Bfloat:
        if (t.bits == 16) return DType::kBFloat16;
        break;
      case Code::Bool:  // one byte holding 0 or 1
      case Code::UInt:
        if (t.bits == 8) return DType::kUInt8;
        break;
      case Code::Int:
        if (t.bits == 8) return DType::kInt8;
        if (t.bits == 16) return DType::kInt16;
        if (t.bits == 32) return DType::kInt32;
        if (t.bits == 64) return DType::kInt64;
        break;
      default:
        break;
    }
  }
  throw nb::type_error((std::string(what) + " has an element type cudist does not support (" +
                        dtype_text(t) + ")")
                           .c_str());
}

Memory memory_of(int device_type, char const* what) {
  switch (device_type) {
    case kDLCPU:
    case kDLCUDAHost:
      return Memory::kHost;
    case kDLCUDA:
      return Memory::kDevice;
    case kDLCUDAManaged:
      return Memory::kAuto;  // the CUDA runtime decides
    default:
      throw nb::value_error((std::string(what) + " lives on DLPack device type " +
                             std::to_string(device_type) +
                             "; cudist reads host memory and CUDA device memory")
                                .c_str());
  }
}

/// Shape, row stride, dtype and memory of a 1-D or 2-D array; the data pointer is the caller's.
template <class ArrayT>
BasicMatrixView<void const*> describe(ArrayT const& a, std::size_t ndim, char const* what) {
  if (a.ndim() != ndim) {
    throw nb::value_error((std::string(what) + " must be a " + std::to_string(ndim) +
                           "-dimensional array, got " + std::to_string(a.ndim()) + " dimensions")
                              .c_str());
  }
  auto const rows = ndim == 2 ? static_cast<std::int64_t>(a.shape(0)) : 1;
  auto const cols = static_cast<std::int64_t>(a.shape(ndim - 1));
  std::int64_t const col_stride = a.stride(ndim - 1);
  if (cols > 1 && rows > 0 && col_stride != 1) {
    throw nb::value_error(
        (std::string(what) + " has element stride " + std::to_string(col_stride) +
         " along its last axis (column-major, transposed or sliced with a step); cudist reads "
         "row-major data in place and does not copy it: pass np.ascontiguousarray(a), "
         "a.contiguous() (torch) or cupy.ascontiguousarray(a)")
            .c_str());
  }
  // A single row has no row stride; the library expects the dense one then.
  std::int64_t const row_stride = (ndim == 2 && rows > 1) ? a.stride(0) : cols;
  if (row_stride < 0) {  // a view would read a negative stride as "dense"
    throw nb::value_error((std::string(what) + " has a negative row stride (rows in reverse "
                           "order); pass a row-major copy")
                              .c_str());
  }
  return {nullptr, rows, cols, row_stride, dtype_of(a.dtype(), what),
          memory_of(a.device_type(), what)};
}

template <class ArrayT>
void expect_reachable_impl(ArrayT const& a, Device device, char const* what) {
  if (a.device_type() != kDLCUDA || !device.is_cuda() || a.device_id() == device.index) return;
  throw nb::value_error((std::string(what) + " is on cuda:" + std::to_string(a.device_id()) +
                         " but the computation runs on " + device.str() +
                         "; move it there or pass device='cuda:" +
                         std::to_string(a.device_id()) + "'")
                            .c_str());
}

/// The `ndim`-dimensional array `a` as a view (ConstMatrixView or MatrixView) of its own data.
template <class View, class ArrayT>
View view_of(ArrayT const& a, std::size_t ndim, char const* what) {
  ConstMatrixView const d = describe(a, ndim, what);
  return {a.data(), d.rows, d.cols, d.stride, d.dtype, d.memory};
}

}  // namespace

ConstMatrixView matrix_view(InputArray const& a, char const* what) {
  return view_of<ConstMatrixView>(a, 2, what);
}

MatrixView matrix_view(OutputArray const& a, char const* what) {
  return view_of<MatrixView>(a, 2, what);
}

ConstMatrixView row_vector_view(InputArray const& a, char const* what) {
  return view_of<ConstMatrixView>(a, 1, what);
}

MatrixView row_vector_view(OutputArray const& a, char const* what) {
  return view_of<MatrixView>(a, 1, what);
}

void expect_reachable(InputArray const& a, Device device, char const* what) {
  expect_reachable_impl(a, device, what);
}

void expect_reachable(OutputArray const& a, Device device, char const* what) {
  expect_reachable_impl(a, device, what);
}

}  // namespace cudist::python
