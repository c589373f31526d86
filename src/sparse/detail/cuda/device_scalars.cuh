// Helpers of the set-up code (plans and checks), which synchronizes anyway: small reads back to
// the host, and grid sizes for its grid-stride kernels.
#pragma once

#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#include "cudist/core/device.hpp"

namespace cudist::sparse::detail::cuda {

/// *p, read from device memory; synchronizes `stream`.
template <class E>
E read_device_value(E const* p, cudaStream_t stream) {
  E value{};
  CUDIST_CUDA_TRY(cudaMemcpyAsync(&value, p, sizeof(E), cudaMemcpyDeviceToHost, stream));
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
  return value;
}

/// Blocks for a grid-stride loop over n items: enough to fill the current GPU, no more.
inline unsigned grid_stride_blocks(long long n, int threads) {
  int device = 0, sms = 0;
  CUDIST_CUDA_TRY(cudaGetDevice(&device));
  CUDIST_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  long long const wanted = (n + threads - 1) / threads;
  long long const full = 8LL * sms;  // 8 blocks of 256 threads fill an SM
  return static_cast<unsigned>(wanted < 1 ? 1 : (wanted < full ? wanted : full));
}

/// The CUDA device current on this thread.
inline Device current_device() {
  int device = 0;
  CUDIST_CUDA_TRY(cudaGetDevice(&device));
  return Device::cuda(device);
}

}  // namespace cudist::sparse::detail::cuda
