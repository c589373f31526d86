// Bindings of knn, match and radius (include/cudist/neighbors/knn.hpp). knn writes into outputs
// the Python wrapper allocates with the caller's framework; match and radius size their results
// from the data, so theirs are the library's own arrays, handed over without a copy.
#include <cstdint>
#include <optional>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "array_views.hpp"
#include "bindings.hpp"
#include "cudist/neighbors/knn.hpp"
#include "metric_args.hpp"
#include "result_arrays.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace cudist::python {
namespace {

/// The query and candidate rows of one call, checked, with where it runs.
struct Rows {
  ConstMatrixView x, y;
  Resources res;
};

Rows rows_of(char const* who, InputArray const& xa, InputArray const& xb, std::string const& device,
             std::uintptr_t stream) {
  std::string const who_s(who);
  Rows r{matrix_view(xa, (who_s + ": XA").c_str()), matrix_view(xb, (who_s + ": XB").c_str()),
         Resources(Device::parse(device), reinterpret_cast<void*>(stream))};
  expect_distance_dtypes(who, r.x, r.y, "XA", "XB");
  expect_reachable(xa, r.res.device, (who_s + ": XA").c_str());
  expect_reachable(xb, r.res.device, (who_s + ": XB").c_str());
  return r;
}

void knn_into(InputArray const& xa, InputArray const& xb, std::int64_t k,
              OutputArray const& distances, OutputArray const& indices, std::string const& metric,
              bool pad, std::string const& device, std::uintptr_t stream, double p,
              std::optional<ParamArray> const& w, std::optional<ParamArray> const& V,
              std::optional<ParamArray> const& VI) {
  Rows const r = rows_of("knn", xa, xb, device, stream);
  MatrixView const d = matrix_view(distances, "knn: distances");
  MatrixView const i = matrix_view(indices, "knn: indices");
  expect_reachable(distances, r.res.device, "knn: distances");
  expect_reachable(indices, r.res.device, "knn: indices");
  KnnOptions options;
  options.params = metric_params(p, w, V, VI);
  options.pad = pad;
  Metric const m = metric_from_name(metric);
  nb::gil_scoped_release released;
  knn(r.res, r.x, r.y, k, m, d, i, options);
}

nb::tuple match_of(InputArray const& xa, InputArray const& xb, std::string const& metric,
                   double ratio, bool mutual, double max_distance, std::string const& framework,
                   std::string const& home, std::string const& device, std::uintptr_t stream,
                   double p, std::optional<ParamArray> const& w,
                   std::optional<ParamArray> const& V, std::optional<ParamArray> const& VI) {
  Rows const r = rows_of("match", xa, xb, device, stream);
  MatchOptions options;
  options.ratio = ratio;
  options.mutual = mutual;
  options.max_distance = max_distance;
  options.params = metric_params(p, w, V, VI);
  Metric const m = metric_from_name(metric);
  MatchResult result;
  {
    nb::gil_scoped_release released;
    result = match(r.res, r.x, r.y, m, options);
  }
  Device const to = Device::parse(home);
  return nb::make_tuple(to_framework(std::move(result.pairs), framework, to, r.res.stream),
                        to_framework(std::move(result.distances), framework, to, r.res.stream));
}

nb::tuple radius_of(InputArray const& xa, InputArray const& xb, double radius_value,
                    std::string const& metric, std::string const& framework,
                    std::string const& home, std::string const& device, std::uintptr_t stream,
                    double p, std::optional<ParamArray> const& w,
                    std::optional<ParamArray> const& V, std::optional<ParamArray> const& VI) {
  Rows const r = rows_of("radius", xa, xb, device, stream);
  MetricParams const params = metric_params(p, w, V, VI);
  Metric const m = metric_from_name(metric);
  RadiusResult result;
  {
    nb::gil_scoped_release released;
    result = radius(r.res, r.x, r.y, radius_value, m, params);
  }
  Device const to = Device::parse(home);
  return nb::make_tuple(to_framework(std::move(result.offsets), framework, to, r.res.stream),
                        to_framework(std::move(result.indices), framework, to, r.res.stream),
                        to_framework(std::move(result.distances), framework, to, r.res.stream));
}

}  // namespace

void bind_neighbors(nb::module_& m) {
  m.def("knn", &knn_into, "XA"_a, "XB"_a, "k"_a, "distances"_a, "indices"_a, "metric"_a, "pad"_a,
        "device"_a, "stream"_a, "p"_a, "w"_a.none(), "V"_a.none(), "VI"_a.none(),
        "The k nearest rows of XB per row of XA into (mA, k) distances and int64 indices.");
  m.def("match", &match_of, "XA"_a, "XB"_a, "metric"_a, "ratio"_a, "mutual"_a, "max_distance"_a,
        "framework"_a, "home"_a, "device"_a, "stream"_a, "p"_a, "w"_a.none(), "V"_a.none(),
        "VI"_a.none(),
        "Ratio-test matches: ((count, 2) int64 pairs, (count, 1) distances) as `framework` "
        "arrays on `home`.");
  m.def("radius", &radius_of, "XA"_a, "XB"_a, "r"_a, "metric"_a, "framework"_a, "home"_a,
        "device"_a, "stream"_a, "p"_a, "w"_a.none(), "V"_a.none(), "VI"_a.none(),
        "Pairs within r as CSR: ((1, mA+1) offsets, (1, count) indices, (1, count) distances).");
}

}  // namespace cudist::python
