// CUDA backend of Bellman-Ford from every source (relaxation.hpp). Each block owns one source at
// a time and keeps its distances and first hops in shared memory (global scratch when the graph
// is too large for it), relaxing every vertex's in-edges per round, a thread per vertex; a block
// barrier ends the round and says whether anything improved. Edges are read by every block, so
// they stay in L2.
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/cuda/check.hpp"
#include "core/detail/interrupt_check.hpp"
#include "cudist/core/array.hpp"
#include "graph/detail/backend.hpp"

namespace cudist::detail::cuda {
namespace {

constexpr int kThreads = 256;  // the edge-list kernels

/// Threads per block of the relaxation: a large graph's distances fill the shared memory, one
/// block per SM, so that block must bring enough warps to hide the edge loads.
constexpr int kMaxRelaxThreads = 1024;
int relax_threads(std::int64_t n) { return n >= 4096 ? kMaxRelaxThreads : 256; }

template <class T>
__device__ bool is_in_edge(T w, std::int64_t u, std::int64_t v) {
  return u == v ? w < T(0) : w < std::numeric_limits<T>::infinity();
}

/// Thread v walks column v top to bottom (coalesced across the warp), so each vertex's edges
/// come out ascending by source, as on the CPU.
template <class T>
__global__ void count_kernel(T const* d, std::int64_t ld, std::int64_t n, std::int64_t* counts) {
  std::int64_t const v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= n) return;
  std::int64_t c = 0;
#pragma unroll 8
  for (std::int64_t u = 0; u < n; ++u) c += is_in_edge(d[u * ld + v], u, v);
  counts[v] = c;
}

template <class T>
__global__ void gather_kernel(T const* d, std::int64_t ld, std::int64_t n, std::int64_t const* offsets,
                              std::int32_t* sources, T* weights) {
  std::int64_t const v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= n) return;
  std::int64_t k = offsets[v];
  for (std::int64_t u = 0; u < n; ++u) {
    T const w = d[u * ld + v];
    if (!is_in_edge(w, u, v)) continue;
    sources[k] = static_cast<std::int32_t>(u);
    weights[k++] = w;
  }
}

template <class T>
struct RelaxParams {
  std::int64_t n;
  std::int64_t const* offsets;
  std::int32_t const* sources;
  T const* weights;
  T* dist;
  std::int64_t ld;
  std::int32_t* next;  // null: no next hops
  std::int64_t ldn;
  std::int64_t first_source, end_source;
  unsigned char* scratch;  // per block, when the rows do not fit in shared memory
  std::size_t block_bytes;
  int* unsettled;
};

template <class T>
__global__ void __launch_bounds__(kMaxRelaxThreads) relax_kernel(RelaxParams<T> p) {
  extern __shared__ __align__(16) unsigned char shared[];
  unsigned char* const mine = p.scratch != nullptr ? p.scratch + blockIdx.x * p.block_bytes : shared;
  std::int64_t const n = p.n;
  T* a = reinterpret_cast<T*>(mine);
  T* b = a + n;
  std::int32_t* fa = reinterpret_cast<std::int32_t*>(b + n);
  std::int32_t* fb = fa + n;
  bool const hops = p.next != nullptr;
  T const inf = std::numeric_limits<T>::infinity();
  for (std::int64_t s = p.first_source + blockIdx.x; s < p.end_source; s += gridDim.x) {
    for (std::int64_t v = threadIdx.x; v < n; v += blockDim.x) {
      a[v] = v == s ? T(0) : inf;
      if (hops) fa[v] = v == s ? static_cast<std::int32_t>(s) : -1;
    }
    __syncthreads();
    int changed = 1;
    for (std::int64_t round = 0; changed && round < n; ++round) {
      int improved = 0;
      for (std::int64_t v = threadIdx.x; v < n; v += blockDim.x) {
        T const before = a[v];
        T best = before;
        std::int32_t first = hops ? fa[v] : 0;
        std::int64_t const end = p.offsets[v + 1];
        for (std::int64_t k = p.offsets[v]; k < end; ++k) {
          std::int32_t const u = __ldg(p.sources + k);
          T const t = a[u] + __ldg(p.weights + k);
          if (t < best) {
            best = t;
            if (hops) first = u == s ? static_cast<std::int32_t>(v) : fa[u];
          }
        }
        b[v] = best;
        if (hops) fb[v] = first;
        improved |= best < before;
      }
      changed = __syncthreads_or(improved);  // also orders this round's writes before the next's reads
      T* const t = a;
      a = b;
      b = t;
      std::int32_t* const f = fa;
      fa = fb;
      fb = f;
    }
    if (changed && threadIdx.x == 0) atomicOr(p.unsettled, 1);
    for (std::int64_t v = threadIdx.x; v < n; v += blockDim.x) {
      p.dist[s * p.ld + v] = a[v];
      if (hops) p.next[s * p.ldn + v] = fa[v];
    }
    __syncthreads();  // the next source reuses the buffers
  }
}

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

