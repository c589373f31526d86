// Bindings of cdist and pdist (include/cudist/distance/pairwise.hpp) and of the metric names.
// The wrappers in cudist/distance.py allocate the output with the caller's array framework and
// pass it in; these functions only translate arguments and call the C++ API into that output.
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
#include "metric_args.hpp"
#include "cudist/distance/pairwise.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace cudist::python {
namespace {

void cdist_into(InputArray const& xa, InputArray const& xb, OutputArray const& out,
                std::string const& metric, std::string const& device, std::uintptr_t stream,
                double p, std::optional<ParamArray> const& w, std::optional<ParamArray> const& V,
                std::optional<ParamArray> const& VI, std::uint64_t memory_budget, std::string const& precision) {
  ConstMatrixView const x = matrix_view(xa, "cdist: XA");
  ConstMatrixView const y = matrix_view(xb, "cdist: XB");
  MatrixView const o = matrix_view(out, "cdist: out");
  expect_distance_dtypes("cdist", x, y, "XA", "XB");
  Resources res(DeviceSet::parse(device), reinterpret_cast<void*>(stream));
  res.memory_budget = memory_budget;
  expect_reachable(xa, res.device, "cdist: XA");
  expect_reachable(xb, res.device, "cdist: XB");
  expect_reachable(out, res.device, "cdist: out");
  Metric const m = metric_from_name(metric);
  MetricParams params = metric_params(p, w, V, VI);
  params.precision = precision_from_name(precision);
  InterruptibleRelease released;
  cdist(res, x, y, o, m, params);
}

void pdist_into(InputArray const& xa, OutputArray const& out, std::string const& metric,
                std::string const& device, std::uintptr_t stream, double p,
                std::optional<ParamArray> const& w, std::optional<ParamArray> const& V,
                std::optional<ParamArray> const& VI, std::uint64_t memory_budget, std::string const& precision) {
  ConstMatrixView const x = matrix_view(xa, "pdist: X");
  MatrixView const o = row_vector_view(out, "pdist: out");
  expect_distance_dtypes("pdist", x, x, "X", "X");
  Resources res(DeviceSet::parse(device), reinterpret_cast<void*>(stream));
  res.memory_budget = memory_budget;
  expect_reachable(xa, res.device, "pdist: X");
  expect_reachable(out, res.device, "pdist: out");
  Metric const m = metric_from_name(metric);
  MetricParams params = metric_params(p, w, V, VI);
  params.precision = precision_from_name(precision);
  InterruptibleRelease released;
  pdist(res, x, o, m, params);
}

}  // namespace

void bind_distance(nb::module_& m) {
  m.def(
      "canonical_metric", [](std::string const& name) {
        return std::string(metric_name(metric_from_name(name)));
      },
      "name"_a, "scipy's name of a metric given by its name or an alias; ValueError if unknown.");
  m.def(
      "metric_names",
      [] {
        std::vector<std::string> names;
        for (Metric metric : all_metrics()) names.emplace_back(metric_name(metric));
        return names;
      },
      "Every metric cdist and pdist compute, by scipy's name.");
  m.def("cdist", &cdist_into, "XA"_a, "XB"_a, "out"_a, "metric"_a, "device"_a, "stream"_a, "p"_a,
        "w"_a.none(), "V"_a.none(), "VI"_a.none(), "memory_budget"_a = 0, "precision"_a = "exact",
        "out[i, j] = metric(XA[i], XB[j]) on `device`, enqueued on `stream` (a cudaStream_t); an "
        "out in host memory beyond memory_budget bytes (0: the GPU's free memory) is streamed to "
        "in windows of rows; precision 'exact' or 'tf32'.");
  m.def("pdist", &pdist_into, "X"_a, "out"_a, "metric"_a, "device"_a, "stream"_a, "p"_a,
        "w"_a.none(), "V"_a.none(), "VI"_a.none(), "memory_budget"_a = 0, "precision"_a = "exact",
        "Condensed distances of the rows of X into the 1-D out, in scipy's order.");
}

}  // namespace cudist::python
