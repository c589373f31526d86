// Compressed sparse row (CSR) matrices: a non-owning view, an owning matrix on the host or a CUDA
// device, and the structural check every sparse entry point runs unless told the matrix is good.
//
// Layout: row i holds the entries k in [row_offsets[i], row_offsets[i+1]); entry k is
// (i, col_indices[k]) with value values[k]. Offsets and column indices share one index dtype
// (int32 or int64); values are float32 or float64.
//
// Contract for column indices within a row: they may be in any order and may repeat. A repeated
// (i, j) behaves as one entry holding the sum of the values (SpMV/SpMM add every stored entry; the
// min-plus product takes the minimum over them, which is what a multigraph's parallel edges mean).
// validate_csr therefore does not require sorted or unique columns.
#pragma once

#include <cstdint>

#include "cudist/core/array.hpp"
#include "cudist/core/device.hpp"
#include "cudist/core/dtype.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"

namespace cudist::sparse {

/// A rows x cols CSR matrix in memory owned by someone else.
struct CsrView {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;                 ///< stored entries (row_offsets[rows])
  void const* row_offsets = nullptr;    ///< rows + 1 entries of index_dtype
  void const* col_indices = nullptr;    ///< nnz entries of index_dtype
  void const* values = nullptr;         ///< nnz entries of value_dtype
  DType index_dtype = DType::kInt32;    ///< kInt32 or kInt64
  DType value_dtype = DType::kFloat32;  ///< kFloat32 or kFloat64
  Memory memory = Memory::kAuto;        ///< where all three arrays live
};

// Typed constructors: csr_view(rows, cols, nnz, offsets, indices, values[, memory]).
#define CUDIST_CSR_VIEW_OVERLOAD(I, ITAG, V, VTAG)                                     \
  inline CsrView csr_view(std::int64_t rows, std::int64_t cols, std::int64_t nnz,      \
                          I const* row_offsets, I const* col_indices, V const* values, \
                          Memory memory = Memory::kAuto) {                             \
    return {rows, cols, nnz, row_offsets, col_indices, values, ITAG, VTAG, memory};    \
  }
CUDIST_CSR_VIEW_OVERLOAD(std::int32_t, DType::kInt32, float, DType::kFloat32)
CUDIST_CSR_VIEW_OVERLOAD(std::int32_t, DType::kInt32, double, DType::kFloat64)
CUDIST_CSR_VIEW_OVERLOAD(std::int64_t, DType::kInt64, float, DType::kFloat32)
CUDIST_CSR_VIEW_OVERLOAD(std::int64_t, DType::kInt64, double, DType::kFloat64)
#undef CUDIST_CSR_VIEW_OVERLOAD

/// An owning CSR matrix on the host or on one CUDA device. Copies share the storage.
class CsrMatrix {
 public:
  CsrMatrix() = default;

  /// Uninitialised storage for a rows x cols matrix with nnz entries (offsets included).
  /// Device memory is allocated stream-ordered on `stream`. Throws InvalidArgument, OutOfMemory.
  static CsrMatrix allocate(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                            DType value_dtype, DType index_dtype, Device device,
                            void* stream = nullptr);

  /// A copy of `a` on `device` (same dtypes). Checks the shape, not the structure.
  /// @note synchronizes `stream` when the copy lands in host memory.
  static CsrMatrix copy_of(CsrView const& a, Device device, void* stream = nullptr);

  CsrView view() const;
  operator CsrView() const { return view(); }

  /// The three arrays as 1 x n dense arrays: rows + 1 offsets, nnz indices, nnz values.
  Array& row_offsets() { return row_offsets_; }
  Array& col_indices() { return col_indices_; }
  Array& values() { return values_; }
  Array const& row_offsets() const { return row_offsets_; }
  Array const& col_indices() const { return col_indices_; }
  Array const& values() const { return values_; }

  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t nnz() const { return values_.cols(); }
  DType value_dtype() const { return value_dtype_; }
  DType index_dtype() const { return index_dtype_; }
  Device device() const { return row_offsets_.device(); }

 private:
  std::int64_t rows_ = 0;  // a default-constructed matrix is 0 x 0 and holds no arrays
  std::int64_t cols_ = 0;
  DType value_dtype_ = DType::kFloat32;
  DType index_dtype_ = DType::kInt32;
  Array row_offsets_;
  Array col_indices_;
  Array values_;
};

/// Whether make_spmv_plan and friends check the structure of a matrix (O(nnz) work).
enum class CsrCheck : std::uint8_t {
  kFull,       ///< shape, dtypes, pointers and the structure (offsets, column range)
  kShapeOnly,  ///< shape, dtypes and pointers: for matrices already known to be good
};

/// Checks `a`: non-negative shape, supported dtypes, sizes that fit the index dtype, non-null
/// arrays in one memory space (row_offsets may be null only when rows == 0), and (kFull)
/// row_offsets[0] == 0, row_offsets[rows] == nnz, non-decreasing offsets and 0 <= col_indices[k] <
/// cols. Unsorted and repeated columns are allowed (see the contract above). Device matrices are
/// checked on the GPU.
/// @throw InvalidArgument naming the first violation ("csr: row_offsets[7] = 12 is less than
///        row_offsets[6] = 15").
/// @note synchronizes res.stream when `a` is in device memory and check is kFull.
void validate_csr(Resources const& res, CsrView const& a, CsrCheck check = CsrCheck::kFull);

}  // namespace cudist::sparse
