// CUDA backend: the structure scan behind validate_csr for device matrices, and the explicit
// transpose that plans for A^T products build: a stable radix sort of (column, position) pairs,
// so each column of A^T lists its entries in row order, as on the CPU.
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "core/cuda/check.hpp"
#include "sparse/detail/backend.hpp"
#include "sparse/detail/cuda/device_scalars.cuh"
#include "sparse/detail/dispatch.hpp"

namespace cudist::sparse::detail::cuda {
namespace {

constexpr int kThreads = 256;

/// first_bad[0]: the smallest i with row_offsets[i] < row_offsets[i - 1];
/// first_bad[1]: the smallest k with col_indices[k] outside [0, cols). ULLONG_MAX when none.
template <class I>
__global__ void find_violations_kernel(I const* row_offsets, I const* col_indices,
                                       std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                                       unsigned long long* first_bad) {
  std::int64_t const start = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::int64_t const stride = std::int64_t(gridDim.x) * blockDim.x;
  unsigned long long bad_offset = ULLONG_MAX, bad_column = ULLONG_MAX;
  for (std::int64_t i = start + 1; i <= rows && bad_offset == ULLONG_MAX; i += stride) {
    if (row_offsets[i] < row_offsets[i - 1]) bad_offset = i;
  }
  for (std::int64_t k = start; k < nnz && bad_column == ULLONG_MAX; k += stride) {
    if (col_indices[k] < 0 || col_indices[k] >= cols) bad_column = k;
  }
  if (bad_offset != ULLONG_MAX) atomicMin(first_bad, bad_offset);
  if (bad_column != ULLONG_MAX) atomicMin(first_bad + 1, bad_column);
}

template <class I>
CsrViolation find_violation(CsrView const& a, cudaStream_t stream) {
  using Kind = CsrViolation::Kind;
  auto const* offsets = static_cast<I const*>(a.row_offsets);
  auto const* cols = static_cast<I const*>(a.col_indices);
  std::int64_t const first = read_device_value(offsets, stream);
  if (first != 0) return {Kind::kFirstOffset, 0, first, 0};
  std::int64_t const last = read_device_value(offsets + a.rows, stream);
  if (last != a.nnz) return {Kind::kLastOffset, a.rows, last, 0};

  Array first_bad = Array::allocate(1, 2, DType::kInt64, current_device(), stream);
  CUDIST_CUDA_TRY(cudaMemsetAsync(first_bad.data(), 0xff, 2 * sizeof(std::int64_t), stream));
  find_violations_kernel<<<grid_stride_blocks(a.rows + a.nnz, kThreads), kThreads, 0, stream>>>(
      offsets, cols, a.rows, a.cols, a.nnz, static_cast<unsigned long long*>(first_bad.data()));
  CUDIST_CHECK_LAUNCH();
  auto const* bad = first_bad.data_as<unsigned long long>();
  unsigned long long const bad_offset = read_device_value(bad, stream);
  if (bad_offset != ULLONG_MAX) {
    auto const i = static_cast<std::int64_t>(bad_offset);
    return {Kind::kDecreasingOffset, i, read_device_value(offsets + i, stream),
            read_device_value(offsets + i - 1, stream)};
  }
  unsigned long long const bad_column = read_device_value(bad + 1, stream);
  if (bad_column != ULLONG_MAX) {
    auto const k = static_cast<std::int64_t>(bad_column);
    return {Kind::kColumnOutOfRange, k, read_device_value(cols + k, stream), 0};
  }
  return {};
}

template <class I>
__global__ void iota_kernel(I* out, std::int64_t n) {
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n;
       k += std::int64_t(gridDim.x) * blockDim.x) {
    out[k] = static_cast<I>(k);
  }
}

/// The row holding entry k: the last r with row_offsets[r] <= k (empty rows skipped).
template <class I>
__device__ std::int64_t row_of(I const* row_offsets, std::int64_t rows, std::int64_t k) {
  std::int64_t lo = 0, hi = rows;  // row_offsets[lo] <= k < row_offsets[hi]
  while (hi - lo > 1) {
    std::int64_t const mid = lo + (hi - lo) / 2;
    if (row_offsets[mid] <= k) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Entry p of A^T is entry order[p] of A: its column is that entry's row.
template <class T, class I>
__global__ void gather_transposed_kernel(I const* row_offsets, std::int64_t rows, T const* values,
                                         I const* order, std::int64_t nnz, I* t_cols, T* t_values) {
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < nnz;
       p += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t const k = order[p];
    t_cols[p] = static_cast<I>(row_of(row_offsets, rows, k));
    t_values[p] = values[k];
  }
}

/// Row c of A^T starts at the number of entries of A in columns before c.
template <class I>
__global__ void column_starts_kernel(I const* sorted_cols, std::int64_t nnz, std::int64_t cols,
                                     I* t_offsets) {
  for (std::int64_t c = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c <= cols;
       c += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t lo = 0, hi = nnz;
    while (lo < hi) {
      std::int64_t const mid = lo + (hi - lo) / 2;
      if (sorted_cols[mid] < c) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    t_offsets[c] = static_cast<I>(lo);
  }
}

template <class T, class I>
CsrMatrix transpose_typed(CsrView const& a, Device device, cudaStream_t stream) {
  CsrMatrix t =
      CsrMatrix::allocate(a.cols, a.rows, a.nnz, a.value_dtype, a.index_dtype, device, stream);
  Array sorted_cols = Array::allocate(1, a.nnz, a.index_dtype, device, stream);
  if (a.nnz > 0) {
    Array positions = Array::allocate(1, a.nnz, a.index_dtype, device, stream);
    Array order = Array::allocate(1, a.nnz, a.index_dtype, device, stream);
    unsigned const blocks = grid_stride_blocks(a.nnz, kThreads);
    iota_kernel<<<blocks, kThreads, 0, stream>>>(positions.data_as<I>(), a.nnz);
    CUDIST_CHECK_LAUNCH();
    int key_bits = 1;  // columns are in [0, cols): sort only the bits that can differ
    while (key_bits < static_cast<int>(8 * sizeof(I)) && (std::int64_t(1) << key_bits) < a.cols) {
      ++key_bits;
    }
    auto sort = [&](void* temp, std::size_t& temp_bytes) {
      CUDIST_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
          temp, temp_bytes, static_cast<I const*>(a.col_indices), sorted_cols.data_as<I>(),
          positions.data_as<I>(), order.data_as<I>(), a.nnz, 0, key_bits, stream));
    };
    std::size_t temp_bytes = 0;
    sort(nullptr, temp_bytes);
    Array temp =
        Array::allocate(1, static_cast<std::int64_t>(temp_bytes), DType::kUInt8, device, stream);
    sort(temp.data(), temp_bytes);
    gather_transposed_kernel<<<blocks, kThreads, 0, stream>>>(
        static_cast<I const*>(a.row_offsets), a.rows, static_cast<T const*>(a.values),
        order.data_as<I>(), a.nnz, t.col_indices().data_as<I>(), t.values().data_as<T>());
    CUDIST_CHECK_LAUNCH();
  }
  column_starts_kernel<<<grid_stride_blocks(a.cols + 1, kThreads), kThreads, 0, stream>>>(
      sorted_cols.data_as<I>(), a.nnz, a.cols, t.row_offsets().data_as<I>());
  CUDIST_CHECK_LAUNCH();
  return t;
}

}  // namespace

CsrViolation find_csr_violation(CsrView const& a, void* stream) {
  return with_csr_types(a.value_dtype, a.index_dtype, [&](auto, auto index_tag) {
    return find_violation<typename decltype(index_tag)::type>(a, static_cast<cudaStream_t>(stream));
  });
}

CsrMatrix transpose(CsrView const& a, Device device, void* stream) {
  return with_csr_types(a.value_dtype, a.index_dtype, [&](auto value_tag, auto index_tag) {
    return transpose_typed<typename decltype(value_tag)::type, typename decltype(index_tag)::type>(
        a, device, static_cast<cudaStream_t>(stream));
  });
}

}  // namespace cudist::sparse::detail::cuda
