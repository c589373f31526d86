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

template <class Bound>
struct BoundedSearch {
  template <template <class> class SelectT>
  using Kernel = BoundedSearchKernel<Bound, SelectT>;
  using Kernels = NearestKernels<Kernel>;

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

}  // namespace cudist::neighbors::detail::cuda
