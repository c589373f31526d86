// Measures the ceilings every floor is computed from (BENCHMARKS.md), on the current device, in
// the same run as the suites: write and copy bandwidth, the issue rates of the instructions the
// SIMT kernels are built from (FFMA; FADD + FMNMX; POPC; DPX viaddmin), and the tensor cores'
// rates as cuBLAS reaches them in a large GEMM (int8, bf16, tf32).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "common/gpu_timer.cuh"
#include "core/detail/expects.hpp"
#include "common/suite.hpp"

namespace cudist::bench {
namespace {

constexpr int kIssueBlocks = 132 * 8;
constexpr int kIssueThreads = 256;
constexpr int kIssueIters = 4096;
constexpr int kChains = 8;  // independent dependency chains per thread: hides pipe latency

__global__ void write_kernel(float4* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    __stcs(p + i, make_float4(1.f, 2.f, 3.f, 4.f));
}

// Each kernel keeps kChains chains live for kIssueIters steps and stores only if an impossible
// value appears, so nothing is optimised away and memory traffic is nil.
__global__ void ffma_kernel(float seed, float* sink) {
  float v[kChains];
  for (int c = 0; c < kChains; ++c) v[c] = seed + threadIdx.x + c;
  for (int it = 0; it < kIssueIters; ++it)
#pragma unroll
    for (int c = 0; c < kChains; ++c) v[c] = fmaf(v[c], 0.999f, 0.5f);
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += v[c];
  if (s == -1.f) *sink = s;
}

// One update = FADD + FMNMX, the min-plus inner step; the shared counter add is 1/kChains extra.
__global__ void add_min_kernel(float seed, float* sink) {
  float v[kChains], bias[kChains];
  float t = seed * threadIdx.x;
  for (int c = 0; c < kChains; ++c) {
    v[c] = seed + c;
    bias[c] = 0.25f * c;
  }
  for (int it = 0; it < kIssueIters; ++it) {
    t += 1.0f;
#pragma unroll
    for (int c = 0; c < kChains; ++c) v[c] = fminf(v[c], t + bias[c]);
  }
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += v[c];
  if (s == -1.f) *sink = s;
}

__global__ void popc_kernel(unsigned seed, unsigned* sink) {
  unsigned v[kChains];
  for (int c = 0; c < kChains; ++c) v[c] = seed ^ (threadIdx.x * 2654435761u + c);
  unsigned acc = 0;
  for (int it = 0; it < kIssueIters; ++it)
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      v[c] = __popc(v[c] ^ it) + v[c];
    }
  for (int c = 0; c < kChains; ++c) acc += v[c];
  if (acc == 0xdeadbeefu) *sink = acc;
}

__global__ void dpx_s32_kernel(int seed, int* sink) {
  int v[kChains];
  int w = seed * static_cast<int>(threadIdx.x);
  for (int c = 0; c < kChains; ++c) v[c] = seed + static_cast<int>(threadIdx.x) + c;
  for (int it = 0; it < kIssueIters; ++it) {
    w += 1;
#pragma unroll
    for (int c = 0; c < kChains; ++c) v[c] = __viaddmin_s32(w, c, v[c]);  // min(w + c, v)
  }
  int s = 0;
  for (int c = 0; c < kChains; ++c) s += v[c];
  if (s == -1) *sink = s;
}

__global__ void dpx_s16x2_kernel(unsigned seed, unsigned* sink) {
  unsigned v[kChains];
  unsigned w = seed * threadIdx.x;
  for (int c = 0; c < kChains; ++c) v[c] = seed + threadIdx.x * 65537u + c;
  for (int it = 0; it < kIssueIters; ++it) {
    w += 0x00010001u;
#pragma unroll
    for (int c = 0; c < kChains; ++c) v[c] = __viaddmin_s16x2(w, c * 0x00010001u, v[c]);
  }
  unsigned s = 0;
  for (int c = 0; c < kChains; ++c) s += v[c];
  if (s == 0xdeadbeefu) *sink = s;
}

/// Random values in [-1, 1) (int8: [-128, 127]) from a hash of the index: the tensor cores run
/// faster on zeros than on real data (METHOD.md), so a rate measured on zeros would be too high.
template <class T>
__global__ void fill_random_kernel(T* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    if constexpr (std::is_same_v<T, std::int8_t>) {
      p[i] = static_cast<std::int8_t>(h >> 24);
    } else {
      p[i] = static_cast<T>(static_cast<float>(h >> 8) * 0x1p-23f - 1.0f);
    }
  }
}