template <class T>
std::int64_t offsets_of(ConstMatrixView d, std::int64_t* offsets, cudaStream_t stream) {
  std::int64_t const n = d.rows;
  CUDIST_CUDA_TRY(cudaMemsetAsync(offsets + n, 0, sizeof(std::int64_t), stream));
  count_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T const*>(d.data), d.stride, n, offsets);
  CUDIST_CHECK_LAUNCH();
  std::size_t bytes = 0;
  CUDIST_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, offsets, offsets, n + 1, stream));
  int device = 0;
  CUDIST_CUDA_TRY(cudaGetDevice(&device));
  Array temp = Array::allocate(1, static_cast<std::int64_t>(std::max<std::size_t>(bytes, 1)), DType::kUInt8,
                               Device::cuda(device), stream);
  CUDIST_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, offsets, offsets, n + 1, stream));
  std::int64_t total = 0;
  CUDIST_CUDA_TRY(cudaMemcpyAsync(&total, offsets + n, sizeof(total), cudaMemcpyDeviceToHost, stream));
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
  return total;
}

template <class T>
bool relax_every_source(InEdgesView e, MatrixView dist, MatrixView next, cudaStream_t stream) {
  std::int64_t const n = e.vertices;
  int device = 0, sms = 0, optin = 0;
  CUDIST_CUDA_TRY(cudaGetDevice(&device));
  CUDIST_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDIST_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  bool const hops = next.data != nullptr;
  std::size_t const block_bytes = static_cast<std::size_t>(n) * 2 * (sizeof(T) + (hops ? sizeof(std::int32_t) : 0));
  bool const in_shared = block_bytes <= static_cast<std::size_t>(optin);
  std::size_t const smem = in_shared ? block_bytes : 0;
  if (smem > 48 * 1024) {
    CUDIST_CUDA_TRY(cudaFuncSetAttribute(relax_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
  }
  int const threads = relax_threads(n);
  int per_sm = 0;
  CUDIST_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, relax_kernel<T>, threads, smem));
  std::int64_t const blocks = std::min<std::int64_t>(n, std::int64_t(std::max(per_sm, 1)) * sms);
  Device const here = Device::cuda(device);
  Array scratch = in_shared ? Array{}
                            : Array::allocate(blocks, static_cast<std::int64_t>(block_bytes), DType::kUInt8, here, stream);
  Array unsettled = Array::allocate(1, 1, DType::kInt32, here, stream);
  CUDIST_CUDA_TRY(cudaMemsetAsync(unsettled.data(), 0, sizeof(int), stream));

  RelaxParams<T> p{};
  p.n = n;
  p.offsets = e.offsets;
  p.sources = e.sources;
  p.weights = static_cast<T const*>(e.weights);
  p.dist = static_cast<T*>(dist.data);
  p.ld = dist.stride;
  p.next = static_cast<std::int32_t*>(next.data);
  p.ldn = next.stride;
  p.scratch = in_shared ? nullptr : static_cast<unsigned char*>(scratch.data());
  p.block_bytes = block_bytes;
  p.unsettled = unsettled.data_as<int>();
  // A few waves of sources per launch, and a wait between launches, so that an interrupt stops
  // a long call and a negative cycle ends it early.
  std::int64_t const per_launch = 8 * blocks;
  int flag = 0;
  for (std::int64_t first = 0; first < n && flag == 0; first += per_launch) {
    throw_if_interrupted("apsp");
    p.first_source = first;
    p.end_source = std::min(n, first + per_launch);
    relax_kernel<T><<<static_cast<unsigned>(blocks), threads, smem, stream>>>(p);
    CUDIST_CHECK_LAUNCH();
    CUDIST_CUDA_TRY(cudaMemcpyAsync(&flag, unsettled.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
  }
  return flag == 0;
}

}  // namespace

std::int64_t in_edge_offsets(ConstMatrixView d, std::int64_t* offsets, void* stream) {
  auto const s = static_cast<cudaStream_t>(stream);
  return d.dtype == DType::kFloat64 ? offsets_of<double>(d, offsets, s) : offsets_of<float>(d, offsets, s);
}

void gather_in_edges(ConstMatrixView d, InEdgesOut e, void* stream) {
  std::int64_t const n = d.rows;
  auto const s = static_cast<cudaStream_t>(stream);
  if (d.dtype == DType::kFloat64) {
    gather_kernel<<<blocks_for(n), kThreads, 0, s>>>(static_cast<double const*>(d.data), d.stride, n, e.offsets,
                                                     e.sources, static_cast<double*>(e.weights));
  } else {
    gather_kernel<<<blocks_for(n), kThreads, 0, s>>>(static_cast<float const*>(d.data), d.stride, n, e.offsets,
                                                     e.sources, static_cast<float*>(e.weights));
  }
  CUDIST_CHECK_LAUNCH();
}

bool bellman_ford_every_source(InEdgesView edges, MatrixView dist, MatrixView next, void* stream) {
  auto const s = static_cast<cudaStream_t>(stream);
  return edges.dtype == DType::kFloat64 ? relax_every_source<double>(edges, dist, next, s)
                                        : relax_every_source<float>(edges, dist, next, s);
}

}  // namespace cudist::detail::cuda
