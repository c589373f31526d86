#include "distance/detail/cuda/packed_u8_rows.hpp"

#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/check.hpp"
#include "core/detail/validate_view.hpp"
#include "distance/detail/cuda/packed_u8_l2.cuh"

namespace cudist::detail::cuda {
namespace {

__global__ void __launch_bounds__(ByteSquaresKernel::kThreads) byte_squares_kernel(ByteSquaresKernel::Params const p) {
  ByteSquaresKernel{}(p, blockIdx.x, static_cast<int>(threadIdx.x));
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

Array byte_squares(ConstMatrixView words, bool signed_bytes, void* stream) {
  int device = 0;
  CUDIST_CUDA_TRY(cudaGetDevice(&device));
  auto const s = static_cast<cudaStream_t>(stream);
  Array sq = Array::allocate(words.rows, 1, DType::kInt32, Device::cuda(device), s);
  if (words.rows == 0) return sq;
  constexpr int kRows = ByteSquaresKernel::kRowsPerBlock;
  auto const blocks = static_cast<unsigned>((words.rows + kRows - 1) / kRows);
  byte_squares_kernel<<<blocks, ByteSquaresKernel::kThreads, 0, s>>>({static_cast<std::uint32_t const*>(words.data), words.rows,
                                                   words.cols, words.stride,
                                                   static_cast<std::uint32_t*>(sq.data()), signed_bytes});
  CUDIST_CHECK_LAUNCH();
  return sq;
}

std::pair<void const*, void const*> row_squares(ConstMatrixView x_words, ConstMatrixView y_words, bool signed_bytes,
                                                std::vector<Array>& keep, void* stream) {
  keep.push_back(byte_squares(x_words, signed_bytes, stream));
  void const* const x_sq = keep.back().data();
  if (same_view(x_words, y_words)) return {x_sq, x_sq};
  keep.push_back(byte_squares(y_words, signed_bytes, stream));
  return {x_sq, keep.back().data()};
}

}  // namespace cudist::detail::cuda