#define CUDIST_BENCH_CUBLAS(call)                                                               \
  do {                                                                                          \
    cublasStatus_t const status_ = (call);                                                      \
    if (status_ != CUBLAS_STATUS_SUCCESS) CUDIST_THROW(CudaError, #call << ": " << cublasGetStatusString(status_)); \
  } while (0)

/// Multiply-adds per second of an n x n x n cuBLAS GEMM (C = A^T B, the layout every library
/// runs fastest) on random inputs of `in` into `out`: the tensor pipe's rate as GEMM-based
/// search libraries get it. `ab` holds 2 n^2 inputs, `c` n^2 outputs.
template <class In>
double gemm_rate(cublasHandle_t handle, cudaDataType in, cudaDataType out, cublasComputeType_t compute,
                 void* ab, void* c, int n) {
  std::size_t const count = std::size_t(n) * n;
  auto* const a = static_cast<In*>(ab);
  fill_random_kernel<<<1024, 256>>>(a, 2 * count);
  CUDIST_CUDA_TRY(cudaGetLastError());
  std::int32_t const one_i = 1, zero_i = 0;
  float const one_f = 1, zero_f = 0;
  bool const integer = compute == CUBLAS_COMPUTE_32I;
  double const us = median_time_us(
      [&](cudaStream_t s) {
        CUDIST_BENCH_CUBLAS(cublasSetStream(handle, s));
        CUDIST_BENCH_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n,
                                         integer ? static_cast<void const*>(&one_i) : &one_f, a, in, n,
                                         a + count, in, n, integer ? static_cast<void const*>(&zero_i) : &zero_f,
                                         c, out, n, compute, CUBLAS_GEMM_DEFAULT));
      },
      2, 5);
  return double(count) * n / (us * 1e-6);
}

/// Operations per second of a kernel doing `ops_per_step` per chain step.
template <class Launch>
double issue_rate(Launch launch, double ops_per_step) {
  double const us = median_time_us([&](cudaStream_t s) { launch(s); }, 2, 5);
  double const ops = double(kIssueBlocks) * kIssueThreads * kIssueIters * kChains * ops_per_step;
  return ops / (us * 1e-6);
}

}  // namespace

Ceilings measure_ceilings() {
  Ceilings c;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return c;
  }
  cudaDeviceProp prop{};
  CUDIST_CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
  c.device_name = prop.name;

  std::size_t const bytes = std::size_t(2) << 30;  // 2 GiB: far beyond L2
  void *a = nullptr, *b = nullptr;
  CUDIST_CUDA_TRY(cudaMalloc(&a, bytes));
  CUDIST_CUDA_TRY(cudaMalloc(&b, bytes));
  CUDIST_CUDA_TRY(cudaMemset(a, 1, bytes));
  double const write_us = median_time_us(
      [&](cudaStream_t s) { write_kernel<<<prop.multiProcessorCount * 8, 512, 0, s>>>(static_cast<float4*>(a), bytes / 16); },
      2, 10);
  c.write_bytes_per_s = bytes / (write_us * 1e-6);
  double const copy_us = median_time_us(
      [&](cudaStream_t s) { CUDIST_CUDA_TRY(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s)); }, 2, 10);
  c.copy_bytes_per_s = 2.0 * bytes / (copy_us * 1e-6);

  float* fsink = static_cast<float*>(b);
  c.fma_per_s = issue_rate([&](cudaStream_t s) { ffma_kernel<<<kIssueBlocks, kIssueThreads, 0, s>>>(1.f, fsink); }, 1);
  c.fmnmx_add_per_s =
      issue_rate([&](cudaStream_t s) { add_min_kernel<<<kIssueBlocks, kIssueThreads, 0, s>>>(1.f, fsink); }, 1);
  c.popc_per_s = issue_rate(
      [&](cudaStream_t s) { popc_kernel<<<kIssueBlocks, kIssueThreads, 0, s>>>(7u, static_cast<unsigned*>(b)); }, 1);
  c.dpx_s32_per_s = issue_rate(
      [&](cudaStream_t s) { dpx_s32_kernel<<<kIssueBlocks, kIssueThreads, 0, s>>>(7, static_cast<int*>(b)); }, 1);
  c.dpx_s16x2_per_s = issue_rate(
      [&](cudaStream_t s) { dpx_s16x2_kernel<<<kIssueBlocks, kIssueThreads, 0, s>>>(7u, static_cast<unsigned*>(b)); }, 2);
  CUDIST_CUDA_TRY(cudaGetLastError());

  cublasHandle_t handle = nullptr;
  CUDIST_BENCH_CUBLAS(cublasCreate(&handle));
  constexpr int kGemm = 8192;  // 2 x 256 MB of fp32 inputs, 256 MB of output: fits a and b
  c.mma_int8_per_s = gemm_rate<std::int8_t>(handle, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, a, b, kGemm);
  c.mma_bf16_per_s = gemm_rate<__nv_bfloat16>(handle, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, a, b, kGemm);
  c.mma_tf32_per_s = gemm_rate<float>(handle, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, a, b, kGemm);
  cublasDestroy(handle);
  cudaFree(a);
  cudaFree(b);
  return c;
}

}  // namespace cudist::bench
