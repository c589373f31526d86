// Built instead of cuda/cuda_runtime.cpp when cudist is configured without CUDA: every GPU request
// becomes a clear DeviceUnavailable error.
#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"

namespace cudist::detail {
namespace {
[[noreturn]] void not_compiled(char const* who) {
  CUDIST_THROW(DeviceUnavailable, who << ": this build of cudist has no CUDA backend "
                                         "(configure with -DCUDIST_ENABLE_CUDA=ON)");
}
}  // namespace

bool cuda_backend_compiled() { return false; }
int cuda_runtime_device_count() { return 0; }
void cuda_set_device(int) { not_compiled("cuda_set_device"); }
int cuda_get_device() { return 0; }
void ScopedDevice::cuda_restore_device(int) noexcept {}
bool cuda_pointer_is_device(void const*) { return false; }
int cuda_pointer_device(void const*) { return -1; }
void* cuda_malloc_async(std::size_t, void*, char const* who) { not_compiled(who); }
void cuda_free_async(void*, void*) noexcept {}
void cuda_memcpy_2d_async(void*, std::size_t, void const*, std::size_t, std::size_t, std::size_t,
                          void*) {
  not_compiled("copy");
}
void cuda_stream_synchronize(void*) {}
bool cuda_peer_access(int, int) { return false; }
std::size_t cuda_free_memory() { return 0; }
void* cuda_host_alloc(std::size_t, char const* who) { not_compiled(who); }
void cuda_host_free(void*) noexcept {}
bool cuda_pointer_is_pinned_host(void const*) { return false; }
void* cuda_stream_create() { not_compiled("cuda_stream_create"); }
void cuda_stream_destroy(void*) noexcept {}
void* cuda_event_create() { not_compiled("cuda_event_create"); }
void cuda_event_destroy(void*) noexcept {}
void cuda_event_record(void*, void*) { not_compiled("cuda_event_record"); }
void cuda_stream_wait_event(void*, void*) { not_compiled("cuda_stream_wait_event"); }
std::uint64_t const* kernel_interrupt_word() noexcept { return nullptr; }

}  // namespace cudist::detail
