// The launch of the byte rows' tensor-core search (exact_u8_l2_kernel.cuh), and its kernels for
// uint8, int8 and bit rows, shared by its two contractions' units: mma.sync (inst/exact_u8_l2.cu) and
// wgmma (inst/exact_u8_l2_wgmma.cu, built for sm_90a alone).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/cuda/interrupt_word.cuh"
#include "core/cuda/tensor_map.hpp"
#include "neighbors/detail/cuda/column_terms.cuh"
#include "neighbors/detail/cuda/exact_u8_l2.hpp"
#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/cuda/fused_select_kernel.cuh"
#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/nearest_kernels.cuh"
#include "neighbors/detail/cuda/workspace.cuh"

namespace cudist::neighbors::detail::cuda {

/// f's chunks of f.problem (its norms: the rows' sums of squares) by Kernel, each chunk's best a.k
/// entries per row into a.partial. False, launching nothing, where Kernel copies by TMA and the
/// tensor maps cannot be made (an old driver, 2^31 rows or more).
template <class Kernel>
bool launch_exact_u8_l2(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  SelectProblem const& sp = *f.problem;
  auto const select = Kernel::Select::from(a, sp.rank);
  if (!select || f.blocks == 0) return true;
  auto const& pw = sp.pairwise;
  typename Kernel::Params p{};
  p.x = static_cast<unsigned char const*>(pw.x.data);
  p.y = static_cast<unsigned char const*>(pw.y.data);
  p.ldx = pw.x.stride * 4;
  p.ldy = pw.y.stride * 4;
  p.depth = static_cast<int>(pw.x.cols * 4);
  p.x_sq = static_cast<std::uint32_t const*>(pw.op.x_norms);
  p.y_sq = static_cast<std::uint32_t const*>(pw.op.y_norms);
  p.grid = f.grid;
  p.exclude_self = sp.rank.exclude_self;
  p.select = *select;
  p.interrupt = cudist::detail::cuda::interrupt_poll();
  p.chain.finished = f.finished_chunks;
  std::optional<Array> terms;  // freed in stream order after the launch
  if constexpr (Kernel::Tiles::kByTma) {
    std::int64_t const n = pw.y.rows, h = ColumnTermsKernel::first_odd_row(n);
    if (n >= (std::int64_t{1} << 31)) return false;  // the maps' coordinates are 32-bit
    terms = device_bytes(static_cast<std::size_t>(2 * h) * sizeof(ColumnPair), stream);
    auto* pairs = static_cast<ColumnPair*>(terms->data());
    constexpr int kWords = sizeof(ColumnPair) / 4;
    bool const mapped = cudist::detail::cuda::encode_byte_rows_map(p.y_map, p.y, n, p.depth, p.ldy) &&
                        cudist::detail::cuda::encode_word_rows_map(p.terms_map, pairs, kWords, 2 * h,
                                                                   ColumnTerms::kPairs);
    if (!mapped) return false;
    p.odd_pairs = static_cast<int>(h);
    launch<ColumnTermsKernel>(2 * h, ColumnTermsKernel::kThreads, {p.y_sq, n, h, pairs}, stream);
  }
  launch_with_smem(fused_select_kernel<Kernel>, f.blocks, Kernel::kThreads, Kernel::smem_bytes(*select, p.depth), p,
                   stream);
  return true;
}

/// One contraction's kernels: U8KernelT for uint8 rows, S8KernelT for int8, BitsKernelT for bit
/// rows (the same blocks and shared memory), whose code needs an image of kImageArch or later.
template <template <template <class> class> class U8KernelT, template <template <class> class> class S8KernelT,
          template <template <class> class> class BitsKernelT, int kImageArch>
struct ByteSearchKernels {
  using U8 = NearestKernels<U8KernelT, kImageArch>;
  using S8 = NearestKernels<S8KernelT, kImageArch>;
  using Bits = NearestKernels<BitsKernelT, kImageArch>;

  /// f(the product's NearestKernels).
  template <class F>
  static decltype(auto) with(RowProduct product, F&& f) {
    switch (product) {
      case RowProduct::kSignedBytes: return f(S8{});
      case RowProduct::kBits: return f(Bits{});
      default: return f(U8{});
    }
  }
  static bool runs_here(std::int64_t k, int bytes, RowProduct product) {
    return with(product, [&](auto kernels) { return decltype(kernels)::runs_here(k, bytes); });
  }
  static std::size_t smem(std::int64_t k, int bytes, RowProduct product) {
    return with(product, [&](auto kernels) { return decltype(kernels)::smem(k, bytes); });
  }
  /// False where the launch could not be made (launch_exact_u8_l2).
  static bool run(FusedLaunch const& f, SelectArgs const& a, RowProduct product, cudaStream_t stream) {
    return with(product, [&](auto kernels) {
      return decltype(kernels)::with(a.k,
                                     [&](auto kernel) { return launch_exact_u8_l2<decltype(kernel)>(f, a, stream); });
    });
  }
};

}  // namespace cudist::neighbors::detail::cuda
