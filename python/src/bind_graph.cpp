// Bindings of all-pairs shortest paths (include/cudist/graph/apsp.hpp): on dense weight matrices
// into outputs the Python wrapper allocates; on edge lists (include/cudist/sparse/triplets.hpp)
// and Matrix Market files (include/cudist/io/matrix_market.hpp) through the library's edge-list
// overload, which allocates the result; and the path reconstruction.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "array_views.hpp"
#include "bindings.hpp"
#include "interruptible_release.hpp"
#include "cudist/graph/apsp.hpp"
#include "cudist/io/matrix_market.hpp"
#include "cudist/sparse/triplets.hpp"
#include "result_arrays.hpp"

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
  Resources const res(DeviceSet::parse(device), reinterpret_cast<void*>(stream));
  expect_reachable(weights_array, res.device, "apsp: weights");
  expect_reachable(dist_array, res.device, "apsp: out");
  ApspOptions options;
  options.directed = directed;
  if (next) {
    options.next = matrix_view(*next, "apsp: next");
    expect_reachable(*next, res.device, "apsp: next");
  }
  InterruptibleRelease released;
  apsp(res, weights, dist, options);
}

/// Edge lists as the Python wrapper hands them over: int64 vertices and float64 weights (host).
using VertexArray = nb::ndarray<std::int64_t const, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using WeightArray = nb::ndarray<double const, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// (dist, next or None) of the graph `edges`, as `framework` arrays on `home`. The library
/// allocates dist; next is allocated here, since the library takes it as an output view.
nb::tuple apsp_of_edges(sparse::Triplets const& edges, std::string const& dtype, bool directed,
                        bool next_hops, std::string const& framework, std::string const& home,
                        std::string const& device, std::uintptr_t stream) {
  Resources const res(DeviceSet::parse(device), reinterpret_cast<void*>(stream));
  DType const result_dtype = dtype_from_name(dtype);
  ApspOptions options;
  options.directed = directed;
  std::optional<Array> next;
  if (next_hops) {
    next = Array::allocate(edges.rows, edges.rows, DType::kInt32, res.device, res.stream);
    options.next = next->view();
  }
  Array dist;
  {
    InterruptibleRelease released;
    dist = apsp(res, edges, result_dtype, options);
  }
  Device const to = Device::parse(home);
  return nb::make_tuple(
      to_framework(std::move(dist), framework, to, res.stream),
      next ? to_framework(std::move(*next), framework, to, res.stream) : nb::none());
}

nb::tuple apsp_edge_list(VertexArray const& u, VertexArray const& v, WeightArray const& w,
                         std::int64_t rows, std::int64_t cols, std::string const& dtype,
                         bool directed, bool next_hops, std::string const& framework,
                         std::string const& home, std::string const& device,
                         std::uintptr_t stream) {
  sparse::Triplets edges;
  edges.rows = rows;
  edges.cols = cols;
  edges.row.assign(u.data(), u.data() + u.size());
  edges.col.assign(v.data(), v.data() + v.size());
  edges.value.assign(w.data(), w.data() + w.size());
  return apsp_of_edges(edges, dtype, directed, next_hops, framework, home, device, stream);
}

nb::tuple apsp_file(std::string const& path, std::string const& dtype, bool directed,
                    bool next_hops, std::string const& framework, std::string const& home,
                    std::string const& device, std::uintptr_t stream) {
  sparse::Triplets edges;
  {
    InterruptibleRelease released;
    edges = io::read_matrix_market_triplets(path);
  }
  return apsp_of_edges(edges, dtype, directed, next_hops, framework, home, device, stream);
}

std::vector<std::int64_t> path_of(InputArray const& next, std::int64_t from, std::int64_t to) {
  ConstMatrixView const view = matrix_view(next, "apsp_path: next");
  InterruptibleRelease released;  // a device next-hop matrix is read back to the host
  return apsp_path(view, from, to);
}

}  // namespace

void bind_graph(nb::module_& m) {
  m.def("apsp", &apsp_into, "weights"_a, "out"_a, "directed"_a, "next"_a.none(), "device"_a,
        "stream"_a, "out = shortest path lengths of the weight matrix (optionally next hops).");
  m.def("apsp_edges", &apsp_edge_list, "u"_a, "v"_a, "w"_a, "rows"_a, "cols"_a, "dtype"_a,
        "directed"_a, "next_hops"_a, "framework"_a, "home"_a, "device"_a, "stream"_a,
        "(dist, next or None) of the graph with edges u[t] -> v[t] of weight w[t].");
  m.def("apsp_file", &apsp_file, "path"_a, "dtype"_a, "directed"_a, "next_hops"_a, "framework"_a,
        "home"_a, "device"_a, "stream"_a,
        "(dist, next or None) of the graph whose edges are a Matrix Market file's entries.");
  m.def("apsp_path", &path_of, "next"_a, "source"_a, "target"_a,
        "The vertices of a shortest path from source to target, read from a next-hop matrix.");
}

}  // namespace cudist::python
