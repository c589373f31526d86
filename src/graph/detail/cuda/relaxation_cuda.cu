// CUDA backend of Bellman-Ford from every source (relaxation.hpp): the edge lists (a warp per row
// of the weights, in-edges by a stable radix sort of the out-edges by head), then the rounds of
// groups of sources (multi_source_relax.cuh), as many per block as relax_plan fits in its shared
// memory (global scratch, one source a block, when not even one fits). Edge lists are read by
// every block, so they stay in L2.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/cuda/check.hpp"
#include "core/cuda/device_features.hpp"
#include "core/detail/interrupt_check.hpp"
#include "cudist/core/array.hpp"
#include "graph/detail/backend.hpp"
#include "graph/detail/cuda/multi_source_relax.cuh"
#include "graph/detail/relax_plan.hpp"

namespace cudist::detail::cuda {
namespace {

constexpr int kThreads = 256;  // the edge-list kernels; a warp per row of the weights
constexpr int kRowsPerBlock = kThreads / 32;

template <class T>
__device__ bool is_edge(T w, std::int64_t u, std::int64_t v) {
  return u == v ? w < T(0) : w < std::numeric_limits<T>::infinity();
}

Array scratch_array(std::int64_t count, DType dtype, cudaStream_t stream) {
  int device = 0;
  CUDIST_CUDA_TRY(cudaGetDevice(&device));
  return Array::allocate(1, std::max<std::int64_t>(count, 1), dtype, Device::cuda(device), stream);
}

/// A warp per row u (coalesced): the number of edges leaving u.
template <class T>
__global__ void count_row_edges(T const* d, std::int64_t ld, std::int64_t n, std::int64_t* counts) {
  std::int64_t const u = std::int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
  if (u >= n) return;
  int const lane = threadIdx.x % 32;
  std::int64_t c = 0;
  for (std::int64_t v = lane; v < n; v += 32) c += is_edge(d[u * ld + v], u, v);
  for (int offset = 16; offset > 0; offset >>= 1) c += __shfl_down_sync(0xffffffffu, c, offset);
  if (lane == 0) counts[u] = c;
}

/// A warp per row u: its edges in column order, each lane placed by the ballot of the lanes
/// before it. Also records each edge's tail, for the in-edge grouping.
template <class T>
__global__ void gather_row_edges(T const* d, std::int64_t ld, std::int64_t n, std::int64_t const* offsets,
                                 std::int32_t* targets, T* weights, std::int32_t* tails) {
  std::int64_t const u = std::int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
  if (u >= n) return;
  unsigned const lane = threadIdx.x % 32;
  std::int64_t base = offsets[u];
  for (std::int64_t v0 = 0; v0 < n; v0 += 32) {
    std::int64_t const v = v0 + lane;
    T const w = v < n ? d[u * ld + v] : T(0);
    bool const edge = v < n && is_edge(w, u, v);
    unsigned const ballot = __ballot_sync(0xffffffffu, edge);
    if (edge) {
      std::int64_t const k = base + __popc(ballot & ((1u << lane) - 1));
      targets[k] = static_cast<std::int32_t>(v);
      weights[k] = w;
      if (tails != nullptr) tails[k] = static_cast<std::int32_t>(u);
    }
    base += __popc(ballot);
  }
}

__global__ void iota_kernel(std::int32_t* values, std::int64_t count) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    values[i] = static_cast<std::int32_t>(i);
  }
}

__global__ void count_heads(std::int32_t const* targets, std::int64_t edges, unsigned long long* counts) {
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < edges;
       k += std::int64_t(gridDim.x) * blockDim.x) {
    atomicAdd(counts + targets[k], 1ull);
  }
}

/// in-edge i is out-edge order[i] (the out-edges stably sorted by head: tails ascending).
template <class T>
__global__ void gather_in_edges(std::int32_t const* order, std::int64_t edges, std::int32_t const* tails,
                                T const* out_weights, std::int32_t* in_sources, T* in_weights) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < edges;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int32_t const k = order[i];
    in_sources[i] = tails[k];
    in_weights[i] = out_weights[k];
  }
}

unsigned blocks_for(std::int64_t items, int per_block) {
  return static_cast<unsigned>(std::max<std::int64_t>(1, (items + per_block - 1) / per_block));
}

