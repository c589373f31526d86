#include "core/detail/cuda_runtime.hpp"

#include <cuda_runtime_api.h>

#include "core/detail/expects.hpp"
#include "core/detail/interrupt_check.hpp"
#include "core/cuda/check.hpp"
#include "core/cuda/pinned_stages.hpp"
#include "cudist/core/timeline.hpp"

namespace cudist::detail {

bool cuda_backend_compiled() { return true; }

int cuda_runtime_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return count;
}

void cuda_set_device(int index) { CUDIST_CUDA_TRY(cudaSetDevice(index)); }

int cuda_get_device() {
  int index = 0;
  CUDIST_CUDA_TRY(cudaGetDevice(&index));
  return index;
}

void ScopedDevice::cuda_restore_device(int index) noexcept { cudaSetDevice(index); }

namespace {

/// What the runtime knows of the memory at p; pointers it does not know read as pageable host memory.
cudaPointerAttributes attributes_of(void const* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    attr.type = cudaMemoryTypeUnregistered;
  }
  return attr;
}

}  // namespace

bool cuda_pointer_is_device(void const* p) {
  cudaMemoryType const type = attributes_of(p).type;
  return type == cudaMemoryTypeDevice || type == cudaMemoryTypeManaged;
}

int cuda_pointer_device(void const* p) {
  cudaPointerAttributes const attr = attributes_of(p);
  return attr.type == cudaMemoryTypeDevice ? attr.device : -1;
}

void* cuda_malloc_async(std::size_t bytes, void* stream, char const* who) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  cudaError_t const err = cudaMallocAsync(&p, bytes, static_cast<cudaStream_t>(stream));
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (err == cudaErrorMemoryAllocation) {
      std::size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      CUDIST_THROW(OutOfMemory, who << ": GPU out of memory allocating " << bytes << " bytes ("
                                    << free_b << " of " << total_b << " bytes free)");
    }
    CUDIST_THROW(CudaError, who << ": cudaMallocAsync(" << bytes << ") failed: "
                                << cudaGetErrorName(err) << ": " << cudaGetErrorString(err));
  }
  return p;
}

void cuda_free_async(void* p, void* stream) noexcept {
  if (p != nullptr) cudaFreeAsync(p, static_cast<cudaStream_t>(stream));
}

