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

/// A block per 32 x 32 tile (i0, j0), 32 x 8 threads. Undirected: the block of the tile on or
/// above the diagonal also does its mirror tile (j0, i0), both read and written a row per warp
/// through shared memory, so that every access is coalesced.
constexpr int kPrepTile = 32;
constexpr int kPrepRows = 8;

template <class T>
__global__ void prepare_kernel(T* d, std::int64_t ld, std::int32_t* next, std::int64_t ldn,
                               std::int64_t n, bool directed) {
  __shared__ T mirror[kPrepTile][kPrepTile + 1];  // mirror[c][r] = d[j0 + c][i0 + r]
  std::int64_t const i0 = std::int64_t(blockIdx.y) * kPrepTile, j0 = std::int64_t(blockIdx.x) * kPrepTile;
  if (!directed && j0 < i0) return;  // the block of (j0, i0) does this tile
  int const tx = threadIdx.x, ty = threadIdx.y;
  T const inf = std::numeric_limits<T>::infinity();
  auto const clean = [inf](T w) { return w != w ? inf : w; };  // NaN: no edge
  if (!directed) {
    for (int c = ty; c < kPrepTile; c += kPrepRows) {
      std::int64_t const j = j0 + c, i = i0 + tx;
      if (j < n && i < n) mirror[c][tx] = clean(d[j * ld + i]);
    }
    __syncthreads();
  }
  for (int r = ty; r < kPrepTile; r += kPrepRows) {
    std::int64_t const i = i0 + r, j = j0 + tx;
    if (i >= n || j >= n) continue;
    T w = clean(d[i * ld + j]);
    if (!directed) w = mirror[tx][r] < w ? mirror[tx][r] : w;
    if (i == j) w = w < T(0) ? w : T(0);
    d[i * ld + j] = w;
    if (next != nullptr) {
      next[i * ldn + j] = i == j ? static_cast<std::int32_t>(i) : (w < inf ? static_cast<std::int32_t>(j) : -1);
    }
  }
  if (directed || i0 == j0) return;  // a diagonal tile holds its own mirror
  // The mirror tile gets the same minimum: d[j][i] = min(d[i][j], d[j][i]), staged again.
  __syncthreads();
  for (int r = ty; r < kPrepTile; r += kPrepRows) {
    std::int64_t const i = i0 + r, j = j0 + tx;
    if (i < n && j < n) mirror[tx][r] = d[i * ld + j];
  }
  __syncthreads();
  for (int c = ty; c < kPrepTile; c += kPrepRows) {
    std::int64_t const j = j0 + c, i = i0 + tx;
    if (j >= n || i >= n) continue;
    T const w = mirror[c][tx];
    d[j * ld + i] = w;
    if (next != nullptr) next[j * ldn + i] = w < inf ? static_cast<std::int32_t>(i) : -1;
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
  dim3 const block(kPrepTile, kPrepRows);
  unsigned const tiles = static_cast<unsigned>((n + kPrepTile - 1) / kPrepTile);
  dim3 const grid(tiles, tiles);
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
