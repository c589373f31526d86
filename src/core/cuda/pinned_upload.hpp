// Copies from pageable host memory to a GPU through page-locked stages, several host threads
// filling one stage while the copy engine reads the one before.
//
// Why: a plain cudaMemcpy2DAsync from pageable memory has the driver stage it through its own
// buffer with one thread; on the H100 machines measured here that ran at 4.4-7.5 GB/s (a knn's
// 225 MB of fp32 inputs took 30 ms, half of the kernels' 57 ms; run of 2026-11-26 on two H100s).
// The copy engine reads page-locked memory several times faster, and filling a stage is a host
// memcpy that threads share. The stages are kept for the process (kStages per upload in flight),
// as caching host allocators do, since page-locking memory costs far more than copying it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cudist::detail::cuda {

/// Uploads below this many bytes go the driver's way: the stages' round trips would not pay.
constexpr std::size_t kPinnedUploadBytes = std::size_t{4} << 20;

/// Copies `height` rows of `width_bytes` from pageable host memory at `src` (rows `spitch` bytes
/// apart) to device memory at `dst` (rows `dpitch` apart) in stream order, and returns once the
/// copy is done. Returns false, having copied nothing, where the stages cannot be had (no
/// page-locked memory left) or a row is wider than a stage: the caller copies the plain way.
bool upload_through_pinned_stages(void* dst, std::size_t dpitch, void const* src,
                                  std::size_t spitch, std::size_t width_bytes, std::size_t height,
                                  cudaStream_t stream);

}  // namespace cudist::detail::cuda