template <class In, class Out>
void exclusive_sum(In const* in, Out* out, std::int64_t count, cudaStream_t stream) {
  std::size_t bytes = 0;
  CUDIST_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, count, stream));
  Array temp = scratch_array(static_cast<std::int64_t>(bytes), DType::kUInt8, stream);
  CUDIST_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, in, out, count, stream));
}

template <class T>
std::int64_t offsets_of(ConstMatrixView d, std::int64_t* offsets, cudaStream_t stream) {
  std::int64_t const n = d.rows;
  CUDIST_CUDA_TRY(cudaMemsetAsync(offsets + n, 0, sizeof(std::int64_t), stream));
  count_row_edges<<<blocks_for(n, kRowsPerBlock), kThreads, 0, stream>>>(static_cast<T const*>(d.data), d.stride,
                                                                         n, offsets);
  CUDIST_CHECK_LAUNCH();
  exclusive_sum(offsets, offsets, n + 1, stream);
  std::int64_t total = 0;
  CUDIST_CUDA_TRY(cudaMemcpyAsync(&total, offsets + n, sizeof(total), cudaMemcpyDeviceToHost, stream));
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
  return total;
}

template <class T>
void gather(ConstMatrixView d, EdgeListsOut e, cudaStream_t stream) {
  std::int64_t const n = d.rows;
  bool const separate_in = e.in_offsets != e.out_offsets;  // (the lists may be empty, null)
  std::int64_t edges = 0;
  CUDIST_CUDA_TRY(cudaMemcpyAsync(&edges, e.out_offsets + n, sizeof(edges), cudaMemcpyDeviceToHost, stream));
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
  Array tails = separate_in ? scratch_array(edges, DType::kInt32, stream) : Array{};
  gather_row_edges<<<blocks_for(n, kRowsPerBlock), kThreads, 0, stream>>>(
      static_cast<T const*>(d.data), d.stride, n, e.out_offsets, e.out_targets, static_cast<T*>(e.out_weights),
      separate_in ? tails.data_as<std::int32_t>() : nullptr);
  CUDIST_CHECK_LAUNCH();
  if (!separate_in || edges == 0) {
    if (separate_in) CUDIST_CUDA_TRY(cudaMemsetAsync(e.in_offsets, 0, (n + 1) * sizeof(std::int64_t), stream));
    return;
  }
  // In-edges: the out-edges stably sorted by head, so each head's tails stay ascending.
  Array counts = scratch_array(n + 1, DType::kInt64, stream);
  CUDIST_CUDA_TRY(cudaMemsetAsync(counts.data(), 0, (n + 1) * sizeof(std::int64_t), stream));
  count_heads<<<blocks_for(edges, kThreads), kThreads, 0, stream>>>(
      e.out_targets, edges, reinterpret_cast<unsigned long long*>(counts.data()));
  CUDIST_CHECK_LAUNCH();
  exclusive_sum(counts.data_as<std::int64_t>(), e.in_offsets, n + 1, stream);
  Array sorted_heads = scratch_array(edges, DType::kInt32, stream);
  Array identity = scratch_array(edges, DType::kInt32, stream), order = scratch_array(edges, DType::kInt32, stream);
  iota_kernel<<<blocks_for(edges, kThreads), kThreads, 0, stream>>>(identity.data_as<std::int32_t>(), edges);
  CUDIST_CHECK_LAUNCH();
  int end_bit = 1;
  while (end_bit < 31 && (std::int64_t(1) << end_bit) < n) ++end_bit;
  std::size_t bytes = 0;
  CUDIST_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, e.out_targets, sorted_heads.data_as<std::int32_t>(),
                                                  identity.data_as<std::int32_t>(), order.data_as<std::int32_t>(),
                                                  edges, 0, end_bit, stream));
  Array temp = scratch_array(static_cast<std::int64_t>(bytes), DType::kUInt8, stream);
  CUDIST_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, e.out_targets, sorted_heads.data_as<std::int32_t>(),
                                                  identity.data_as<std::int32_t>(), order.data_as<std::int32_t>(),
                                                  edges, 0, end_bit, stream));
  gather_in_edges<<<blocks_for(edges, kThreads), kThreads, 0, stream>>>(
      order.data_as<std::int32_t>(), edges, tails.data_as<std::int32_t>(), static_cast<T const*>(e.out_weights),
      e.in_sources, static_cast<T*>(e.in_weights));
  CUDIST_CHECK_LAUNCH();
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));  // the scratch arrays are freed on return
}

