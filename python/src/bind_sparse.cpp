// Bindings of CSR sparse-dense products (include/cudist/sparse/spmv.hpp): y = alpha op(A) x +
// beta y for a vector x (spmv) or a row-major matrix X (spmm), into an output the Python wrapper
// allocates. A arrives as its three CSR arrays (scipy.sparse, torch.sparse_csr, cupyx), in place.
#include <cstdint>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include "array_views.hpp"
#include "bindings.hpp"
#include "cudist/sparse/spmv.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace cudist::python {
namespace {

sparse::CsrView csr_of(InputArray const& indptr, InputArray const& indices,
                       InputArray const& values, std::int64_t rows, std::int64_t cols) {
  ConstMatrixView const o = row_vector_view(indptr, "spmv: A.indptr");
  ConstMatrixView const i = row_vector_view(indices, "spmv: A.indices");
  ConstMatrixView const v = row_vector_view(values, "spmv: A.data");
  bool const index_ok =
      (o.dtype == DType::kInt32 || o.dtype == DType::kInt64) && i.dtype == o.dtype;
  if (!index_ok) {
    throw nb::type_error(("spmv: A's index arrays are " + std::string(dtype_name(o.dtype)) +
                          " and " + std::string(dtype_name(i.dtype)) +
                          "; both must be int32 or both int64")
                             .c_str());
  }
  if (v.dtype != DType::kFloat32 && v.dtype != DType::kFloat64) {
    throw nb::type_error(("spmv: A's values are " + std::string(dtype_name(v.dtype)) +
                          "; sparse products take float32 or float64 values")
                             .c_str());
  }
  return {rows, cols, v.cols, o.data, i.data, v.data, o.dtype, v.dtype, o.memory};
}

void product_into(InputArray const& indptr, InputArray const& indices, InputArray const& values,
                  std::int64_t rows, std::int64_t cols, InputArray const& x_array,
                  OutputArray const& y_array, double alpha, double beta, bool transpose,
                  std::string const& device, std::uintptr_t stream) {
  sparse::CsrView const a = csr_of(indptr, indices, values, rows, cols);
  bool const vector = x_array.ndim() == 1;
  ConstMatrixView const x = vector ? row_vector_view(x_array, "spmv: x")
                                   : matrix_view(x_array, "spmm: X");
  MatrixView const y = vector ? row_vector_view(y_array, "spmv: y")
                              : matrix_view(y_array, "spmm: Y");
  Resources const res(Device::parse(device), reinterpret_cast<void*>(stream));
  expect_reachable(values, res.device, "spmv: A");
  expect_reachable(x_array, res.device, "spmv: x");
  expect_reachable(y_array, res.device, "spmv: y");
  auto const op = transpose ? sparse::Operation::kTranspose : sparse::Operation::kNone;
  nb::gil_scoped_release released;
  if (vector) {
    sparse::spmv(res, a, x, y, alpha, beta, op);
  } else {
    sparse::spmm(res, a, x, y, alpha, beta, sparse::Layout::kRowMajor, op);
  }
}

}  // namespace

void bind_sparse(nb::module_& m) {
  m.def("sparse_product", &product_into, "indptr"_a, "indices"_a, "data"_a, "rows"_a, "cols"_a,
        "x"_a, "y"_a, "alpha"_a, "beta"_a, "transpose"_a, "device"_a, "stream"_a,
        "y = alpha op(A) x + beta y for the CSR matrix A; x 1-D (spmv) or 2-D row-major (spmm).");
}

}  // namespace cudist::python
