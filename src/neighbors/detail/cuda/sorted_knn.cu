// The second path of knn on the GPU, for k beyond what fits on chip (select_policy.hpp): blocks
// of rows through the pairwise engine into a bounded workspace, a stable segmented sort per row
// (CUB) on (key order, column), the first k gathered. Never the whole matrix; one problem of a
// batch at a time.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include <cub/device/device_segmented_sort.cuh>

#include "core/cuda/check.hpp"
#include "core/detail/cuda_runtime.hpp"
#include "distance/detail/backend.hpp"
#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/sorted_knn.hpp"
#include "neighbors/detail/cuda/sorted_select.cuh"
#include "neighbors/detail/cuda/workspace.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

template <class Key>
void sorted_knn_for(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
                cudaStream_t stream) {
  using Order = typename KeyTraits<Key>::Order;
  std::int64_t const item_bytes = sizeof(Key) + 2 * sizeof(Order) + 2 * sizeof(std::uint32_t);
  std::int64_t const budget = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(cudist::detail::cuda_free_memory() / 4) / item_bytes, 1 << 20, 1 << 28);
  DType const order_dtype = sizeof(Order) == 8 ? DType::kInt64 : DType::kInt32;
  auto rows_of = [](ConstMatrixView v, std::int64_t begin, std::int64_t end) {
    v.data = static_cast<char const*>(v.data) + begin * v.stride * static_cast<std::int64_t>(size_of(v.dtype));
    v.rows = end - begin;
    return v;
  };
  auto offset = [](void const* norms, std::int64_t rows) {
    return norms == nullptr ? nullptr : static_cast<void const*>(static_cast<Key const*>(norms) + rows);
  };
  for (std::int64_t b = 0; b < p.problems(); ++b) {
    std::int64_t const xb = p.x_offsets[b], xe = p.x_offsets[b + 1];
    std::int64_t const yb = p.y_offsets[b], ye = p.y_offsets[b + 1];
    std::int64_t const cols = ye - yb;
    std::int64_t const step = std::clamp<std::int64_t>(budget / std::max<std::int64_t>(cols, 1), 1, std::max<std::int64_t>(xe - xb, 1));
    for (std::int64_t r0 = xb; r0 < xe; r0 += step) {
      std::int64_t const r1 = std::min(xe, r0 + step), rows = r1 - r0;
      std::optional<Array> orders, columns;
      if (cols > 0) {
        Array values = device_array(rows, cols, p.distance_dtype, stream);
        cudist::detail::PairwiseProblem sub = p.pairwise;
        sub.x = rows_of(p.pairwise.x, r0, r1);
        sub.y = rows_of(p.pairwise.y, yb, ye);
        sub.out = values.view();
        sub.op.x_norms = offset(p.pairwise.op.x_norms, r0);
        sub.op.y_norms = offset(p.pairwise.op.y_norms, yb);
        cudist::detail::cuda::pairwise(sub, stream);

        Array orders_in = device_array(rows, cols, order_dtype, stream);
        Array columns_in = device_array(rows, cols, DType::kInt32, stream);
        orders = device_array(rows, cols, order_dtype, stream);
        columns = device_array(rows, cols, DType::kInt32, stream);
        launch<PackSortKeysKernel<Key>>(rows * cols, 256,
                                        {values.data_as<Key>(), rows, cols, r0, yb, p.rank,
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
      gp.distances = static_cast<Key*>(distances.data) + r0 * distances.stride;
      gp.ld_distances = distances.stride;
      gp.indices = static_cast<std::int64_t*>(indices.data) + r0 * indices.stride;
      gp.ld_indices = indices.stride;
      launch<GatherSortedKernel<Key>>(rows * k, 256, gp, stream);
    }
  }
}

}  // namespace

void sorted_knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
                cudaStream_t stream) {
  if (p.distance_dtype == DType::kFloat64) return sorted_knn_for<double>(p, k, distances, indices, stream);
  sorted_knn_for<float>(p, k, distances, indices, stream);
}

}  // namespace cudist::neighbors::detail::cuda
