// Timing for the GPU suites (BENCHMARKS.md "Method"): CUDA events around each run, warm-up first,
// the median of the timed runs, and an L2 flush before each run so the cache is not measured.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "core/cuda/check.hpp"

namespace cudist::bench {

/// Overwrites a buffer larger than L2 so the next run starts from a cold cache.
class L2Flusher {
 public:
  L2Flusher() {
    int dev = 0, l2 = 0;
    CUDIST_CUDA_TRY(cudaGetDevice(&dev));
    CUDIST_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    bytes_ = static_cast<size_t>(l2) * 2;
    CUDIST_CUDA_TRY(cudaMalloc(&buf_, bytes_));
  }
  ~L2Flusher() { cudaFree(buf_); }
  L2Flusher(L2Flusher const&) = delete;
  L2Flusher& operator=(L2Flusher const&) = delete;
  void flush(cudaStream_t s) { CUDIST_CUDA_TRY(cudaMemsetAsync(buf_, 0, bytes_, s)); }

 private:
  void* buf_ = nullptr;
  size_t bytes_ = 0;
};

/// Keeps the GPU busy for `ns` nanoseconds, so that the host work of the call being timed is
/// enqueued before the start event fires: events then time the GPU work, not the host's.
template <int = 0>
__global__ void spin_kernel(long long ns) {
  long long const start = clock64();
  while (clock64() - start < ns * 2) {  // ~2 GHz SM clock; only needs to be long enough
  }
}

/// Median time in microseconds of `fn(stream)` over `repeats` runs after `warmup` runs, each run
/// preceded (outside the timed region) by an L2 flush and a spin that hides host overheads.
template <class Fn>
double median_time_us(Fn&& fn, int warmup, int repeats, cudaStream_t stream = nullptr) {
  L2Flusher flusher;
  cudaEvent_t start, stop;
  CUDIST_CUDA_TRY(cudaEventCreate(&start));
  CUDIST_CUDA_TRY(cudaEventCreate(&stop));
  for (int i = 0; i < warmup; ++i) fn(stream);
  std::vector<float> ms(repeats);
  for (int i = 0; i < repeats; ++i) {
    flusher.flush(stream);
    spin_kernel<><<<1, 1, 0, stream>>>(200000);
    CUDIST_CUDA_TRY(cudaEventRecord(start, stream));
    fn(stream);
    CUDIST_CUDA_TRY(cudaEventRecord(stop, stream));
    CUDIST_CUDA_TRY(cudaEventSynchronize(stop));
    CUDIST_CUDA_TRY(cudaEventElapsedTime(&ms[i], start, stop));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + repeats / 2, ms.end());
  return 1000.0 * ms[repeats / 2];
}

}  // namespace cudist::bench
