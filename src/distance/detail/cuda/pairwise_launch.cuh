// Dispatch layer of the CUDA pairwise engine: picks the tile policy for a problem, fills the
// kernel's Params and launches on the caller's stream. One translation unit per compute type
// (pairwise_{float,double,integer}.cu) instantiates it for every op.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/cuda/check.hpp"
#include "core/detail/expects.hpp"
#include "distance/detail/cuda/pairwise_kernel.cuh"
#include "distance/detail/problem.hpp"

namespace cudist::detail::cuda {

inline bool rows_allow_vectors(void const* base, std::int64_t ld, std::size_t vector_bytes,
                               std::size_t element_bytes) {
  return reinterpret_cast<std::uintptr_t>(base) % vector_bytes == 0 &&
         (static_cast<std::size_t>(ld) * element_bytes) % vector_bytes == 0;
}

/// The store kernel's parameters for a planned problem: its inputs read as Elem, its output window
/// and layout, the op. Kernel is a PairwiseTileKernel (or one that stores through its store_tile).
template <class Kernel, class Elem, class Op>
typename Kernel::Params store_params(PairwiseProblem const& pr, Op const& op) {
  using Out = typename Op::Output;
  typename Kernel::Params p{};
  p.x = static_cast<Elem const*>(pr.x.data);
  p.y = static_cast<Elem const*>(pr.y.data);
  p.out = static_cast<Out*>(pr.out.data);
  p.m = pr.x.rows;
  p.n = pr.y.rows;
  p.d = pr.x.cols;
  p.ldx = pr.x.stride;
  p.ldy = pr.y.stride;
  p.ldo = pr.out.stride;
  p.x_vec = rows_allow_vectors(p.x, p.ldx, Kernel::kVec * sizeof(Elem), sizeof(Elem));
  p.y_vec = rows_allow_vectors(p.y, p.ldy, Kernel::kVec * sizeof(Elem), sizeof(Elem));
  p.out_vec = rows_allow_vectors(p.out, p.ldo, 4 * sizeof(Out), sizeof(Out));
  p.layout = pr.layout;
  p.zero_diagonal = pr.zero_diagonal;
  p.row_begin = pr.row_begin;
  p.row_end = pr.window_end();
  p.out_first = condensed_row_start(p.m, p.row_begin);
  p.weights = static_cast<typename Op::Compute const*>(pr.op.weights);
  p.op = op;
  p.interrupt = interrupt_poll_for_depth(p.d);
  return p;
}

/// One block per 128 x 128 (or 64 x 64) tile of the problem's output window.
inline dim3 store_grid(PairwiseProblem const& pr, int tile) {
  std::int64_t const grid_x = (pr.y.rows + tile - 1) / tile;
  std::int64_t const window_rows = pr.window_end() - pr.row_begin;
  std::int64_t const grid_y = (window_rows + tile - 1) / tile;
  CUDIST_EXPECTS(grid_y <= 65535 && grid_x <= 0x7fffffff,
                 "pairwise: " << window_rows << " x " << pr.y.rows << " is beyond one launch's grid; split x");
  return dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y));
}

template <class Op, class Elem, TileShape kShape>
void launch_tiles(PairwiseProblem const& pr, Op const& op, cudaStream_t stream) {
  using Kernel = PairwiseTileKernel<Op, Elem, PairwisePolicy<sizeof(typename Op::Compute), kShape>>;
  pairwise_tile_kernel<Kernel><<<store_grid(pr, Kernel::kBM), Kernel::kThreads, 0, stream>>>(
      store_params<Kernel, Elem>(pr, op));
  CUDIST_CHECK_LAUNCH();
#if defined(CUDIST_DEBUG_SYNC)
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
#endif
}

/// Tile shape by op and problem size (policy.hpp). The lane-wise ops (L2, L1, L-inf, inner
/// product: the ones used at scale) get large tiles, plus shallow slabs for small d and small tiles
/// for small problems in float32. Every other op runs small 4 x 4-per-thread tiles: their multi-value
/// accumulators fit the registers without spilling, and each instantiation compiles four times
/// faster (CI builds every kernel on two cores).
template <class Elem, class Op>
void launch_for_op(PairwiseProblem const& pr, Op const& op, cudaStream_t stream) {
  if constexpr (!Op::kLaneWise) {
    launch_tiles<Op, Elem, TileShape::kSmall>(pr, op, stream);
  } else {
    if constexpr (std::is_same_v<typename Op::Compute, float>) {
      std::int64_t const window_rows = pr.window_end() - pr.row_begin;
      std::int64_t const large_tiles = ((window_rows + 127) / 128) * ((pr.y.rows + 127) / 128);
      if (large_tiles < kSmallProblemTiles) return launch_tiles<Op, Elem, TileShape::kSmallLaneWise>(pr, op, stream);
      if (pr.x.cols <= kShallowMaxCols) return launch_tiles<Op, Elem, TileShape::kShallow>(pr, op, stream);
    }
    launch_tiles<Op, Elem, TileShape::kLarge>(pr, op, stream);
  }
}

void pairwise_float(PairwiseProblem const& pr, cudaStream_t stream);
void pairwise_double(PairwiseProblem const& pr, cudaStream_t stream);
void pairwise_integer(PairwiseProblem const& pr, cudaStream_t stream);  // uint8, packed bits

/// uint8 squared L2, euclidean and inner product on the int8 tensor cores (packed_u8_mma_store.cu)
/// where the rows are whole words and the device runs sm_80 code: returns false, having done
/// nothing, elsewhere (the SIMT engine computes the same values there).
bool pairwise_packed_u8_mma(PairwiseProblem const& pr, cudaStream_t stream);

/// hamming_bits of rows of 32-bit words on the single-bit tensor cores (packed_u8_mma_store.cu)
/// where the device runs sm_80 code: returns false, having done nothing, elsewhere.
bool pairwise_packed_bits_mma(PairwiseProblem const& pr, cudaStream_t stream);

}  // namespace cudist::detail::cuda
