// CUDA backend of the graph steps of blocked Floyd-Warshall: preparing the weight matrix, and
// closing a diagonal block of up to 128 x 128 in one thread block whose registers hold the block
// (32 x 32 threads, 4 x 4 entries each): step k publishes row k and column k through shared
// memory, and every thread relaxes its 16 entries through k.
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>

#include "core/cuda/check.hpp"
#include "graph/detail/backend.hpp"
#include "graph/detail/blocked_fw.hpp"

namespace cudist::detail::cuda {
namespace {

constexpr int kSide = 32;                 // threads per side of the block
constexpr int kPer = 4;                   // entries per thread per side
constexpr int kMaxBlock = kSide * kPer;   // 128 vertices
static_assert(kMaxBlock == kFwBlock, "the closure kernel covers exactly one Floyd-Warshall block");

/// One thread per (i, j); undirected: the thread of (i, j > i) writes both entries.
template <class T>
__global__ void prepare_kernel(T* d, std::int64_t ld, std::int32_t* next, std::int64_t ldn,
                               std::int64_t n, bool directed) {
  std::int64_t const j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  std::int64_t const i = blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y;
  if (i >= n || j >= n) return;
  T const inf = std::numeric_limits<T>::infinity();
  auto const clean = [inf](T w) { return w != w ? inf : w; };  // NaN: no edge
  T w = clean(d[i * ld + j]);
  if (!directed) {
    if (j < i) return;
    T const back = clean(d[j * ld + i]);
    w = back < w ? back : w;
    d[j * ld + i] = w;
    if (next != nullptr && j != i) next[j * ldn + i] = w < inf ? static_cast<std::int32_t>(i) : -1;
  }
  if (i == j) w = w < T(0) ? w : T(0);
  d[i * ld + j] = w;
  if (next != nullptr) {
    next[i * ldn + j] = i == j ? static_cast<std::int32_t>(i) : (w < inf ? static_cast<std::int32_t>(j) : -1);
  }
}

template <class T>
__global__ void __launch_bounds__(kSide * kSide) close_block_kernel(T* d, std::int64_t ld, std::int32_t* next,
                                                                   std::int64_t ldn, int b) {
  __shared__ T row_k[kMaxBlock];
  __shared__ T col_k[kMaxBlock];
  __shared__ std::int32_t hop_col_k[kMaxBlock];
  int const tx = static_cast<int>(threadIdx.x) % kSide, ty = static_cast<int>(threadIdx.x) / kSide;
  bool const hops = next != nullptr;
  T const inf = std::numeric_limits<T>::infinity();
  T v[kPer][kPer];
  std::int32_t h[kPer][kPer];
#pragma unroll
  for (int r = 0; r < kPer; ++r)
#pragma unroll
    for (int c = 0; c < kPer; ++c) {
      int const i = ty * kPer + r, j = tx * kPer + c;
      bool const in = i < b && j < b;
      v[r][c] = in ? d[i * ld + j] : inf;
      h[r][c] = in && hops ? next[i * ldn + j] : -1;
    }
  // k runs in groups of kPer so that the entry of row / column k a thread owns is a
  // compile-time register index.
  for (int k0 = 0; k0 < b; k0 += kPer) {
#pragma unroll
    for (int kk = 0; kk < kPer; ++kk) {
      int const k = k0 + kk;
      if (k >= b) break;  // uniform across the block
      if (ty == k0 / kPer) {
#pragma unroll
        for (int c = 0; c < kPer; ++c) row_k[tx * kPer + c] = v[kk][c];
      }
      if (tx == k0 / kPer) {
#pragma unroll
        for (int r = 0; r < kPer; ++r) {
          col_k[ty * kPer + r] = v[r][kk];
          hop_col_k[ty * kPer + r] = h[r][kk];
        }
      }
      __syncthreads();
#pragma unroll
      for (int r = 0; r < kPer; ++r) {
        T const dik = col_k[ty * kPer + r];
        std::int32_t const hop = hop_col_k[ty * kPer + r];
#pragma unroll
        for (int c = 0; c < kPer; ++c) {
          T const t = dik + row_k[tx * kPer + c];
          if (t < v[r][c]) {
            v[r][c] = t;
            h[r][c] = hop;
          }
        }
      }
      __syncthreads();
    }
  }
#pragma unroll
  for (int r = 0; r < kPer; ++r)
#pragma unroll
    for (int c = 0; c < kPer; ++c) {
      int const i = ty * kPer + r, j = tx * kPer + c;
      if (i < b && j < b) {
        d[i * ld + j] = v[r][c];
        if (hops) next[i * ldn + j] = h[r][c];
      }
    }
}

}  // namespace

void prepare_graph(MatrixView dv, MatrixView nv, bool directed, void* stream) {
  std::int64_t const n = dv.rows;
  if (n == 0) return;
  dim3 const block(32, 8);
  dim3 const grid(static_cast<unsigned>((n + 31) / 32), static_cast<unsigned>((n + 7) / 8));
  auto* next = static_cast<std::int32_t*>(nv.data);
  auto const s = static_cast<cudaStream_t>(stream);
  if (dv.dtype == DType::kFloat64) {
    prepare_kernel<<<grid, block, 0, s>>>(static_cast<double*>(dv.data), dv.stride, next, nv.stride, n, directed);
  } else {
    prepare_kernel<<<grid, block, 0, s>>>(static_cast<float*>(dv.data), dv.stride, next, nv.stride, n, directed);
  }
  CUDIST_CHECK_LAUNCH();
}

void close_diagonal_block(MatrixView dv, MatrixView nv, void* stream) {
  int const b = static_cast<int>(dv.rows);
  auto* next = static_cast<std::int32_t*>(nv.data);
  auto const s = static_cast<cudaStream_t>(stream);
  if (dv.dtype == DType::kFloat64) {
    close_block_kernel<<<1, kSide * kSide, 0, s>>>(static_cast<double*>(dv.data), dv.stride, next, nv.stride, b);
  } else {
    close_block_kernel<<<1, kSide * kSide, 0, s>>>(static_cast<float*>(dv.data), dv.stride, next, nv.stride, b);
  }
  CUDIST_CHECK_LAUNCH();
}

}  // namespace cudist::detail::cuda
