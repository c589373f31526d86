// Radius search for the ops without a fused consumer: the values of each block of rows come from
// the pairwise engine (value_blocks.cuh); a counting pass over all blocks sizes the result, a
// writing pass computes the blocks again and places the kept pairs. Computing twice keeps the
// workspace bounded; these ops are the long tail of metrics, where the fused kernel's compile
// time and register pressure do not pay.
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>

#include "core/cuda/check.hpp"
#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/materialized_paths.hpp"
#include "neighbors/detail/cuda/radius_from_values.cuh"
#include "neighbors/detail/cuda/value_blocks.cuh"
#include "neighbors/detail/cuda/workspace.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

template <class Key>
RadiusResult radius_for(SelectProblem const& p, double r, cudaStream_t stream) {
  using Kernel = RadiusFromValuesKernel<Key>;
  std::int64_t const m = p.m();
  std::optional<Key> const bound = radius_bound<Key, Key>(r, p.rank);
  auto pass = [&](std::int64_t* counts, std::int64_t const* starts, std::int64_t* indices, Key* distances) {
    for_each_value_block(p, sizeof(Key), stream, [&](ValueBlock const& b) {
      if (b.cols == 0) return;
      launch<Kernel>(b.rows(), Kernel::kRowsPerBlock,
                     {b.values.data_as<Key>(), b.rows(), b.cols, b.row0, b.col0, *bound, p.rank, counts,
                      starts, indices, distances},
                     stream);
    });
  };
  Array counts = device_array(1, m + 1, DType::kInt64, stream);
  CUDIST_CUDA_TRY(cudaMemsetAsync(counts.data(), 0, counts.bytes(), stream));
  if (bound) pass(counts.data_as<std::int64_t>(), nullptr, nullptr, nullptr);
  Array starts = device_array(1, m + 1, DType::kInt64, stream);
  exclusive_sum(counts.data_as<std::int64_t>(), starts.data_as<std::int64_t>(), m + 1, stream);
  std::int64_t const total = download_one(starts.data_as<std::int64_t>() + m, stream);  // synchronizes

  RadiusResult out{std::move(starts), device_array(1, total, DType::kInt64, stream),
                   device_array(1, total, p.distance_dtype, stream)};
  if (total > 0) {
    pass(nullptr, out.offsets.data_as<std::int64_t>(), out.indices.data_as<std::int64_t>(),
         out.distances.data_as<Key>());
  }
  return out;
}

}  // namespace

RadiusResult radius_from_values(SelectProblem const& p, double r, cudaStream_t stream) {
  if (p.distance_dtype == DType::kFloat64) return radius_for<double>(p, r, stream);
  return radius_for<float>(p, r, stream);
}

}  // namespace cudist::neighbors::detail::cuda
