// API layer for CSR matrices: the owning CsrMatrix and the checks every sparse entry point runs.
// The O(nnz) structure scan itself is a backend operation (find_csr_violation).
#include "cudist/sparse/csr.hpp"

#include <cstdint>
#include <limits>

#include "core/detail/expects.hpp"
#include "core/detail/memory.hpp"
#include "sparse/detail/backend.hpp"
#include "sparse/detail/csr_checks.hpp"

namespace cudist::sparse {
namespace detail {
namespace {

bool is_index_dtype(DType t) { return t == DType::kInt32 || t == DType::kInt64; }
bool is_value_dtype(DType t) { return t == DType::kFloat32 || t == DType::kFloat64; }

void check_array(char const* who, char const* name, void const* p, std::int64_t n, DType dtype) {
  if (n == 0) return;
  CUDIST_EXPECTS(p != nullptr,
                 who << ": A's " << name << " is null but must hold " << n << " entries");
  CUDIST_EXPECTS(reinterpret_cast<std::uintptr_t>(p) % size_of(dtype) == 0,
                 who << ": A's " << name << " pointer is not aligned to its " << size_of(dtype)
                     << "-byte " << dtype_name(dtype) << " elements");
}

[[noreturn]] void throw_violation(char const* who, CsrView const& a, CsrViolation const& v) {
  switch (v.kind) {
    case CsrViolation::Kind::kFirstOffset:
      CUDIST_THROW(InvalidArgument,
                   who << ": A's row_offsets[0] = " << v.value << " but must be 0");
    case CsrViolation::Kind::kLastOffset:
      CUDIST_THROW(InvalidArgument, who << ": A's row_offsets[" << a.rows << "] = " << v.value
                                        << " but must equal nnz = " << a.nnz);
    case CsrViolation::Kind::kDecreasingOffset:
      CUDIST_THROW(InvalidArgument, who << ": A's row_offsets[" << v.index << "] = " << v.value
                                        << " is less than row_offsets[" << v.index - 1
                                        << "] = " << v.previous << " (offsets must not decrease)");
    case CsrViolation::Kind::kColumnOutOfRange:
      CUDIST_THROW(InvalidArgument, who << ": A's col_indices[" << v.index << "] = " << v.value
                                        << " is outside [0, " << a.cols << ")");
    case CsrViolation::Kind::kNone:
      break;
  }
  CUDIST_THROW(Error, who << ": internal error: no CSR violation to report");
}

}  // namespace

void check_csr_dims(char const* who, std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                    DType value_dtype, DType index_dtype) {
  CUDIST_EXPECTS(rows >= 0 && cols >= 0 && nnz >= 0, who << ": A has a negative shape (rows "
                                                         << rows << ", cols " << cols << ", nnz "
                                                         << nnz << ")");
  CUDIST_EXPECTS(is_index_dtype(index_dtype), who << ": A's index dtype is "
                                                  << dtype_name(index_dtype)
                                                  << "; use int32 or int64");
  CUDIST_EXPECTS(is_value_dtype(value_dtype), who << ": A's value dtype is "
                                                  << dtype_name(value_dtype)
                                                  << "; use float32 or float64");
  CUDIST_EXPECTS(rows > 0 || nnz == 0, who << ": A has no rows but nnz = " << nnz);
  if (index_dtype == DType::kInt32) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
    CUDIST_EXPECTS(rows <= kMax && cols <= kMax && nnz <= kMax,
                   who << ": A (rows " << rows << ", cols " << cols << ", nnz " << nnz
                       << ") does not fit int32 indices; use int64");
  }
}

Memory check_csr_shape(char const* who, CsrView const& a) {
  check_csr_dims(who, a.rows, a.cols, a.nnz, a.value_dtype, a.index_dtype);
  check_array(who, "row_offsets", a.row_offsets, a.rows > 0 ? a.rows + 1 : 0, a.index_dtype);
  check_array(who, "col_indices", a.col_indices, a.nnz, a.index_dtype);
  check_array(who, "values", a.values, a.nnz, a.value_dtype);

  Memory const memory = cudist::detail::resolve_memory(a.row_offsets, a.memory);
  for (void const* p : {a.col_indices, a.values}) {
    CUDIST_EXPECTS(p == nullptr || cudist::detail::resolve_memory(p, a.memory) == memory,
                   who << ": A's arrays are split between host and device memory");
  }
  return memory;
}

Memory check_csr(char const* who, Resources const& res, CsrView const& a, CsrCheck check) {
  Memory const memory = check_csr_shape(who, a);
  if (check == CsrCheck::kShapeOnly || a.rows == 0) return memory;
  CsrView resolved = a;
  resolved.memory = memory;
  CsrViolation const v = memory == Memory::kDevice ? cuda::find_csr_violation(resolved, res.stream)
                                                   : cpu::find_csr_violation(resolved);
  if (v.kind != CsrViolation::Kind::kNone) throw_violation(who, a, v);
  return memory;
}

}  // namespace detail

void validate_csr(Resources const& res, CsrView const& a, CsrCheck check) {
  detail::check_csr("validate_csr", res, a, check);
}

CsrMatrix CsrMatrix::allocate(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                              DType value_dtype, DType index_dtype, Device device, void* stream) {
  detail::check_csr_dims("CsrMatrix::allocate", rows, cols, nnz, value_dtype, index_dtype);
  CsrMatrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.value_dtype_ = value_dtype;
  m.index_dtype_ = index_dtype;
  m.row_offsets_ = Array::allocate(1, rows + 1, index_dtype, device, stream);
  m.col_indices_ = Array::allocate(1, nnz, index_dtype, device, stream);
  m.values_ = Array::allocate(1, nnz, value_dtype, device, stream);
  return m;
}

CsrMatrix CsrMatrix::copy_of(CsrView const& a, Device device, void* stream) {
  Memory const memory = detail::check_csr_shape("CsrMatrix::copy_of", a);
  CsrMatrix m = allocate(a.rows, a.cols, a.nnz, a.value_dtype, a.index_dtype, device, stream);
  auto copy_array = [&](void const* src, Memory src_memory, Array& dst) {
    copy(ConstMatrixView(src, 1, dst.cols(), dst.cols(), dst.dtype(), src_memory), dst.view(),
         stream);
  };
  // A matrix without rows may come without offsets; its one offset is 0 (in either index width).
  std::int64_t const zero_offset = 0;
  if (a.row_offsets == nullptr) {
    copy_array(&zero_offset, Memory::kHost, m.row_offsets_);
  } else {
    copy_array(a.row_offsets, memory, m.row_offsets_);
  }
  copy_array(a.col_indices, memory, m.col_indices_);
  copy_array(a.values, memory, m.values_);
  return m;
}

CsrView CsrMatrix::view() const {
  CsrView v;
  v.rows = rows_;
  v.cols = cols_;
  v.nnz = nnz();
  v.row_offsets = row_offsets_.data();
  v.col_indices = col_indices_.data();
  v.values = values_.data();
  v.index_dtype = index_dtype_;
  v.value_dtype = value_dtype_;
  v.memory = row_offsets_.memory();
  return v;
}

}  // namespace cudist::sparse
