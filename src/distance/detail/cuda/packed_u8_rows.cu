#include "distance/detail/cuda/packed_u8_rows.hpp"

#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/check.hpp"
#include "core/detail/validate_view.hpp"
#include "distance/detail/cuda/packed_u8_l2.cuh"

namespace cudist::detail::cuda {
namespace {

__global__ void __launch_bounds__(RowSumsKernel::kThreads) row_sums_kernel(RowSumsKernel::Params const p) {
  RowSumsKernel{}(p, blockIdx.x, static_cast<int>(threadIdx.x));
}

bool starts_aligned(ConstMatrixView v) {
  return reinterpret_cast<std::uintptr_t>(v.data) % 4 == 0 && (v.stride % 4 == 0 || v.rows <= 1);
}

}  // namespace

bool rows_are_words(ConstMatrixView x, ConstMatrixView y) {
  bool const bytes = x.dtype == DType::kUInt8 || x.dtype == DType::kInt8;
  return bytes && x.cols > 0 && x.cols % 4 == 0 && starts_aligned(x) && starts_aligned(y);
}

ConstMatrixView as_words(ConstMatrixView v) {
  return ConstMatrixView(v.data, v.rows, v.cols / 4, v.stride / 4, DType::kInt32, v.memory);
}

Array row_sums(ConstMatrixView words, RowSum kind, void* stream) {
  int device = 0;
  CUDIST_CUDA_TRY(cudaGetDevice(&device));
  auto const s = static_cast<cudaStream_t>(stream);
  Array sum = Array::allocate(words.rows, 1, DType::kInt32, Device::cuda(device), s);
  if (words.rows == 0) return sum;
  constexpr int kRows = RowSumsKernel::kRowsPerBlock;
  auto const blocks = static_cast<unsigned>((words.rows + kRows - 1) / kRows);
  row_sums_kernel<<<blocks, RowSumsKernel::kThreads, 0, s>>>(
      {static_cast<std::uint32_t const*>(words.data), words.rows, words.cols, words.stride,
       static_cast<std::uint32_t*>(sum.data()), kind});
  CUDIST_CHECK_LAUNCH();
  return sum;
}

std::pair<void const*, void const*> row_sums(ConstMatrixView x_words, ConstMatrixView y_words, RowSum kind,
                                             std::vector<Array>& keep, void* stream) {
  keep.push_back(row_sums(x_words, kind, stream));
  void const* const x_sum = keep.back().data();
  if (same_view(x_words, y_words)) return {x_sum, x_sum};
  keep.push_back(row_sums(y_words, kind, stream));
  return {x_sum, keep.back().data()};
}

}  // namespace cudist::detail::cuda
