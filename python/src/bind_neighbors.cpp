// Bindings of knn, self_knn, match and radius and of the batched knn and match
// (include/cudist/neighbors/knn.hpp). knn writes into outputs the Python wrapper allocates with the
// caller's framework; the other functions exist in C++ only in forms that allocate their results
// (match, radius and the batched match size theirs from the data), so theirs are the library's own
// arrays, handed over without a copy.
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
#include "cudist/neighbors/knn.hpp"
#include "metric_args.hpp"
#include "result_arrays.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace cudist::python {
namespace {

/// Batch offsets as the Python wrappers hand them over: int64 NumPy vectors.
using OffsetArray = nb::ndarray<std::int64_t const, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// The query and candidate rows of one call, checked, with where it runs.
struct Rows {
  ConstMatrixView x, y;
  Resources res;
};

ConstMatrixView rows_view(InputArray const& a, char const* who, char const* name, Device device) {
  std::string const what = std::string(who) + ": " + name;
  ConstMatrixView const view = matrix_view(a, what.c_str());
  expect_reachable(a, device, what.c_str());
  return view;
}

Rows rows_of(char const* who, InputArray const& xa, InputArray const& xb, std::string const& device,
             std::uintptr_t stream) {
  Resources const res(DeviceSet::parse(device), reinterpret_cast<void*>(stream));
  ConstMatrixView const x = rows_view(xa, who, "XA", res.device), y = rows_view(xb, who, "XB", res.device);
  expect_distance_dtypes(who, x, y, "XA", "XB");
  return Rows{x, y, res};
}

Batch batch_of(OffsetArray const& xa_offsets, OffsetArray const& xb_offsets) {
  auto const values = [](OffsetArray const& a) {
    return std::vector<std::int64_t>(a.data(), a.data() + a.size());
  };
  return {values(xa_offsets), values(xb_offsets)};
}

/// The library's result arrays as a tuple of `framework` arrays on `home`.
template <class... Arrays>
nb::tuple handed_over(std::string const& framework, std::string const& home, void* stream,
                      Arrays&&... arrays) {
  Device const to = Device::parse(home);
  return nb::make_tuple(to_framework(std::move(arrays), framework, to, stream)...);
}

KnnOptions knn_options(bool pad, MetricParams params, bool rank_values = false) {
  KnnOptions options;
  options.params = std::move(params);
  options.pad = pad;
  options.rank_values = rank_values;
  return options;
}

MatchOptions match_options(double ratio, bool mutual, double max_distance, MetricParams params) {
  MatchOptions options;
  options.ratio = ratio;
  options.mutual = mutual;
  options.max_distance = max_distance;
  options.params = std::move(params);
  return options;
}

void knn_into(InputArray const& xa, InputArray const& xb, std::int64_t k,
              OutputArray const& distances, OutputArray const& indices, std::string const& metric,
              bool pad, std::string const& device, std::uintptr_t stream, double p,
              std::optional<ParamArray> const& w, std::optional<ParamArray> const& V,
              std::optional<ParamArray> const& VI, std::uint64_t memory_budget, bool rank_values) {
  Rows r = rows_of("knn", xa, xb, device, stream);
  r.res.memory_budget = memory_budget;
  MatrixView const d = matrix_view(distances, "knn: distances");
  MatrixView const i = matrix_view(indices, "knn: indices");
  expect_reachable(distances, r.res.device, "knn: distances");
  expect_reachable(indices, r.res.device, "knn: indices");
  KnnOptions const options = knn_options(pad, metric_params(p, w, V, VI), rank_values);
  Metric const m = metric_from_name(metric);
  InterruptibleRelease released;
  knn(r.res, r.x, r.y, k, m, d, i, options);
}

/// merge_knn of host arrays: cudist.dask's merges of its blocks' answers.
void merge_knn_into(std::vector<InputArray> const& part_distances, std::vector<InputArray> const& part_indices,
                    std::int64_t k, std::string const& metric, double p, bool parts_rank_values, bool rank_values,
                    OutputArray const& distances, OutputArray const& indices) {
  std::vector<ConstMatrixView> d, i;
  for (std::size_t q = 0; q < part_distances.size(); ++q) {
    d.push_back(matrix_view(part_distances[q], ("merge_knn: part_distances[" + std::to_string(q) + "]").c_str()));
  }
  for (std::size_t q = 0; q < part_indices.size(); ++q) {
    i.push_back(matrix_view(part_indices[q], ("merge_knn: part_indices[" + std::to_string(q) + "]").c_str()));
  }
  KnnMergeOptions options;
  options.params.p = p;
  options.parts_rank_values = parts_rank_values;
  options.rank_values = rank_values;
  MatrixView const out_d = matrix_view(distances, "merge_knn: distances");
  MatrixView const out_i = matrix_view(indices, "merge_knn: indices");
  Metric const m = metric_from_name(metric);
  nb::gil_scoped_release released;
  merge_knn(d, i, k, m, out_d, out_i, options);
}

nb::tuple self_knn_of(InputArray const& x_array, std::int64_t k, std::string const& metric,
                      bool exclude_self, bool pad, std::string const& framework,
                      std::string const& home, std::string const& device, std::uintptr_t stream,
                      double p, std::optional<ParamArray> const& w,
                      std::optional<ParamArray> const& V, std::optional<ParamArray> const& VI) {
  Resources const res(DeviceSet::parse(device), reinterpret_cast<void*>(stream));
  ConstMatrixView const x = rows_view(x_array, "self_knn", "X", res.device);
  expect_distance_dtypes("self_knn", x, x, "X", "X");
  KnnOptions const options = knn_options(pad, metric_params(p, w, V, VI));
  Metric const m = metric_from_name(metric);
  SelfJoin const self = exclude_self ? SelfJoin::kExcludeSelf : SelfJoin::kIncludeSelf;
  KnnResult result;
  {
    InterruptibleRelease released;
    result = self_knn(res, x, k, m, self, options);
  }
  return handed_over(framework, home, res.stream, std::move(result.distances),
                     std::move(result.indices));
}

nb::tuple knn_batched_of(InputArray const& xa, InputArray const& xb, OffsetArray const& xa_offsets,
                         OffsetArray const& xb_offsets, std::int64_t k, std::string const& metric,
                         bool pad, std::string const& framework, std::string const& home,
                         std::string const& device, std::uintptr_t stream, double p,
                         std::optional<ParamArray> const& w, std::optional<ParamArray> const& V,
                         std::optional<ParamArray> const& VI) {
  Rows const r = rows_of("knn_batched", xa, xb, device, stream);
  Batch const batch = batch_of(xa_offsets, xb_offsets);
  KnnOptions const options = knn_options(pad, metric_params(p, w, V, VI));
  Metric const m = metric_from_name(metric);
  KnnResult result;
  {
    InterruptibleRelease released;
    result = knn_batched(r.res, r.x, r.y, batch, k, m, options);
  }
  return handed_over(framework, home, r.res.stream, std::move(result.distances),
                     std::move(result.indices));
}

nb::tuple match_of(InputArray const& xa, InputArray const& xb,
                   std::optional<OffsetArray> const& xa_offsets,
                   std::optional<OffsetArray> const& xb_offsets, std::string const& metric,
                   double ratio, bool mutual, double max_distance, std::string const& framework,
                   std::string const& home, std::string const& device, std::uintptr_t stream,
                   double p, std::optional<ParamArray> const& w, std::optional<ParamArray> const& V,
                   std::optional<ParamArray> const& VI) {
  bool const batched = xa_offsets.has_value();  // the wrappers pass both offsets or neither
  Rows const r = rows_of(batched ? "match_batched" : "match", xa, xb, device, stream);
  MatchOptions const options =
      match_options(ratio, mutual, max_distance, metric_params(p, w, V, VI));
  Metric const m = metric_from_name(metric);
  std::optional<Batch> const batch =
      batched ? std::optional<Batch>(batch_of(*xa_offsets, *xb_offsets)) : std::nullopt;
  MatchResult result;
  {
    InterruptibleRelease released;
    result = batch ? match_batched(r.res, r.x, r.y, *batch, m, options)
                   : match(r.res, r.x, r.y, m, options);
  }
  return handed_over(framework, home, r.res.stream, std::move(result.pairs),
                     std::move(result.distances), std::move(result.offsets));
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
    InterruptibleRelease released;
    result = radius(r.res, r.x, r.y, radius_value, m, params);
  }
  return handed_over(framework, home, r.res.stream, std::move(result.offsets),
                     std::move(result.indices), std::move(result.distances));
}

}  // namespace

