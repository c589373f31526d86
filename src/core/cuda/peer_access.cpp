#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "core/detail/cuda_runtime.hpp"

namespace cudist::detail {
namespace {

/// Memory of a pool that a peer may read is mapped on both GPUs, and the pool releases what it
/// holds above its threshold (0 by default) at every synchronization: mapping it again on both in
/// the next call cost a knn of 40000 x 400000 split over two H100s from CuPy ~14 ms of 39 (median
/// 39.0 ms, 25.0 with the threshold at its maximum, run 41; one GPU alone: no difference). So
/// such a pool keeps up to a sixteenth of its GPU's memory mapped (a threshold never lowered).
void keep_mapped(cudaMemPool_t pool, int owner) {
  ScopedDevice const on_owner(Device::cuda(owner));
  std::size_t free_bytes = 0, total_bytes = 0;
  std::uint64_t threshold = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  std::uint64_t kept = total_bytes / 16;
  if (kept > threshold && cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &kept) != cudaSuccess) {
    cudaGetLastError();
  }
}

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
  keep_mapped(pool, owner);
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
