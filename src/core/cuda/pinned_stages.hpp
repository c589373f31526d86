// Copies between pageable host memory and a GPU through page-locked stages: several host threads
// fill one stage while the copy engine reads the one before (uploads), or drain one stage while the
// copy engine writes the next (downloads).
//
// Why: a plain cudaMemcpy2DAsync to or from pageable memory has the driver stage it through its own
// buffer with one thread; on the H100 machines measured here uploads ran at 4.4-7.5 GB/s (a knn's
// 225 MB of fp32 inputs took 30 ms, half of the kernels' 57 ms; run of 2026-11-26 on two H100s),
// and a knn's 4.8 MB answer took 6.5-7 ms to reach fresh NumPy arrays, whose pages the one thread
// also faults in one by one (runs 31-32). The copy engine reads and writes page-locked memory
// several times faster, and a stage's host side is a memcpy that threads share, page faults
// included. The stages are kept for the process (kStages per copy in flight), as caching host
// allocators do, since page-locking memory costs far more than copying it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cudist::detail::cuda {

/// Uploads below this many bytes go the driver's way: the stages' round trips would not pay.
constexpr std::size_t kPinnedUploadBytes = std::size_t{4} << 20;

/// Downloads below this many bytes go the driver's way. Lower than for uploads: a download's
/// destination is often fresh memory (a new NumPy array), whose page faults the threads share.
/// 256 KiB, not 1 MiB: in run 64 (2 x H200) each GPU's 0.8 MB of distances took 4.0-5.4 ms the
/// driver's way, the two at once, where the 1.6 MB of indices took 0.18 ms through the stages.
constexpr std::size_t kPinnedDownloadBytes = std::size_t{256} << 10;

/// Copies `height` rows of `width_bytes` from pageable host memory at `src` (rows `spitch` bytes
/// apart) to device memory at `dst` (rows `dpitch` apart) in stream order, and returns once the
/// copy is done. Returns false, having copied nothing, where the stages cannot be had (no
/// page-locked memory left) or a row is wider than a stage: the caller copies the plain way.
bool upload_through_pinned_stages(void* dst, std::size_t dpitch, void const* src,
                                  std::size_t spitch, std::size_t width_bytes, std::size_t height,
                                  cudaStream_t stream);

/// The same from device memory at `src` to pageable host memory at `dst`: in stream order (after
/// the stream's earlier work), returning once the rows are in `dst`; false, having copied nothing,
/// where the stages cannot be had or a row is wider than a stage.
bool download_through_pinned_stages(void* dst, std::size_t dpitch, void const* src,
                                    std::size_t spitch, std::size_t width_bytes, std::size_t height,
                                    cudaStream_t stream);

}  // namespace cudist::detail::cuda