void bind_neighbors(nb::module_& m) {
  m.def("knn", &knn_into, "XA"_a, "XB"_a, "k"_a, "distances"_a, "indices"_a, "metric"_a, "pad"_a,
        "device"_a, "stream"_a, "p"_a, "w"_a.none(), "V"_a.none(), "VI"_a.none(), "memory_budget"_a = 0,
        "rank_values"_a = false,
        "The k nearest rows of XB per row of XA into (mA, k) distances and int64 indices; an XB in "
        "host memory beyond memory_budget bytes (0: the GPU's free memory) is streamed in chunks; "
        "rank_values: the values ranked (euclidean's squares) instead of distances.");
  m.def("merge_knn", &merge_knn_into, "part_distances"_a, "part_indices"_a, "k"_a, "metric"_a, "p"_a,
        "parts_rank_values"_a, "rank_values"_a, "distances"_a, "indices"_a,
        "The k best per row over knn answers of parts of one database (host arrays, indices already "
        "global) into (m, w) distances and int64 indices, ranked as one knn call ranks.");
  m.def(
      "ranks_on_squares",
      [](std::string const& metric, double p) {
        MetricParams params;
        params.p = p;
        return ranks_on_squares(metric_from_name(metric), params);
      },
      "metric"_a, "p"_a,
      "Whether knn ranks the metric on the squares of its distances (its rank_values are those).");
  m.def("self_knn", &self_knn_of, "X"_a, "k"_a, "metric"_a, "exclude_self"_a, "pad"_a,
        "framework"_a, "home"_a, "device"_a, "stream"_a, "p"_a, "w"_a.none(), "V"_a.none(),
        "VI"_a.none(),
        "The k nearest rows of X per row of X: ((m, k) distances, (m, k) int64 indices).");
  m.def("knn_batched", &knn_batched_of, "XA"_a, "XB"_a, "XA_offsets"_a, "XB_offsets"_a, "k"_a,
        "metric"_a, "pad"_a, "framework"_a, "home"_a, "device"_a, "stream"_a, "p"_a, "w"_a.none(),
        "V"_a.none(), "VI"_a.none(),
        "knn per problem of a batch: ((mA, k) distances, (mA, k) problem-local indices).");
  m.def("match", &match_of, "XA"_a, "XB"_a, "XA_offsets"_a.none(), "XB_offsets"_a.none(),
        "metric"_a, "ratio"_a, "mutual"_a, "max_distance"_a, "framework"_a, "home"_a, "device"_a,
        "stream"_a, "p"_a, "w"_a.none(), "V"_a.none(), "VI"_a.none(),
        "Ratio-test matches, per problem when offsets are given: ((count, 2) int64 pairs, "
        "(count, 1) distances, (1, problems + 1) int64 offsets) as `framework` arrays on `home`.");
  m.def("radius", &radius_of, "XA"_a, "XB"_a, "r"_a, "metric"_a, "framework"_a, "home"_a,
        "device"_a, "stream"_a, "p"_a, "w"_a.none(), "V"_a.none(), "VI"_a.none(),
        "Pairs within r as CSR: ((1, mA+1) offsets, (1, count) indices, (1, count) distances).");
}

}  // namespace cudist::python