/// Threads per relaxation block: a warp per mask word up to 32 warps (one block per SM when a
/// group's state fills the shared memory, so that block must bring the warps that hide the edge
/// loads), and at least two.
int relax_threads(std::int64_t n) { return static_cast<int>(32 * std::clamp<std::int64_t>((n + 31) / 32, 2, 32)); }

template <class T, int S, bool kInShared>
bool relax_groups(RelaxParams<T> p, std::size_t smem, cudaStream_t stream) {
  auto const kernel = multi_source_relax_kernel<T, S, kInShared>;
  if (smem > 48 * 1024) {  // the whole allowance, the same in every call: no race between threads
    CUDIST_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(max_block_shared_memory())));
  }
  int const threads = relax_threads(p.n);
  std::int64_t const groups = (p.n + S - 1) / S;
  std::int64_t const blocks =
      std::min(groups, resident_blocks(reinterpret_cast<void const*>(kernel), threads, smem));
  Array scratch =
      kInShared ? Array{} : scratch_array(blocks * static_cast<std::int64_t>(p.block_bytes), DType::kUInt8, stream);
  p.scratch = kInShared ? nullptr : static_cast<unsigned char*>(scratch.data());
  // A few waves of groups per launch, and a wait between launches, so that an interrupt stops a
  // long call and a negative cycle ends it early.
  std::int64_t const per_launch = 8 * blocks;
  int flag = 0;
  for (std::int64_t first = 0; first < groups && flag == 0; first += per_launch) {
    throw_if_interrupted("apsp");
    p.first_group = first;
    p.end_group = std::min(groups, first + per_launch);
    kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(p);
    CUDIST_CHECK_LAUNCH();
    CUDIST_CUDA_TRY(cudaMemcpyAsync(&flag, p.unsettled, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
  }
  return flag == 0;
}

/// relax_groups for `sources` per block (a power of two, at most S) in shared memory.
template <class T, int S>
bool relax_groups_of(int sources, RelaxParams<T> p, std::size_t smem, cudaStream_t stream) {
  if constexpr (S > 1) {
    if (sources < S) return relax_groups_of<T, S / 2>(sources, p, smem, stream);
  }
  return relax_groups<T, S, true>(p, smem, stream);
}

template <class T>
bool relax_every_source(EdgeListsView e, MatrixView dist, MatrixView next, cudaStream_t stream) {
  bool const hops = next.data != nullptr;
  RelaxPlan const plan = relax_plan(e.vertices, sizeof(T), hops, max_block_shared_memory());
  Array unsettled = scratch_array(1, DType::kInt32, stream);
  CUDIST_CUDA_TRY(cudaMemsetAsync(unsettled.data(), 0, sizeof(int), stream));
  RelaxParams<T> p{};
  p.n = static_cast<int>(e.vertices);
  p.out_offsets = e.out_offsets;
  p.out_targets = e.out_targets;
  p.in_offsets = e.in_offsets;
  p.in_sources = e.in_sources;
  p.in_weights = static_cast<T const*>(e.in_weights);
  p.dist = static_cast<T*>(dist.data);
  p.ld = dist.stride;
  p.next = static_cast<std::int32_t*>(next.data);
  p.ldn = next.stride;
  p.block_bytes = plan.block_bytes;
  p.unsettled = unsettled.data_as<int>();
  if (!plan.in_shared) return relax_groups<T, 1, false>(p, 0, stream);
  return relax_groups_of<T, max_sources_per_block(sizeof(T))>(plan.sources_per_block, p, plan.block_bytes, stream);
}

}  // namespace

std::int64_t out_edge_offsets(ConstMatrixView d, std::int64_t* offsets, void* stream) {
  auto const s = static_cast<cudaStream_t>(stream);
  return d.dtype == DType::kFloat64 ? offsets_of<double>(d, offsets, s) : offsets_of<float>(d, offsets, s);
}

void gather_edges(ConstMatrixView d, EdgeListsOut edges, void* stream) {
  auto const s = static_cast<cudaStream_t>(stream);
  d.dtype == DType::kFloat64 ? gather<double>(d, edges, s) : gather<float>(d, edges, s);
}

bool bellman_ford_every_source(EdgeListsView edges, MatrixView dist, MatrixView next, void* stream) {
  auto const s = static_cast<cudaStream_t>(stream);
  return edges.dtype == DType::kFloat64 ? relax_every_source<double>(edges, dist, next, s)
                                        : relax_every_source<float>(edges, dist, next, s);
}

}  // namespace cudist::detail::cuda
