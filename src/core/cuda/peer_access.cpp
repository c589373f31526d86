#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <utility>

#include "core/detail/cuda_runtime.hpp"

namespace cudist::detail {
namespace {

/// Turns on `reader`'s direct access to `owner`'s memory; false where the GPUs have no peer link
/// or the driver refuses.
bool turn_on_peer_access(int reader, int owner) {
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, reader, owner) != cudaSuccess || can == 0) {
    cudaGetLastError();
    return false;
  }
  ScopedDevice const on_reader(Device::cuda(reader));
  cudaError_t const enabled = cudaDeviceEnablePeerAccess(owner, 0);
  cudaGetLastError();  // cudaErrorPeerAccessAlreadyEnabled (another library did it) is success
  if (enabled != cudaSuccess && enabled != cudaErrorPeerAccessAlreadyEnabled) return false;
  cudaMemPool_t pool = nullptr;
  if (cudaDeviceGetMemPool(&pool, owner) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  cudaMemAccessDesc access{};
  access.location.type = cudaMemLocationTypeDevice;
  access.location.id = reader;
  access.flags = cudaMemAccessFlagsProtReadWrite;
  if (cudaMemPoolSetAccess(pool, &access, 1) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}

}  // namespace

bool cuda_peer_access(int reader, int owner) {
  if (reader == owner) return true;
  static std::mutex mutex;
  static std::map<std::pair<int, int>, bool> known;  // asked once per pair and process
  std::lock_guard<std::mutex> const lock(mutex);
  auto const pair = std::make_pair(reader, owner);
  auto const found = known.find(pair);
  if (found != known.end()) return found->second;
  return known[pair] = turn_on_peer_access(reader, owner);
}

}  // namespace cudist::detail
