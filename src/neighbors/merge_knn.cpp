// API layer of merge_knn: validate the parts and the result, then merge row by row on the host
// (ranked_merge.hpp, the merge a device set's shards also go through).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/detail/expects.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/validate_view.hpp"
#include "cudist/core/timeline.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/detail/plan.hpp"
#include "neighbors/detail/ranked_merge.hpp"

namespace cudist {
namespace {

using cudist::detail::expect_dtype;
using cudist::detail::expect_shape;
using cudist::detail::expect_valid_view;

void expect_host(char const* who, std::string const& name, ConstMatrixView v) {
  CUDIST_EXPECTS(cudist::detail::resolve_memory(v.data, v.memory) == Memory::kHost,
                 who << ": " << name << " is in device memory; merge_knn merges in host memory");
}

template <class T>
void merge_rows(std::vector<ConstMatrixView> const& part_distances, std::vector<ConstMatrixView> const& part_indices,
                std::int64_t k, neighbors::detail::RankedMerge how, MatrixView distances, MatrixView indices) {
  std::vector<neighbors::detail::RankedList<T>> lists;
  for (std::size_t p = 0; p < part_distances.size(); ++p) {
    ConstMatrixView const d = part_distances[p], i = part_indices[p];
    if (d.cols > 0) {
      lists.push_back({static_cast<T const*>(d.data), d.stride, static_cast<std::int64_t const*>(i.data), i.stride, d.cols});
    }
  }
  neighbors::detail::merge_ranked_rows<T>(lists, how, k, distances, indices);
}

}  // namespace

void merge_knn(std::vector<ConstMatrixView> const& part_distances,
               std::vector<ConstMatrixView> const& part_indices, std::int64_t k, Metric metric,
               MatrixView distances, MatrixView indices, KnnMergeOptions const& options) {
  char const* who = "merge_knn";
  cudist::TimelineSpan const span(who);
  CUDIST_EXPECTS(!part_distances.empty(), who << ": no parts to merge");
  CUDIST_EXPECTS(part_indices.size() == part_distances.size(),
                 who << ": " << part_distances.size() << " parts of distances but " << part_indices.size()
                     << " of indices");
  CUDIST_EXPECTS(k >= 1, who << ": k = " << k << "; k must be at least 1");
  CUDIST_EXPECTS(options.parts_rank_values || !options.rank_values,
                 who << ": rank_values asks for the merged rank values, but the parts hold distances "
                        "(set parts_rank_values: knn's rank_values)");
  std::int64_t const m = distances.rows;
  DType const dtype = part_distances.front().dtype;
  CUDIST_EXPECTS(dtype == DType::kFloat32 || dtype == DType::kFloat64,
                 who << ": part_distances[0] is " << dtype_name(dtype) << "; knn's distances are float32 or float64");
  std::int64_t columns = 0;
  for (std::size_t p = 0; p < part_distances.size(); ++p) {
    std::string const d = "part_distances[" + std::to_string(p) + "]";
    std::string const i = "part_indices[" + std::to_string(p) + "]";
    expect_valid_view(who, d.c_str(), part_distances[p]);
    expect_valid_view(who, i.c_str(), part_indices[p]);
    expect_host(who, d, part_distances[p]);
    expect_host(who, i, part_indices[p]);
    expect_shape(who, d.c_str(), part_distances[p], m, part_distances[p].cols);
    expect_shape(who, i.c_str(), part_indices[p], m, part_distances[p].cols);
    expect_dtype(who, d.c_str(), part_distances[p], dtype);
    expect_dtype(who, i.c_str(), part_indices[p], DType::kInt64);
    columns += part_distances[p].cols;
  }
  expect_valid_view(who, "distances", distances);
  expect_valid_view(who, "indices", indices);
  expect_host(who, "distances", distances);
  expect_host(who, "indices", indices);
  CUDIST_EXPECTS(distances.cols >= std::min(k, columns),
                 who << ": distances has " << distances.cols << " columns, fewer than the " << std::min(k, columns)
                     << " best a row may have");
  expect_shape(who, "indices", indices, m, distances.cols);
  expect_dtype(who, "distances", distances, dtype);
  expect_dtype(who, "indices", indices, DType::kInt64);
  // A row written before every part's row is read: the result may not share memory with a part.
  for (std::size_t p = 0; p < part_distances.size(); ++p) {
    for (ConstMatrixView const part : {part_distances[p], part_indices[p]}) {
      CUDIST_EXPECTS(!cudist::detail::views_overlap(distances, part) && !cudist::detail::views_overlap(indices, part),
                     who << ": the result overlaps part " << p << "; merge into new arrays");
    }
  }
  neighbors::detail::RankedMerge const how{
      neighbors::detail::ranks_largest_first(metric),
      options.parts_rank_values && !options.rank_values && ranks_on_squares(metric, options.params)};
  if (dtype == DType::kFloat64) {
    merge_rows<double>(part_distances, part_indices, k, how, distances, indices);
  } else {
    merge_rows<float>(part_distances, part_indices, k, how, distances, indices);
  }
}

}  // namespace cudist
