// From arrays that nanobind imports through DLPack (NumPy, PyTorch, CuPy, JAX, ...) to cudist's
// row-major views, without copying: data pointer, dtype, memory space, shape and row stride are
// read off the DLPack descriptor.
//
// Layout rule: a matrix must have unit stride along its columns; any row stride >= the number of
// columns is fine (row slices, column slices, padded rows). Column-major, transposed or otherwise
// element-strided arrays are rejected with a ValueError that says how to make them row-major: a
// hidden copy would break the zero-copy promise and, on a GPU, allocate behind the caller's back.
// bool arrays are read as uint8 (NumPy, PyTorch and CuPy store True as the byte 1).
#pragma once

#include <nanobind/ndarray.h>

#include "cudist/core/device.hpp"
#include "cudist/core/matrix_view.hpp"

namespace cudist::python {

using InputArray = nanobind::ndarray<nanobind::ro>;  ///< read by cudist
using OutputArray = nanobind::ndarray<>;             ///< written by cudist

/// A 2-D array as a (rows, cols) view. `what` names the array in errors ("cdist: XA").
/// @throw ValueError on another number of dimensions or a layout a view cannot describe;
///        TypeError on a dtype cudist does not know.
ConstMatrixView matrix_view(InputArray const& a, char const* what);
MatrixView matrix_view(OutputArray const& a, char const* what);

/// A 1-D array with unit stride as a (1, n) view.
ConstMatrixView row_vector_view(InputArray const& a, char const* what);
MatrixView row_vector_view(OutputArray const& a, char const* what);

/// @throw ValueError when `a` is in the memory of another GPU than the one `device` names:
/// a kernel on one GPU must not be handed another GPU's pointers.
void expect_reachable(InputArray const& a, Device device, char const* what);
void expect_reachable(OutputArray const& a, Device device, char const* what);

}  // namespace cudist::python
