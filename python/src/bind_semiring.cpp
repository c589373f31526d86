// Bindings of semiring_product (include/cudist/semiring/semiring.hpp): C = A (x) B over a
// semiring, into an output (and optional witness) the Python wrapper allocates.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "array_views.hpp"
#include "bindings.hpp"
#include "interruptible_release.hpp"
#include "cudist/semiring/semiring.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace cudist::python {
namespace {

/// Semirings are defined on float32, float64, int32 and int16 matrices of one dtype; anything
/// else is a TypeError in Python's terms.
void expect_semiring_dtypes(ConstMatrixView a, ConstMatrixView b) {
  bool const supported = a.dtype == DType::kFloat32 || a.dtype == DType::kFloat64 ||
                         a.dtype == DType::kInt32 || a.dtype == DType::kInt16;
  if (!supported) {
    throw nb::type_error(("semiring_product: A has dtype " + std::string(dtype_name(a.dtype)) +
                          "; semiring products take float32, float64, int32 and int16 matrices")
                             .c_str());
  }
  if (a.dtype != b.dtype) {
    throw nb::type_error(("semiring_product: A is " + std::string(dtype_name(a.dtype)) +
                          " but B is " + std::string(dtype_name(b.dtype)) +
                          "; convert one of them")
                             .c_str());
  }
}

void product_into(InputArray const& a_array, InputArray const& b_array, OutputArray const& c_array,
                  std::string const& semiring, bool accumulate,
                  std::optional<OutputArray> const& witness, std::string const& device,
                  std::uintptr_t stream) {
  ConstMatrixView const a = matrix_view(a_array, "semiring_product: A");
  ConstMatrixView const b = matrix_view(b_array, "semiring_product: B");
  MatrixView const c = matrix_view(c_array, "semiring_product: out");
  expect_semiring_dtypes(a, b);
  Resources const res(DeviceSet::parse(device), reinterpret_cast<void*>(stream));
  expect_reachable(a_array, res.device, "semiring_product: A");
  expect_reachable(b_array, res.device, "semiring_product: B");
  expect_reachable(c_array, res.device, "semiring_product: out");
  SemiringOptions options;
  options.accumulate = accumulate;
  if (witness) {
    options.witness = matrix_view(*witness, "semiring_product: witness");
    expect_reachable(*witness, res.device, "semiring_product: witness");
  }
  Semiring const s = semiring_from_name(semiring);
  InterruptibleRelease released;
  semiring_product(res, a, b, c, s, options);
}

}  // namespace

void bind_semiring(nb::module_& m) {
  m.def(
      "semiring_names",
      [] {
        std::vector<std::string> names;
        for (Semiring s : all_semirings()) names.emplace_back(semiring_name(s));
        return names;
      },
      "Every semiring semiring_product computes, by name.");
  m.def("semiring_product", &product_into, "A"_a, "B"_a, "out"_a, "semiring"_a, "accumulate"_a,
        "witness"_a.none(), "device"_a, "stream"_a,
        "out = A (x) B over the named semiring (out (+)= with accumulate), witness: argmin k.");
}

}  // namespace cudist::python
