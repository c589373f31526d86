// Device workspaces and small host <-> device steps of the GPU selection: stream-ordered arrays on
// the current device (freed in stream order when they go out of scope), a scan, one value back.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <cub/device/device_scan.cuh>

#include "core/cuda/check.hpp"
#include "core/cuda/device_array.hpp"
#include "cudist/core/array.hpp"

namespace cudist::neighbors::detail::cuda {

using cudist::detail::cuda::current_device;
using cudist::detail::cuda::device_array;

/// Raw device bytes (as uint8); never null, as CUB reads a null workspace as a size query.
inline Array device_bytes(std::size_t bytes, cudaStream_t stream) {
  return device_array(1, static_cast<std::int64_t>(std::max<std::size_t>(bytes, 16)), DType::kUInt8, stream);
}

inline Array upload(std::vector<std::int64_t> const& v, cudaStream_t stream) {
  Array host = Array::allocate(1, static_cast<std::int64_t>(v.size()), DType::kInt64, Device::cpu());
  std::copy(v.begin(), v.end(), host.data_as<std::int64_t>());
  return Array::copy_of(host.view(), current_device(), stream);
}

/// One value to the host. Synchronizes the stream.
template <class T>
T download_one(T const* device_value, cudaStream_t stream) {
  T v{};
  CUDIST_CUDA_TRY(cudaMemcpyAsync(&v, device_value, sizeof(T), cudaMemcpyDeviceToHost, stream));
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
  return v;
}

template <class In, class Out>
void exclusive_sum(In const* in, Out* out, std::int64_t n, cudaStream_t stream) {
  std::size_t bytes = 0;
  CUDIST_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, stream));
  Array temp = device_bytes(bytes, stream);
  CUDIST_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, in, out, n, stream));
}

}  // namespace cudist::neighbors::detail::cuda
