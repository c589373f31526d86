// The sorted path of knn on the GPU, for k beyond what fits on chip (select_policy.hpp) and for
// the ops without a fused consumer: blocks of rows through the pairwise engine into a bounded
// workspace (value_blocks.cuh), a stable segmented sort per row (CUB) on (key order, column), the
// first k gathered. Never the whole matrix; one problem of a batch at a time.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include <cub/device/device_segmented_sort.cuh>

#include "core/cuda/check.hpp"
#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/materialized_paths.hpp"
#include "neighbors/detail/cuda/sorted_select.cuh"
#include "neighbors/detail/cuda/value_blocks.cuh"
#include "neighbors/detail/cuda/workspace.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

template <class Key>
void sorted_knn_for(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
                    cudaStream_t stream) {
  using Order = typename KeyTraits<Key>::Order;
  std::int64_t const item_bytes = sizeof(Key) + 2 * sizeof(Order) + 2 * sizeof(std::uint32_t);
  DType const order_dtype = sizeof(Order) == 8 ? DType::kInt64 : DType::kInt32;
  for_each_value_block(p, item_bytes, stream, [&](ValueBlock const& b) {
    std::int64_t const rows = b.rows(), cols = b.cols;
    std::optional<Array> orders, columns;
    if (cols > 0) {
      Array orders_in = device_array(rows, cols, order_dtype, stream);
      Array columns_in = device_array(rows, cols, DType::kInt32, stream);
      orders = device_array(rows, cols, order_dtype, stream);
      columns = device_array(rows, cols, DType::kInt32, stream);
      launch<PackSortKeysKernel<Key>>(rows * cols, 256,
                                      {b.values.data_as<Key>(), rows, cols, b.row0, b.col0, p.rank,
                                       static_cast<Order*>(orders_in.data()),
                                       static_cast<std::uint32_t*>(columns_in.data())},
                                      stream);
      Array segments = device_array(1, rows + 1, DType::kInt64, stream);
      launch<SegmentOffsetsKernel>(rows + 1, 256, {rows, cols, segments.data_as<std::int64_t>()}, stream);
      auto sort = [&](void* temp, std::size_t& bytes) {
        CUDIST_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairs(
            temp, bytes, static_cast<Order const*>(orders_in.data()), static_cast<Order*>(orders->data()),
            static_cast<std::uint32_t const*>(columns_in.data()), static_cast<std::uint32_t*>(columns->data()),
            rows * cols, rows, segments.data_as<std::int64_t>(), segments.data_as<std::int64_t>() + 1, stream));
      };
      std::size_t bytes = 0;
      sort(nullptr, bytes);
      Array temp = device_bytes(bytes, stream);
      sort(temp.data(), bytes);
    }
    typename GatherSortedKernel<Key>::Params gp{};
    gp.orders = orders ? static_cast<Order const*>(orders->data()) : nullptr;
    gp.columns = columns ? static_cast<std::uint32_t const*>(columns->data()) : nullptr;
    gp.rows = rows;
    gp.cols = cols;
    gp.k = k;
    gp.spec = p.rank;
    gp.distances = static_cast<Key*>(distances.data) + b.row0 * distances.stride;
    gp.ld_distances = distances.stride;
    gp.indices = static_cast<std::int64_t*>(indices.data) + b.row0 * indices.stride;
    gp.ld_indices = indices.stride;
    launch<GatherSortedKernel<Key>>(rows * k, 256, gp, stream);
  });
}

}  // namespace

void sorted_knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
                cudaStream_t stream) {
  if (p.distance_dtype == DType::kFloat64) return sorted_knn_for<double>(p, k, distances, indices, stream);
  sorted_knn_for<float>(p, k, distances, indices, stream);
}

}  // namespace cudist::neighbors::detail::cuda
