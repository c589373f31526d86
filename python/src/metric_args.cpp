#include "metric_args.hpp"

#include <string>
#include <vector>

namespace nb = nanobind;

namespace cudist::python {
namespace {

std::vector<double> values(std::optional<ParamArray> const& a, std::size_t ndim,
                           char const* name) {
  if (!a) return {};
  bool const square = ndim != 2 || (a->ndim() == 2 && a->shape(0) == a->shape(1));
  if (a->ndim() != ndim || !square) {
    throw nb::value_error((std::string(name) +
                           (ndim == 1 ? " must be a 1-dimensional array"
                                      : " must be a square 2-dimensional array"))
                              .c_str());
  }
  return {a->data(), a->data() + a->size()};
}

}  // namespace

MetricParams metric_params(double p, std::optional<ParamArray> const& w,
                           std::optional<ParamArray> const& V, std::optional<ParamArray> const& VI) {
  MetricParams params;
  params.p = p;
  params.w = values(w, 1, "w");
  params.V = values(V, 1, "V");
  params.VI = values(VI, 2, "VI");
  return params;
}

void expect_distance_dtypes(char const* who, ConstMatrixView x, ConstMatrixView y,
                            char const* x_name, char const* y_name) {
  if (!is_floating(x.dtype) && x.dtype != DType::kUInt8 && x.dtype != DType::kInt8) {
    throw nb::type_error((std::string(who) + ": " + x_name + " has dtype " +
                          std::string(dtype_name(x.dtype)) +
                          "; cudist computes distances of float16, bfloat16, float32, float64, "
                          "uint8, int8 and bool arrays (convert with .astype)")
                             .c_str());
  }
  if (x.dtype != y.dtype) {
    throw nb::type_error((std::string(who) + ": " + x_name + " is " +
                          std::string(dtype_name(x.dtype)) + " but " + y_name + " is " +
                          std::string(dtype_name(y.dtype)) + "; convert one of them")
                             .c_str());
  }
}

}  // namespace cudist::python
