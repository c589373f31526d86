// What the host sides of the tensor-core searches share (bounded_search_launch.cuh,
// inst/exact_u8_l2.cu): one kernel per consumer of the k nearest (the lanes' best two for k <= 2,
// the row buffers above), its block's shared memory, and whether it runs on this device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/cuda/device_features.hpp"
#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/cuda/fused_select_kernel.cuh"
#include "neighbors/detail/cuda/lane_two_best_select.cuh"
#include "neighbors/detail/cuda/row_buffer_select.cuh"

namespace cudist::neighbors::detail::cuda {

/// KernelT<Consumer>: a search kernel struct with Select and smem_bytes(select params, depth),
/// launched by fused_select_kernel, whose code needs an image of kImageArch (80: sm_80) or later.
/// Without kServesTopK only the best two's kernel is built, and only k <= 2 runs here.
template <template <template <class> class> class KernelT, int kImageArch = 80, bool kServesTopK = true>
struct NearestKernels {
  using TwoBest = KernelT<LaneTwoBestSelect>;

  /// Whether a kernel of k is built.
  static constexpr bool serves(std::int64_t k) { return k <= 2 || kServesTopK; }

  /// f(kernel) with the kernel of k (a value of its type), which serves(k).
  template <class F>
  static decltype(auto) with(std::int64_t k, F&& f) {
    if constexpr (kServesTopK) {
      if (k > 2) return f(KernelT<RowBufferSelect>{});
    }
    return f(TwoBest{});
  }

  /// Shared memory of a block for k entries on rows of `depth` (in the kernel's unit).
  static std::size_t smem(std::int64_t k, int depth) {
    return with(k, [&](auto kernel) {
      using Kernel = decltype(kernel);
      auto const select = Kernel::Select::from(nearest_args(k), RankSpec{});
      return Kernel::smem_bytes(*select, depth);
    });
  }

  /// Whether the kernel of k runs here: built, code of kImageArch or later for the device in its
  /// image, and a block that fits the device's shared memory.
  static bool runs_here(std::int64_t k, int depth) {
    if (!serves(k)) return false;
    bool const image = with(k, [](auto kernel) {
      return cudist::detail::cuda::kernel_image_has(
          reinterpret_cast<void const*>(fused_select_kernel<decltype(kernel)>), kImageArch);
    });
    return image && smem(k, depth) <= cudist::detail::cuda::max_block_shared_memory();
  }
};

}  // namespace cudist::neighbors::detail::cuda
