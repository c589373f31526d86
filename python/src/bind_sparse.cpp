// Bindings of CSR sparse-dense products (include/cudist/sparse/spmv.hpp) through plans: a plan
// (make_spmv_plan) analyses A once, then computes y = alpha op(A) x + beta y for a vector x
// (spmv) or a row-major matrix X (spmm), or y = min(y, op(A) (min,+) x) (spmv_min_plus), into
// outputs the Python wrapper allocates. The one-shot Python functions make a plan per call, as
// the C++ one-shot overloads do. A arrives as its three CSR arrays (scipy.sparse,
// torch.sparse_csr, cupyx), in place.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include "array_views.hpp"
#include "bindings.hpp"
#include "interruptible_release.hpp"
#include "cudist/core/array.hpp"
#include "cudist/sparse/spmv.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace cudist::python {
namespace {

/// A plan with the arrays of A it was made from. The plan reads A's arrays in place when they
/// already live in its memory; holding them here keeps them alive as long as the plan.
struct Plan {
  sparse::SpmvPlan plan;
  InputArray indptr, indices, values;
};

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

Plan make_plan(InputArray const& indptr, InputArray const& indices, InputArray const& values,
               std::int64_t rows, std::int64_t cols, bool transpose, std::string const& device,
               std::uintptr_t stream) {
  sparse::CsrView const a = csr_of(indptr, indices, values, rows, cols);
  Resources const res(DeviceSet::parse(device), reinterpret_cast<void*>(stream));
  expect_reachable(values, res.device, "spmv: A");
  sparse::SpmvPlanOptions options;
  options.op = transpose ? sparse::Operation::kTranspose : sparse::Operation::kNone;
  sparse::SpmvPlan plan;
  {
    InterruptibleRelease released;
    plan = sparse::make_spmv_plan(res, a, options);
  }
  return {std::move(plan), indptr, indices, values};  // copying the arrays takes the GIL
}

/// Whether `v` lies in other memory than the plan computes in: NumPy arrays with device=, or
/// device arrays for a CPU plan. The library reads only its own memory, so these are staged.
bool foreign(ConstMatrixView v, Device device) {
  Memory const own = device.is_cuda() ? Memory::kDevice : Memory::kHost;
  return v.memory != Memory::kAuto && v.memory != own;  // managed memory is reachable anywhere
}

enum class Product : std::uint8_t { kSpmv, kSpmm, kMinPlus };

void run(Resources const& res, sparse::SpmvPlan const& plan, Product product, ConstMatrixView x,
         MatrixView y, double alpha, double beta) {
  switch (product) {
    case Product::kSpmv:
      return sparse::spmv(res, plan, x, y, alpha, beta);
    case Product::kSpmm:
      return sparse::spmm(res, plan, x, y, alpha, beta, sparse::Layout::kRowMajor);
    case Product::kMinPlus:
      return sparse::spmv_min_plus(res, plan, x, y);
  }
}

void product_into(Plan const& p, InputArray const& x_array, OutputArray const& y_array,
                  double alpha, double beta, bool min_plus, std::uintptr_t stream) {
  bool const vector = x_array.ndim() == 1;
  ConstMatrixView x =
      vector ? row_vector_view(x_array, "spmv: x") : matrix_view(x_array, "spmm: X");
  MatrixView const y =
      vector ? row_vector_view(y_array, "spmv: y") : matrix_view(y_array, "spmm: Y");
  Resources const res(p.plan.device(), reinterpret_cast<void*>(stream));
  expect_reachable(x_array, res.device, vector ? "spmv: x" : "spmm: X");
  expect_reachable(y_array, res.device, vector ? "spmv: y" : "spmm: Y");
  Product const product = min_plus ? Product::kMinPlus : vector ? Product::kSpmv : Product::kSpmm;
  InterruptibleRelease released;
  std::optional<Array> x_stage, y_stage;
  if (foreign(x, res.device)) {
    x_stage = Array::copy_of(x, res.device, res.stream);
    x = x_stage->view();
  }
  if (foreign(y, res.device)) {
    bool const reads_y = min_plus || beta != 0;
    y_stage = reads_y ? Array::copy_of(y, res.device, res.stream)
                      : Array::allocate(y.rows, y.cols, y.dtype, res.device, res.stream);
  }
  run(res, p.plan, product, x, y_stage ? y_stage->view() : y, alpha, beta);
  if (y_stage) copy(y_stage->view(), y, res.stream);
}

char const* algorithm_name(sparse::SpmvAlgorithm algorithm) {
  switch (algorithm) {
    case sparse::SpmvAlgorithm::kRowSplit:
      return "row_split";
    case sparse::SpmvAlgorithm::kThreadPerRow:
      return "thread_per_row";
    default:
      return "merge_path";
  }
}

}  // namespace

void bind_sparse(nb::module_& m) {
  nb::class_<Plan>(m, "SpmvPlan", "A CSR matrix analysed for products on one device.")
      .def_prop_ro("rows", [](Plan const& p) { return p.plan.rows(); })
      .def_prop_ro("cols", [](Plan const& p) { return p.plan.cols(); })
      .def_prop_ro("nnz", [](Plan const& p) { return p.plan.nnz(); })
      .def_prop_ro("dtype",
                   [](Plan const& p) { return std::string(dtype_name(p.plan.value_dtype())); })
      .def_prop_ro("device", [](Plan const& p) { return p.plan.device().str(); })
      .def_prop_ro("algorithm", [](Plan const& p) { return algorithm_name(p.plan.algorithm()); })
      .def("product", &product_into, "x"_a, "y"_a, "alpha"_a, "beta"_a, "min_plus"_a, "stream"_a,
           "y = alpha op(A) x + beta y (x 1-D: spmv, 2-D row-major: spmm), or with min_plus "
           "y = min(y, op(A) (min,+) x).");
  m.def("make_spmv_plan", &make_plan, "indptr"_a, "indices"_a, "data"_a, "rows"_a, "cols"_a,
        "transpose"_a, "device"_a, "stream"_a,
        "A plan for products with op(A), A given by its CSR arrays (kept alive by the plan).");
}

}  // namespace cudist::python
