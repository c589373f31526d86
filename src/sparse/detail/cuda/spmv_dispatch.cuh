// Dispatch of one SpMV/SpMM call on the GPU, for fixed value and index types: the plan's
// algorithm, the vector width and the column passes become template arguments here, and the
// kernels are launched. Row-split and thread-per-row serve SpMV only; SpMM (several columns)
// always runs merge-path. Instantiated once per (value, index) pair in inst/*.cu.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "sparse/detail/cuda/kernel_launch.cuh"
#include "sparse/detail/cuda/merge_path_kernel.cuh"
#include "sparse/detail/cuda/policy.hpp"
#include "sparse/detail/cuda/row_split_kernel.cuh"
#include "sparse/detail/cuda/strided_vector.cuh"
#include "sparse/detail/cuda/thread_per_row_kernel.cuh"
#include "sparse/detail/dispatch.hpp"
#include "sparse/detail/problem.hpp"

namespace cudist::sparse::detail::cuda {

template <class T>
DenseOperand<T const> x_operand(SpmvProblem const& p) {
  return {static_cast<T const*>(p.x), p.x_row_stride, p.x_col_stride};
}
template <class T>
DenseOperand<T> y_operand(SpmvProblem const& p) {
  return {static_cast<T*>(p.y), p.y_row_stride, p.y_col_stride};
}

template <class T, class I, int kVec, class Semiring, class Output>
void launch_row_split(SpmvAnalysis const& analysis, SpmvProblem const& p, Output const& out,
                      cudaStream_t stream) {
  using Gathering = RowSplitSpmv<T, I, kVec, Semiring, Output, false>;
  using Staged = RowSplitSpmv<T, I, kVec, Semiring, Output, true>;
  int group_log2 = 0;
  while ((1 << group_log2) < analysis.group_size) ++group_log2;
  auto const row_blocks = [&](int threads) {
    std::int64_t const rows_per_block = threads >> group_log2;
    return (p.a.rows + rows_per_block - 1) / rows_per_block;
  };

  // Staged: one block per group of rows, capped at the blocks resident at once (persistent).
  std::size_t const x_bytes = static_cast<std::size_t>(p.a.cols) * sizeof(T);
  std::size_t const block_shared = cudist::detail::cuda::max_block_shared_memory();
  if (x_bytes <= block_shared) {
    allow_block_shared_memory<Staged>();
    std::int64_t const staged_blocks =
        std::min(row_blocks(Staged::kThreads), resident_blocks<Staged>(x_bytes));
    if (row_split_stages_x(p.a.cols, p.a.nnz, sizeof(T), block_shared, staged_blocks)) {
      typename Staged::Params params{csr_arrays<T, I>(p), x_operand<T>(p), p.a.cols,
                                     y_operand<T>(p), out, group_log2};
      launch<Staged>(staged_blocks, params, stream, x_bytes);
      return;
    }
  }
  // Gathering: one row per group; beyond 2^20 blocks the groups loop over rows instead.
  prefer_l1<Gathering>();
  typename Gathering::Params params{csr_arrays<T, I>(p), x_operand<T>(p), p.a.cols,
                                    y_operand<T>(p), out, group_log2};
  launch<Gathering>(std::min<std::int64_t>(row_blocks(Gathering::kThreads), std::int64_t(1) << 20),
                    params, stream);
}

template <class T, class I, int kVec, class Semiring, class Output>
void launch_thread_per_row(SpmvAnalysis const& analysis, SpmvProblem const& p, Output const& out,
                           cudaStream_t stream) {
  using Kernel = ThreadPerRowSpmv<T, I, kVec, Semiring, Output>;
  std::int64_t const row_blocks =
      (p.a.rows + analysis.rows_per_block - 1) / analysis.rows_per_block;
  typename Kernel::Params params{csr_arrays<T, I>(p),
                                 StridedVector<T const>::column_of(x_operand<T>(p)),
                                 StridedVector<T>::column_of(y_operand<T>(p)),
                                 out,
                                 analysis.rows_per_block,
                                 static_cast<typename Kernel::Position>(row_blocks)};
  // Persistent: the blocks that fit on the GPU walk the row blocks, the next one's loads in flight.
  launch<Kernel>(std::min(row_blocks, resident_blocks<Kernel>()), params, stream);
}

/// Calls f(std::integral_constant<int, kVec>{}) for the plan's vector width: kWide, or 1 where
/// the matrix arrays are not aligned to a kWide-element load.
template <int kWide, class F>
void with_vector_width(SpmvAnalysis const& analysis, F&& f) {
  if (analysis.vector_width == kWide) {
    f(std::integral_constant<int, kWide>{});
  } else {
    f(std::integral_constant<int, 1>{});
  }
}

/// One pass over A for columns [first_col, first_col + active_cols) of X and Y.
template <class T, class I, int kCols, class Semiring, class Output>
void launch_merge_path(SpmvAnalysis const& analysis, SpmvProblem const& p, std::int64_t first_col,
                       int active_cols, Output const& out, cudaStream_t stream) {
  using Tile = MergePathSpmv<T, I, kCols, Semiring, Output>;
  using Fixup = MergePathFixup<T, kCols, Semiring, Output>;
  std::int64_t const tiles = analysis.tiles();
  auto* scratch = static_cast<T*>(analysis.scratch.data());
  TilePartials<T> const partials{scratch, scratch + tiles * kCols};
  auto const* tile_rows = analysis.tile_rows.data_as<std::int64_t>();
  DenseOperand<T> const y = y_operand<T>(p).from_column(first_col);

  typename Tile::Params tile_params{csr_arrays<T, I>(p), tile_rows, x_operand<T>(p).from_column(first_col),
                                    y, active_cols, out, partials};
  if constexpr (kCols == 1) prefer_blocks_per_sm<Tile>(MergePathPolicy<T>::kBlocksPerSm);  // SpMM: not measured
  launch<Tile>(tiles, tile_params, stream);
  typename Fixup::Params fixup_params{tile_rows, tiles, y, active_cols, out, partials};
  launch<Fixup>((tiles + Fixup::kWarps - 1) / Fixup::kWarps, fixup_params, stream);
}

template <class T, class I>
void spmv_typed(SpmvAnalysis const& analysis, SpmvProblem const& p, cudaStream_t stream) {
  with_semiring<T>(p, [&](auto semiring, auto const& out) {
    using Semiring = decltype(semiring);
    using Output = std::decay_t<decltype(out)>;
    constexpr int kWide = wide_vector_width(sizeof(T), sizeof(I));
    constexpr int kMaxCols = MergePathPolicy<T>::kMaxCols;
    if (p.ncols == 1 && analysis.algorithm == SpmvAlgorithm::kRowSplit) {
      with_vector_width<kWide>(analysis, [&](auto vec) {
        launch_row_split<T, I, decltype(vec)::value, Semiring>(analysis, p, out, stream);
      });
    } else if (p.ncols == 1 && analysis.algorithm == SpmvAlgorithm::kThreadPerRow) {
      with_vector_width<kWide>(analysis, [&](auto vec) {
        launch_thread_per_row<T, I, decltype(vec)::value, Semiring>(analysis, p, out, stream);
      });
    } else if (p.ncols == 1) {
      launch_merge_path<T, I, 1, Semiring>(analysis, p, 0, 1, out, stream);
    } else {
      for (std::int64_t first = 0; first < p.ncols; first += kMaxCols) {
        int const active = static_cast<int>(std::min<std::int64_t>(kMaxCols, p.ncols - first));
        launch_merge_path<T, I, kMaxCols, Semiring>(analysis, p, first, active, out, stream);
      }
    }
  });
}

// Explicit instantiations, one translation unit per (value, index) pair: inst/*.cu.
#define CUDIST_SPMV_INSTANTIATION(T, I) \
  template void spmv_typed<T, I>(SpmvAnalysis const&, SpmvProblem const&, cudaStream_t)
extern CUDIST_SPMV_INSTANTIATION(float, std::int32_t);
extern CUDIST_SPMV_INSTANTIATION(float, std::int64_t);
extern CUDIST_SPMV_INSTANTIATION(double, std::int32_t);
extern CUDIST_SPMV_INSTANTIATION(double, std::int64_t);

}  // namespace cudist::sparse::detail::cuda