void cuda_memcpy_2d_async(void* dst, std::size_t dpitch, void const* src, std::size_t spitch,
                          std::size_t width_bytes, std::size_t height, void* stream) {
  if (width_bytes == 0 || height == 0) return;
  auto const s = static_cast<cudaStream_t>(stream);
  cudaPointerAttributes const from = attributes_of(src);
  cudaPointerAttributes const to = attributes_of(dst);
  if (from.type == cudaMemoryTypeDevice && to.type == cudaMemoryTypeDevice && from.device != to.device) {
    // Between two GPUs, cudaMemcpy2DAsync is refused (cudaErrorInvalidValue: measured on two
    // H100s without peer access, where a device set's parts copy their rows into the output on
    // the first GPU); the peer forms copy with or without peer access. Contiguous rows go as one run
    // of bytes rather than as a pitched copy of many short rows.
    if ((spitch == width_bytes && dpitch == width_bytes) || height == 1) {
      CUDIST_CUDA_TRY(cudaMemcpyPeerAsync(dst, to.device, src, from.device, width_bytes * height, s));
      return;
    }
    cudaMemcpy3DPeerParms p{};
    p.srcPtr = cudaPitchedPtr{const_cast<void*>(src), spitch, width_bytes, height};
    p.srcDevice = from.device;
    p.dstPtr = cudaPitchedPtr{dst, dpitch, width_bytes, height};
    p.dstDevice = to.device;
    p.extent = cudaExtent{width_bytes, height, 1};
    CUDIST_CUDA_TRY(cudaMemcpy3DPeerAsync(&p, s));
    return;
  }
  bool const host_to_device = from.type != cudaMemoryTypeDevice && to.type == cudaMemoryTypeDevice;
  bool const device_to_host = from.type == cudaMemoryTypeDevice && to.type != cudaMemoryTypeDevice;
  // A copy the host waits for (to or from pageable memory) spans its time; others, their enqueueing.
  TimelineSpan const span(host_to_device   ? "copy to the GPU"
                          : device_to_host ? "copy from the GPU"
                                           : "copy",
                          static_cast<std::int64_t>(width_bytes * height));
  // A copy between host memory and a GPU runs with that GPU current: the staged copies' events
  // are created there and recorded on the stream, which must be that GPU's (the default stream is
  // the current GPU's), and so must the plain copy's. With another GPU current, a download from
  // cuda:0 through the stages (2 x H200, run 131) and a 2.5 KB upload and download without them
  // (run 185) failed with cudaErrorInvalidValue.
  ScopedDevice const on(from.type == cudaMemoryTypeDevice ? Device::cuda(from.device)
                        : to.type == cudaMemoryTypeDevice ? Device::cuda(to.device)
                                                          : Device::cpu());
  if (from.type == cudaMemoryTypeUnregistered && to.type == cudaMemoryTypeDevice &&
      width_bytes * height >= cuda::kPinnedUploadBytes) {
    if (cuda::upload_through_pinned_stages(dst, dpitch, src, spitch, width_bytes, height, s)) return;
  }
  if (from.type == cudaMemoryTypeDevice && to.type == cudaMemoryTypeUnregistered &&
      width_bytes * height >= cuda::kPinnedDownloadBytes) {
    if (cuda::download_through_pinned_stages(dst, dpitch, src, spitch, width_bytes, height, s)) return;
  }
  CUDIST_CUDA_TRY(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width_bytes, height, cudaMemcpyDefault, s));
}

void cuda_stream_synchronize(void* stream) {
  TimelineSpan const span("wait for the GPU");
  CUDIST_CUDA_TRY(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

std::size_t cuda_free_memory() {
  std::size_t free_b = 0, total_b = 0;
  CUDIST_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  return free_b;
}

void* cuda_host_alloc(std::size_t bytes, char const* who) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  cudaError_t const err = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
  if (err != cudaSuccess) {
    cudaGetLastError();
    CUDIST_THROW(OutOfMemory, who << ": cannot allocate " << bytes
                                  << " bytes of page-locked host memory: " << cudaGetErrorString(err));
  }
  return p;
}

void cuda_host_free(void* p) noexcept {
  if (p != nullptr) cudaFreeHost(p);
}

bool cuda_pointer_is_pinned_host(void const* p) { return attributes_of(p).type == cudaMemoryTypeHost; }

void* cuda_stream_create() {
  cudaStream_t s = nullptr;
  CUDIST_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}

void cuda_stream_destroy(void* stream) noexcept {
  if (stream != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}

void* cuda_event_create() {
  cudaEvent_t e = nullptr;
  CUDIST_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return e;
}

void cuda_event_destroy(void* event) noexcept {
  if (event != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(event));
}

void cuda_event_record(void* event, void* stream) {
  CUDIST_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)));
}

void cuda_stream_wait_event(void* stream, void* event) {
  CUDIST_CUDA_TRY(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event), 0));
}

std::uint64_t const* kernel_interrupt_word() noexcept {
  static std::uint64_t* const word = [] {
    void* p = nullptr;
    // Portable: one allocation serves every device; mapped: kernels read it across the bus.
    if (cudaHostAlloc(&p, sizeof(std::uint64_t), cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();  // kernels then run to their end; nothing else depends on it
      return static_cast<std::uint64_t*>(nullptr);
    }
    publish_kernel_interrupt_word(static_cast<std::uint64_t*>(p));
    return static_cast<std::uint64_t*>(p);
  }();
  return word;
}

}  // namespace cudist::detail
