#include "core/cuda/device_features.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>

#include "core/cuda/check.hpp"

namespace cudist::detail::cuda {
namespace {

/// The oldest supported GPU (Turing): its opt-in limit is what every device offers.
constexpr std::size_t kPortableBlockSharedMemory = 64 * 1024;

int current_device_attribute(cudaDeviceAttr attr) {
  int device = 0;
  CUDIST_CUDA_TRY(cudaGetDevice(&device));
  int value = 0;
  CUDIST_CUDA_TRY(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

/// The environment variable is set to anything but "" or "0".
bool flag_set(char const* name) {
  char const* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

}  // namespace

bool force_portable() {
  static bool const forced = flag_set("CUDIST_FORCE_PORTABLE");
  return forced;
}

bool simt_selection_forced() { return flag_set("CUDIST_SIMT_SELECTION"); }

bool mma_sync_forced() { return flag_set("CUDIST_MMA_SYNC"); }

bool device_has_dpx() {
  return !force_portable() && current_device_attribute(cudaDevAttrComputeCapabilityMajor) >= 9;
}

std::size_t max_block_shared_memory() {
  if (force_portable()) return kPortableBlockSharedMemory;
  return static_cast<std::size_t>(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
}

int multiprocessors() { return current_device_attribute(cudaDevAttrMultiProcessorCount); }

std::int64_t resident_blocks(void const* kernel, int threads, std::size_t smem) {
  int per_sm = 0;
  CUDIST_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  return std::int64_t{per_sm > 1 ? per_sm : 1} * multiprocessors();
}

bool kernel_image_has(void const* kernel, int arch) {
  if (force_portable()) return false;
  cudaFuncAttributes attributes{};
  cudaError_t const found = cudaFuncGetAttributes(&attributes, kernel);
  if (found == cudaErrorInvalidDeviceFunction || found == cudaErrorNoKernelImageForDevice) {
    cudaGetLastError();  // not sticky: cleared, so that the next call does not report it
    return false;
  }
  CUDIST_CUDA_TRY(found);
  return attributes.ptxVersion >= arch && attributes.binaryVersion >= arch;
}

}  // namespace cudist::detail::cuda
