// The few CUDA runtime services the host side of cudist needs, behind plain C++ signatures so that
// .cpp files never include CUDA headers. Implemented in cuda/cuda_runtime.cpp when the CUDA backend
// is built, and by cuda_runtime_stubs.cpp (throwing DeviceUnavailable) when it is not.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudist::detail {

bool cuda_backend_compiled();
int cuda_runtime_device_count();                     ///< 0 when no driver / GPU
void cuda_set_device(int index);
bool cuda_pointer_is_device(void const* p);          ///< false for host / unregistered memory
void* cuda_malloc_async(std::size_t bytes, void* stream, char const* who);  ///< throws OutOfMemory
void cuda_free_async(void* p, void* stream) noexcept;
/// 2-D copy between any memories (cudaMemcpy2DAsync with cudaMemcpyDefault).
void cuda_memcpy_2d_async(void* dst, std::size_t dpitch, void const* src, std::size_t spitch,
                          std::size_t width_bytes, std::size_t height, void* stream);
void cuda_stream_synchronize(void* stream);
std::size_t cuda_free_memory();

}  // namespace cudist::detail
