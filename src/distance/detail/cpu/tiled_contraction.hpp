// The CPU backend's loop over output tiles, shared by every dense contraction on the CPU
// (pairwise distances, semiring products): OpenMP threads take (kTileRows x tile_cols) tiles of
// the (m, n) output, pack the tile's columns of the second operand into a panel of kNR-wide
// k-major groups kept in L2, and run the micro-kernel over kMR-row strips of x against it.
// The callers differ only in how a column is packed and where a finished entry goes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <omp.h>

#include "core/detail/interrupt_check.hpp"
#include "distance/detail/cpu/micro_kernel.hpp"

namespace cudist::detail::cpu::CUDIST_CPU_ISA {

// x rows per task: ~64 (packing is ~1/(2*64) of the work), whole micro-kernel calls of Op.
template <class Op>
constexpr std::int64_t kTileRows = (64 + kMR<Op> - 1) / kMR<Op> * kMR<Op>;
constexpr std::int64_t kPanelBytes = 192 * 1024;  // panel kept in L2 while a tile's rows stream

/// Computes acc = reduce_k step(x[i][k], column j [k]) for every (i, j) of an (m, n) output of
/// inner dimension d and hands them to emit_row(i, j, count, acc) a row segment at a time:
/// acc[0 .. count) are entries (i, j) .. (i, j + count - 1) (the rest of the kNR are not
/// entries), so that finishing and storing may run on whole vectors.
///  - pack_group(dst, j_begin, j_last): writes the d x kNR k-major group of columns j_begin,
///    j_begin + 1, ... into dst; a column past j_last repeats column j_last (never emitted).
///  - skip_tile(i0, j0, j1): whether the tile of rows i0.. and columns j0..j1-1 has nothing to emit.
template <class Op, class Elem, class PackGroup, class SkipTile, class EmitRow>
void contract_tiles(Op const& op, Elem const* x, std::int64_t x_stride, std::int64_t m, std::int64_t n,
                    std::int64_t d, typename Op::Compute const* weights, PackGroup const& pack_group,
                    SkipTile const& skip_tile, EmitRow const& emit_row) {
  using C = typename Op::Compute;
  using Acc = typename Op::Acc;
  std::int64_t const groups_fit =
      std::max<std::int64_t>(1, kPanelBytes / (std::max<std::int64_t>(d, 1) * kNR * sizeof(C)));
  std::int64_t const tile_cols = kNR * std::min<std::int64_t>(groups_fit, 16);
  std::int64_t const row_tiles = (m + kTileRows<Op> - 1) / kTileRows<Op>;
  std::int64_t const col_tiles = (n + tile_cols - 1) / tile_cols;

#pragma omp parallel if (row_tiles * col_tiles > 1)  // one tile: not worth waking the team
  {
    std::vector<C> panel(static_cast<std::size_t>(tile_cols * d));
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t t = 0; t < row_tiles * col_tiles; ++t) {
      std::int64_t const i0 = (t % row_tiles) * kTileRows<Op>;
      std::int64_t const j0 = (t / row_tiles) * tile_cols;
      std::int64_t const i1 = std::min(m, i0 + kTileRows<Op>);
      std::int64_t const j1 = std::min(n, j0 + tile_cols);
      if (interrupt_requested() || skip_tile(i0, j0, j1)) continue;

      std::int64_t const ngroups = (j1 - j0 + kNR - 1) / kNR;
      for (std::int64_t g = 0; g < ngroups; ++g) pack_group(panel.data() + g * d * kNR, j0 + g * kNR, j1 - 1);

      for (std::int64_t i = i0; i < i1; i += kMR<Op>) {
        Elem const* xr[kMR<Op>];
        for (int r = 0; r < kMR<Op>; ++r) xr[r] = x + std::min(i + r, i1 - 1) * x_stride;
        for (std::int64_t g = 0; g < ngroups; ++g) {
          Acc acc[kMR<Op>][kNR];
          micro_kernel(op, xr, panel.data() + g * d * kNR, d, weights, acc);
          std::int64_t const jg = j0 + g * kNR;
          int const count = static_cast<int>(std::min<std::int64_t>(kNR, j1 - jg));
          for (int r = 0; r < kMR<Op> && i + r < i1; ++r) emit_row(i + r, jg, count, acc[r]);
        }
      }
    }
    fence_streamed_stores();  // emit_row may stream (pairwise_tiles.hpp); the team's barrier follows
  }
  throw_if_interrupted("cudist");
}

}  // namespace cudist::detail::cpu::CUDIST_CPU_ISA
