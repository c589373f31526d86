// What the current CUDA device offers beyond the oldest supported GPU (Turing, sm_75), asked at
// run time: the library carries code for several architectures (cmake/CudistCudaArchitectures.cmake)
// and the host picks a path per call. CUDIST_FORCE_PORTABLE=1 makes every device look like the
// oldest one, so the tests run the fallback paths on an H100 (docs/tuning.md "Architectures").
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudist::detail::cuda {

/// CUDIST_FORCE_PORTABLE is set to anything but "" or "0" (read once per process).
bool force_portable();

/// CUDIST_SIMT_SELECTION is set to anything but "" or "0" (read at every call, so that a test can
/// compare the two paths in one process): float32 knn / match take the SIMT engine instead of the
/// tensor-core candidate search, with the same results.
bool simt_selection_forced();

/// The current device executes DPX instructions (__viaddmin_s32 and kin) in hardware: compute
/// capability 9.0 and later. Older GPUs emulate them in several instructions.
bool device_has_dpx();

/// Dynamic shared memory one block of the current device may opt in to (H100 227 KB, A100
/// 163 KB, sm_86 / sm_89 / sm_120 99 KB, Turing 64 KB); Turing's 64 KB when forced portable.
std::size_t max_block_shared_memory();

/// Streaming multiprocessors of the current device.
int multiprocessors();

/// Blocks of `kernel` (a __global__ function; `threads` each, `smem` bytes of dynamic shared
/// memory) that the current device runs at once, at least one per multiprocessor: the grid of a
/// persistent kernel, whose blocks loop over the work.
std::int64_t resident_blocks(void const* kernel, int threads, std::size_t smem);

/// CUDIST_MMA_SYNC is set to anything but "" or "0" (read at every call): the tensor-core searches
/// (byte rows, and float32's best two) keep the mma.sync contraction where Hopper's wgmma would
/// run, with the same results (the tests run both).
bool mma_sync_forced();

/// The machine code the runtime loads for `kernel` (a __global__ function) on the current device
/// was built for `arch` (80: sm_80) or later, PTX and SASS both; false where the build holds no
/// image the device runs (the wgmma kernels exist for sm_90a alone) and when forced portable.
bool kernel_image_has(void const* kernel, int arch);

/// kernel_image_has(kernel, 80): the int8 tensor-core paths (mma.sync, cp.async, ldmatrix), whose
/// images for older GPUs hold a trap instead.
inline bool kernel_image_has_sm80(void const* kernel) { return kernel_image_has(kernel, 80); }

}  // namespace cudist::detail::cuda
