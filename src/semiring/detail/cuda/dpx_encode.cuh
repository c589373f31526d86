// The encode pass in front of a DPX product (dpx_rings.cuh): one read of each operand that writes
// its encoded copy in the layout the DPX loop loads, and raises the range guard when any entry
// lies outside the exact range. Memory-bound: O(m d + d n) against the product's O(m n d).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda/check.hpp"
#include "cudist/core/array.hpp"
#include "semiring/detail/cuda/dpx_rings.cuh"

namespace cudist::detail::cuda {

/// int32 operands keep their layout.
struct SameLayout {
  static constexpr std::int64_t words(std::int64_t cols) { return cols; }
  template <class Encoding>
  __device__ static std::int32_t word(std::int32_t const* row, std::int64_t w, std::int64_t,
                                      bool& exact) {
    std::int32_t const v = row[w];
    exact = exact && Encoding::exact(v);
    return Encoding::encode(v);
  }
};

/// int16 A: every entry twice in its word, meeting two columns of B per instruction.
struct DuplicatedLanes {
  static constexpr std::int64_t words(std::int64_t cols) { return cols; }
  template <class Encoding>
  __device__ static std::uint32_t word(std::int16_t const* row, std::int64_t w, std::int64_t,
                                       bool& exact) {
    std::int16_t const v = row[w];
    exact = exact && Encoding::exact(v);
    std::int16_t const e = Encoding::encode(v);
    return pack_lanes(e, e);
  }
};

/// int16 B: columns 2w and 2w + 1 in one word; an odd last column is paired with infinity (its
/// outputs are never stored).
struct PairedLanes {
  static constexpr std::int64_t words(std::int64_t cols) { return (cols + 1) / 2; }
  template <class Encoding>
  __device__ static std::uint32_t word(std::int16_t const* row, std::int64_t w, std::int64_t cols,
                                       bool& exact) {
    std::int16_t const lo = row[2 * w];
    std::int16_t const hi = 2 * w + 1 < cols ? row[2 * w + 1] : Encoding::kInfinity;
    exact = exact && Encoding::exact(lo) && Encoding::exact(hi);
    return pack_lanes(Encoding::encode(lo), Encoding::encode(hi));
  }
};

/// dst (rows, Layout::words(cols)), dense: the encoded src; *inexact |= some entry out of range.
template <class Layout, class Encoding, class Src, class Dst>
__global__ void encode_operand(Src const* src, std::int64_t ld, std::int64_t rows,
                               std::int64_t cols, Dst* dst, int* inexact) {
  std::int64_t const words = Layout::words(cols);
  bool exact = true;
  for (std::int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    for (std::int64_t w = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
         w < words; w += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
      dst[r * words + w] = Layout::template word<Encoding>(src + r * ld, w, cols, exact);
    }
  }
  if (__syncthreads_or(!exact) && threadIdx.x == 0) atomicOr(inexact, 1);
}

template <class Layout, class Encoding, class Src, class Dst>
void encode(Src const* src, std::int64_t ld, std::int64_t rows, std::int64_t cols, Dst* dst,
            int* inexact, cudaStream_t stream) {
  constexpr int kThreads = 256;
  std::int64_t const words = Layout::words(cols);
  if (rows == 0 || words == 0) return;
  dim3 const grid(static_cast<unsigned>(std::min<std::int64_t>((words + kThreads - 1) / kThreads, 64)),
                  static_cast<unsigned>(std::min<std::int64_t>(rows, 65535)));
  encode_operand<Layout, Encoding><<<grid, kThreads, 0, stream>>>(src, ld, rows, cols, dst, inexact);
  CUDIST_CHECK_LAUNCH();
}

/// A dense scratch matrix on the current device, freed in stream order when it goes out of scope.
inline Array device_scratch(std::int64_t rows, std::int64_t cols, DType dtype, cudaStream_t stream) {
  int device = 0;
  CUDIST_CUDA_TRY(cudaGetDevice(&device));
  return Array::allocate(rows, cols, dtype, Device::cuda(device), stream);
}

/// The range guard's flag, zeroed on the stream; the encode passes set it to 1.
inline Array zeroed_flag(cudaStream_t stream) {
  Array flag = device_scratch(1, 1, DType::kInt32, stream);
  CUDIST_CUDA_TRY(cudaMemsetAsync(flag.data(), 0, sizeof(int), stream));
  return flag;
}

}  // namespace cudist::detail::cuda
