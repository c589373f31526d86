// Readers and writers for the array files cudist's tools accept: NumPy .npy (format 1.0-3.0,
// C or Fortran order) and the TEXMEX .fvecs / .bvecs / .ivecs vector files.
#pragma once

#include <string>

#include "cudist/core/array.hpp"
#include "cudist/core/matrix_view.hpp"

namespace cudist::io {

/// Reads a 1-D (as 1 x n) or 2-D .npy file into host memory. Supported: float16/32/64, uint8,
/// bool (as uint8), int16/32/64, either byte order, C or Fortran order.
/// @throw FileError naming the file and what is wrong (missing, truncated, bad header, 3-D, ...).
Array read_npy(std::string const& path);

enum class NpyShape { kMatrix, kVector };

/// Writes m (host or device memory, any stride) as a C-order .npy file (format 1.0, or 2.0 when
/// the header needs it). kVector writes a 1-D array of m.rows * m.cols elements.
void write_npy(std::string const& path, ConstMatrixView m, NpyShape shape = NpyShape::kMatrix);

/// Reads .fvecs (float32), .bvecs (uint8) or .ivecs (int32), chosen by the file's extension:
/// each record is an int32 dimension followed by that many values; all records must agree.
Array read_vecs(std::string const& path);

/// read_npy or read_vecs by extension (.npy, .fvecs, .bvecs, .ivecs).
Array read_matrix(std::string const& path);

}  // namespace cudist::io
