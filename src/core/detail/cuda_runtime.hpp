// The few CUDA runtime services the host side of cudist needs, behind plain C++ signatures so that
// .cpp files never include CUDA headers. Implemented in cuda/cuda_runtime.cpp when the CUDA backend
// is built, and by cuda_runtime_stubs.cpp (throwing DeviceUnavailable) when it is not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cudist/core/device.hpp"

namespace cudist::detail {

bool cuda_backend_compiled();
int cuda_runtime_device_count();                     ///< 0 when no driver / GPU
void cuda_set_device(int index);
int cuda_get_device();  ///< the calling thread's current device (0 without CUDA)
bool cuda_pointer_is_device(void const* p);          ///< false for host / unregistered memory
int cuda_pointer_device(void const* p);              ///< the GPU holding p; -1 for host memory
void* cuda_malloc_async(std::size_t bytes, void* stream, char const* who);  ///< throws OutOfMemory
void cuda_free_async(void* p, void* stream) noexcept;
/// 2-D copy between any memories (cudaMemcpy2DAsync with cudaMemcpyDefault; between two GPUs
/// the peer copy; to or from pageable host memory through page-locked stages, returning once
/// done).
void cuda_memcpy_2d_async(void* dst, std::size_t dpitch, void const* src, std::size_t spitch,
                          std::size_t width_bytes, std::size_t height, void* stream);
void cuda_stream_synchronize(void* stream);
/// Whether GPU `reader` reads GPU `owner`'s memory directly (NVLink or PCIe peer to peer), turning
/// that on the first time a pair is asked for, for the process: peer access for plain allocations
/// and access to `owner`'s current memory pool for cudaMallocAsync's, which peer access does not
/// cover. Copies between GPUs without it are staged through the host. True for one GPU with
/// itself; false without CUDA.
bool cuda_peer_access(int reader, int owner);
std::size_t cuda_free_memory();

// For pipelines that overlap kernels with copies to the host (out-of-core outputs).
void* cuda_host_alloc(std::size_t bytes, char const* who);  ///< page-locked; throws OutOfMemory
void cuda_host_free(void* p) noexcept;
bool cuda_pointer_is_pinned_host(void const* p);  ///< page-locked or registered host memory
void* cuda_stream_create();                       ///< a non-blocking stream on the current device
void cuda_stream_destroy(void* stream) noexcept;
void* cuda_event_create();                        ///< without timing
void cuda_event_destroy(void* event) noexcept;
void cuda_event_record(void* event, void* stream);
void cuda_stream_wait_event(void* stream, void* event);
/// Owners of the above: a stream (destroyed once its work is done), an event, or page-locked
/// host memory (cuda_host_alloc).
using StreamHandle = std::unique_ptr<void, decltype(&cuda_stream_destroy)>;
using EventHandle = std::unique_ptr<void, decltype(&cuda_event_destroy)>;
using PinnedHandle = std::unique_ptr<void, decltype(&cuda_host_free)>;

/// The word long-running kernels poll to stop early when request_interrupt() is called (it holds
/// the count of requests): page-locked host memory mapped into every device (with unified
/// addressing its host address is valid in kernels), allocated on first use and kept for the
/// process. Null when it cannot be allocated or without CUDA: kernels then run to their end.
std::uint64_t const* kernel_interrupt_word() noexcept;

/// For a CUDA device: makes it the calling thread's current device for the scope's lifetime and
/// restores the caller's device afterwards, so a call on cuda:1 does not leave cuda:1 current.
/// Nothing for the CPU.
class ScopedDevice {
 public:
  explicit ScopedDevice(Device device) {
    if (device.is_cuda()) {
      previous_ = cuda_get_device();
      cuda_set_device(device.index);
    }
  }
  ~ScopedDevice() {
    if (previous_ >= 0) cuda_restore_device(previous_);
  }
  ScopedDevice(ScopedDevice const&) = delete;
  ScopedDevice& operator=(ScopedDevice const&) = delete;

 private:
  static void cuda_restore_device(int index) noexcept;
  int previous_ = -1;
};

}  // namespace cudist::detail
