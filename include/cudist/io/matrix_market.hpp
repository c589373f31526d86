// Matrix Market (.mtx) files: the NIST text format of the SuiteSparse collection
// (https://math.nist.gov/MatrixMarket/formats.html).
//
// Read: coordinate and array formats; real, integer and pattern fields (pattern entries read as
// 1); general, symmetric and skew-symmetric matrices. Indices are 1-based and checked; symmetric
// files must store the lower triangle (skew-symmetric: strictly lower), which is mirrored on
// reading; repeated coordinate entries are kept as triplets and summed by the conversions.
// Complex and hermitian files are rejected. Every malformed file raises FileError naming the
// file, the line and what is wrong.
//
// Write: a CSR matrix as "coordinate real general", a dense matrix as "array real general",
// with 17 (float64) or 9 (float32) significant digits, so that reading back is exact.
#pragma once

#include <cstdint>
#include <string>

#include "cudist/core/array.hpp"
#include "cudist/core/dtype.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/sparse/csr.hpp"
#include "cudist/sparse/triplets.hpp"

namespace cudist::io {

enum class MtxFormat : std::uint8_t { kCoordinate, kArray };
enum class MtxField : std::uint8_t { kReal, kInteger, kPattern };
enum class MtxSymmetry : std::uint8_t { kGeneral, kSymmetric, kSkewSymmetric };

/// The banner and size line of a .mtx file.
struct MtxHeader {
  MtxFormat format = MtxFormat::kCoordinate;
  MtxField field = MtxField::kReal;
  MtxSymmetry symmetry = MtxSymmetry::kGeneral;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t stored_entries = 0;  ///< entries in the file (before mirroring symmetry)
};

/// Reads only the banner and the size line. @throw FileError.
MtxHeader read_matrix_market_header(std::string const& path);

/// Every entry of any .mtx file as 0-based triplets, symmetry expanded (an off-diagonal stored
/// entry (i, j, v) also yields (j, i, v), or (j, i, -v) when skew-symmetric). Array files yield
/// every position, zeros included. @throw FileError.
sparse::Triplets read_matrix_market_triplets(std::string const& path);

/// A .mtx file as a host CSR matrix (sorted columns, duplicates summed). @throw FileError, and
/// InvalidArgument when the matrix does not fit index_dtype.
sparse::CsrMatrix read_matrix_market(std::string const& path, DType value_dtype = DType::kFloat64,
                                     DType index_dtype = DType::kInt32);

/// A .mtx file as a dense host array; positions not stored in a coordinate file hold `missing`.
/// @throw FileError.
Array read_matrix_market_dense(std::string const& path, DType dtype = DType::kFloat64,
                               double missing = 0.0);

/// Writes `a` (host or device memory) as "coordinate real general", entries in CSR order.
/// @throw FileError when the file cannot be written.
void write_matrix_market(std::string const& path, sparse::CsrView const& a);

/// Writes `m` (float32 or float64, host or device memory) as "array real general".
void write_matrix_market(std::string const& path, ConstMatrixView m);

}  // namespace cudist::io
