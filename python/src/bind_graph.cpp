// Bindings of all-pairs shortest paths (include/cudist/graph/apsp.hpp) on dense weight matrices,
// into outputs the Python wrapper allocates, and of the path reconstruction.
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
#include "cudist/graph/apsp.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace cudist::python {
namespace {

void apsp_into(InputArray const& weights_array, OutputArray const& dist_array, bool directed,
               std::optional<OutputArray> const& next, std::string const& device,
               std::uintptr_t stream) {
  ConstMatrixView const weights = matrix_view(weights_array, "apsp: weights");
  MatrixView const dist = matrix_view(dist_array, "apsp: out");
  if (weights.dtype != DType::kFloat32 && weights.dtype != DType::kFloat64) {
    throw nb::type_error(("apsp: weights have dtype " + std::string(dtype_name(weights.dtype)) +
                          "; shortest paths take float32 or float64 weights")
                             .c_str());
  }
  Resources const res(Device::parse(device), reinterpret_cast<void*>(stream));
  expect_reachable(weights_array, res.device, "apsp: weights");
  expect_reachable(dist_array, res.device, "apsp: out");
  ApspOptions options;
  options.directed = directed;
  if (next) {
    options.next = matrix_view(*next, "apsp: next");
    expect_reachable(*next, res.device, "apsp: next");
  }
  nb::gil_scoped_release released;
  apsp(res, weights, dist, options);
}

std::vector<std::int64_t> path_of(InputArray const& next, std::int64_t from, std::int64_t to) {
  ConstMatrixView const view = matrix_view(next, "apsp_path: next");
  nb::gil_scoped_release released;  // a device next-hop matrix is read back to the host
  return apsp_path(view, from, to);
}

}  // namespace

void bind_graph(nb::module_& m) {
  m.def("apsp", &apsp_into, "weights"_a, "out"_a, "directed"_a, "next"_a.none(), "device"_a,
        "stream"_a, "out = shortest path lengths of the weight matrix (optionally next hops).");
  m.def("apsp_path", &path_of, "next"_a, "source"_a, "target"_a,
        "The vertices of a shortest path from source to target, read from a next-hop matrix.");
}

}  // namespace cudist::python
