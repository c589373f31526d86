// CUDA backend: the analysis behind make_spmv_plan. It reads the longest row back to the host,
// picks the kernel (policy.hpp), and cuts the merge path into tiles, which SpMM and merge-path
// SpMV use; every plan gets the partition, so SpMM works with any plan.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/check.hpp"
#include "sparse/detail/backend.hpp"
#include "sparse/detail/cuda/device_scalars.cuh"
#include "sparse/detail/cuda/policy.hpp"
#include "sparse/detail/dispatch.hpp"
#include "sparse/detail/merge_path.hpp"

namespace cudist::sparse::detail::cuda {
namespace {

constexpr int kThreads = 256;

template <class I>
__global__ void max_row_nnz_kernel(I const* row_offsets, std::int64_t rows,
                                   unsigned long long* longest) {
  unsigned long long mine = 0;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rows;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    unsigned long long const length = row_offsets[i + 1] - row_offsets[i];
    mine = length > mine ? length : mine;
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    unsigned long long const other = __shfl_xor_sync(0xffffffffu, mine, offset);
    mine = other > mine ? other : mine;
  }
  if (threadIdx.x % 32 == 0) atomicMax(longest, mine);
}

template <class I>
__global__ void merge_path_partition_kernel(I const* row_offsets, std::int64_t rows,
                                            std::int64_t nnz, std::int64_t tile_items,
                                            std::int64_t tiles, std::int64_t* tile_rows) {
  std::int64_t const total = rows + nnz;
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t <= tiles;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t const diagonal = t * tile_items < total ? t * tile_items : total;
    tile_rows[t] = merge_path_rows(diagonal, RowEnds<I>{row_offsets}, rows, nnz);
  }
}

template <class I>
std::int64_t max_row_nnz(CsrView const& a, Device device, cudaStream_t stream) {
  if (a.rows == 0) return 0;
  Array longest = Array::allocate(1, 1, DType::kInt64, device, stream);
  CUDIST_CUDA_TRY(cudaMemsetAsync(longest.data(), 0, sizeof(std::int64_t), stream));
  max_row_nnz_kernel<<<grid_stride_blocks(a.rows, kThreads), kThreads, 0, stream>>>(
      static_cast<I const*>(a.row_offsets), a.rows,
      static_cast<unsigned long long*>(longest.data()));
  CUDIST_CHECK_LAUNCH();
  return read_device_value(longest.data_as<std::int64_t>(), stream);
}

bool aligned_to(void const* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

template <class T, class I>
SpmvAnalysis analyse(CsrView const& a, SpmvAlgorithm requested, Device device,
                     cudaStream_t stream) {
  SpmvAnalysis analysis;
  RowStats const stats{a.rows, a.nnz, max_row_nnz<I>(a, device, stream)};
  analysis.algorithm = requested == SpmvAlgorithm::kAuto ? choose_spmv_algorithm(stats) : requested;

  int const wide = wide_vector_width(sizeof(T), sizeof(I));
  bool const aligned =
      aligned_to(a.col_indices, wide * sizeof(I)) && aligned_to(a.values, wide * sizeof(T));
  analysis.vector_width = aligned ? wide : 1;
  analysis.group_size = row_split_group_size(stats, analysis.vector_width);
  analysis.rows_per_block = thread_per_row_rows_per_block(stats, sizeof(T));

  using Policy = MergePathPolicy<T>;
  analysis.items_per_tile = Policy::kTileItems;
  std::int64_t const tiles = (a.rows + a.nnz + Policy::kTileItems - 1) / Policy::kTileItems;
  analysis.tile_rows = Array::allocate(1, tiles + 1, DType::kInt64, device, stream);
  merge_path_partition_kernel<<<grid_stride_blocks(tiles + 1, kThreads), kThreads, 0, stream>>>(
      static_cast<I const*>(a.row_offsets), a.rows, a.nnz, Policy::kTileItems, tiles,
      analysis.tile_rows.data_as<std::int64_t>());
  CUDIST_CHECK_LAUNCH();
  // Heads, then carries: (tiles, kMaxCols) values each.
  analysis.scratch =
      Array::allocate(1, 2 * tiles * Policy::kMaxCols, a.value_dtype, device, stream);
  return analysis;
}

}  // namespace

SpmvAnalysis analyse_spmv(CsrView const& a, SpmvAlgorithm requested, Device device, void* stream) {
  return with_csr_types(a.value_dtype, a.index_dtype, [&](auto value_tag, auto index_tag) {
    return analyse<typename decltype(value_tag)::type, typename decltype(index_tag)::type>(
        a, requested, device, static_cast<cudaStream_t>(stream));
  });
}

}  // namespace cudist::sparse::detail::cuda
