// The launch of the tensor-core candidate search for one op (inst/bounded_l2.cu,
// inst/bounded_dot.cu): its kernels for the two consumers, and their parameters from the form,
// the problem and its bound's constants.
#pragma once

#include <cuda_runtime.h>

#include "core/cuda/interrupt_word.cuh"
#include "neighbors/detail/cuda/bounded_search.hpp"
#include "neighbors/detail/cuda/bounded_search_kernel.cuh"
#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/nearest_kernels.cuh"

namespace cudist::neighbors::detail::cuda {

/// ContractionT and kImageArch: mma.sync's (sm_80) or wgmma's (sm_90a, inst/bounded_wgmma.cu);
/// kServesTopK: whether the row buffers' kernel (3 <= k) is built beside the best two's.
template <class Bound, template <int> class ContractionT = cudist::detail::cuda::MmaColumnTiles, int kImageArch = 80,
          bool kServesTopK = true>
struct BoundedSearch {
  template <template <class> class SelectT>
  using Kernel = BoundedSearchKernel<Bound, SelectT, ContractionT>;
  using Kernels = NearestKernels<Kernel, kImageArch, kServesTopK>;

  static void run(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a,
                  typename Bound::Constants const& constants, cudaStream_t stream) {
    Kernels::with(a.k, [&](auto kernel) {
      using K = decltype(kernel);
      SelectProblem const& sp = *f.problem;
      auto const select = K::Select::from(a, sp.rank);
      if (!select || f.blocks == 0) return;
      typename K::Params p{};
      p.x = form.x;
      p.y = form.y;
      p.rank = Bound::rank_of(sp);
      p.rows = SourceSums::of(sp.pairwise);
      p.grid = f.grid;
      p.zero_diagonal = sp.rank.zero_diagonal;
      p.exclude_self = sp.rank.exclude_self;
      p.bound = constants;
      p.select = *select;
      p.interrupt = cudist::detail::cuda::interrupt_poll();
      p.row_bars = f.row_bars;
      p.chain.finished = f.finished_chunks;
      launch_with_smem(fused_select_kernel<K>, f.blocks, K::kThreads, K::smem_bytes(*select, form.x.depth), p, stream);
    });
  }
};

/// Squared L2's constants from the form's bound (expansion_bound.hpp).
inline L2Bound::Constants l2_constants(BoundedForm const& form) {
  double const gamma = form.bound.gamma;
  return {1.0 / (1.0 - gamma) * (1.0 + 0x1p-50), (1.0 + gamma) * (1.0 + 0x1p-50), form.bound.slack};
}

}  // namespace cudist::neighbors::detail::cuda
