// CPU backend of the pairwise contraction: OpenMP over output tiles, each tile a register-blocked
// micro-kernel over the same op structs as the CUDA engine.
//
// A tile of y rows is packed column-major ("k-major") into a panel of kNR-wide groups, so the
// innermost loop runs over kNR consecutive outputs of one x row with a broadcast x value: the
// compiler vectorises it across j (no reduction reordering, so the sum over k is taken in the same
// order as the reference), and kMR x rows share each panel load.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <omp.h>

#include "distance/detail/backend.hpp"
#include "distance/detail/cpu/micro_kernel.hpp"
#include "distance/detail/dispatch_op.hpp"

namespace cudist::detail::cpu {
namespace {

constexpr std::int64_t kTileRows = 64;     // x rows per task (packing cost ~1/(2*64) of the work)
constexpr std::int64_t kPanelBytes = 192 * 1024;  // y panel kept in L2 while kTileRows rows stream

/// Writes one finished value where the layout puts (i, j).
template <class Out>
struct Writer {
  Out* out;
  std::int64_t stride;  // full layout
  std::int64_t n;       // condensed layout: number of points
  OutputLayout layout;
  bool zero_diagonal;

  void operator()(std::int64_t i, std::int64_t j, Out v) const {
    if (layout == OutputLayout::kCondensed) {
      if (j <= i) return;
      out[n * i - i * (i + 1) / 2 + (j - i - 1)] = v;
      return;
    }
    if (zero_diagonal && i == j && std::isfinite(static_cast<double>(v))) v = Out(0);
    out[i * stride + j] = v;
  }
};

template <class Op, class Elem>
void run_tiles(PairwiseProblem const& p, Op const& op) {
  using C = typename Op::Compute;
  using Acc = typename Op::Acc;
  using Out = typename Op::Output;
  auto const* x = static_cast<Elem const*>(p.x.data);
  auto const* y = static_cast<Elem const*>(p.y.data);
  auto const* w = static_cast<C const*>(p.op.weights);
  std::int64_t const m = p.x.rows, n = p.y.rows, d = p.x.cols;
  Writer<Out> const write{static_cast<Out*>(p.out.data), p.out.stride, m, p.layout,
                          p.zero_diagonal};

  std::int64_t const groups_fit =
      std::max<std::int64_t>(1, kPanelBytes / (std::max<std::int64_t>(d, 1) * kNR * sizeof(C)));
  std::int64_t const tile_cols = kNR * std::min<std::int64_t>(groups_fit, 16);
  std::int64_t const row_tiles = (m + kTileRows - 1) / kTileRows;
  std::int64_t const col_tiles = (n + tile_cols - 1) / tile_cols;

#pragma omp parallel
  {
    std::vector<C> panel(static_cast<std::size_t>(tile_cols * d));
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t t = 0; t < row_tiles * col_tiles; ++t) {
      std::int64_t const i0 = (t % row_tiles) * kTileRows;
      std::int64_t const j0 = (t / row_tiles) * tile_cols;
      std::int64_t const i1 = std::min(m, i0 + kTileRows);
      std::int64_t const j1 = std::min(n, j0 + tile_cols);
      if (p.layout == OutputLayout::kCondensed && j1 <= i0 + 1) continue;  // below the diagonal

      // Pack y[j0:j1] as groups of kNR rows, k-major inside a group; pad with y's last row.
      std::int64_t const ngroups = (j1 - j0 + kNR - 1) / kNR;
      for (std::int64_t g = 0; g < ngroups; ++g) {
        C* dst = panel.data() + g * d * kNR;
        for (int c = 0; c < kNR; ++c) {
          std::int64_t const j = std::min(j0 + g * kNR + c, j1 - 1);
          Elem const* src = y + j * p.y.stride;
          for (std::int64_t k = 0; k < d; ++k) dst[k * kNR + c] = static_cast<C>(src[k]);
        }
      }

      for (std::int64_t i = i0; i < i1; i += kMR) {
        Elem const* xr[kMR];
        for (int r = 0; r < kMR; ++r) xr[r] = x + std::min(i + r, i1 - 1) * p.x.stride;
        for (std::int64_t g = 0; g < ngroups; ++g) {
          Acc acc[kMR][kNR];
          micro_kernel(op, xr, panel.data() + g * d * kNR, d, w, acc);
          std::int64_t const jg = j0 + g * kNR;
          for (int r = 0; r < kMR && i + r < i1; ++r)
            for (int c = 0; c < kNR && jg + c < j1; ++c)
              write(i + r, jg + c, op.finish(acc[r][c], i + r, jg + c));
        }
      }
    }
  }
}

}  // namespace

void pairwise(PairwiseProblem const& p) {
  if (p.x.rows == 0 || p.y.rows == 0) return;
  switch (p.x.dtype) {
    case DType::kFloat32:
      return dispatch_floating_op<float, float>(p.op, [&](auto op) { run_tiles<decltype(op), float>(p, op); });
    case DType::kFloat64:
      return dispatch_floating_op<double, double>(p.op, [&](auto op) { run_tiles<decltype(op), double>(p, op); });
    case DType::kUInt8:
      if (p.op.kind == OpKind::kXorPopcount) {
        return run_tiles<ops::XorPopcountOp<std::uint8_t, float>, std::uint8_t>(p, {});
      }
      return dispatch_integer_op(p.op, [&](auto op) { run_tiles<decltype(op), std::uint8_t>(p, op); });
    case DType::kInt32:  // hamming_bits on 4-byte words
      return run_tiles<ops::XorPopcountOp<std::uint32_t, float>, std::uint32_t>(p, {});
    default: break;
  }
}

}  // namespace cudist::detail::cpu
