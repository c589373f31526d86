// CPU backend of the semiring products: OpenMP over output tiles, each tile the pairwise
// contraction's micro-kernel (distance/detail/cpu/micro_kernel.hpp) on a panel of B packed
// k-major, kNR columns wide, with every entry written through store_entry.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <omp.h>

#include "distance/detail/cpu/micro_kernel.hpp"
#include "semiring/detail/backend.hpp"
#include "semiring/detail/dispatch_ring.hpp"
#include "semiring/detail/store_entry.hpp"

namespace cudist::detail::cpu {
namespace {

constexpr std::int64_t kTileRows = 64;            // A rows per task: packing is 1/(2*64) of the work
constexpr std::int64_t kPanelBytes = 192 * 1024;  // B panel kept in L2 while kTileRows rows stream

template <class Op, class Elem>
void run_tiles(SemiringProblem const& p, Op const& op) {
  using C = typename Op::Compute;
  using Acc = typename Op::Acc;
  auto const* a = static_cast<Elem const*>(p.a.data);
  auto const* b = static_cast<Elem const*>(p.b.data);
  std::int64_t const m = p.a.rows, n = p.b.cols, d = p.a.cols;
  auto const out = semiring::product_output<typename Op::Output>(p);

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

      // Groups of kNR columns of B, k-major inside a group (B's own layout, so rows of B are read
      // contiguously); columns past j1 repeat the last one and are never written.
      std::int64_t const ngroups = (j1 - j0 + kNR - 1) / kNR;
      for (std::int64_t g = 0; g < ngroups; ++g) {
        C* dst = panel.data() + g * d * kNR;
        std::int64_t const jg = j0 + g * kNR;
        for (std::int64_t k = 0; k < d; ++k) {
          Elem const* src = b + k * p.b.stride;
          for (int c = 0; c < kNR; ++c) dst[k * kNR + c] = static_cast<C>(src[std::min(jg + c, j1 - 1)]);
        }
      }

      for (std::int64_t i = i0; i < i1; i += kMR) {
        Elem const* ar[kMR];
        for (int r = 0; r < kMR; ++r) ar[r] = a + std::min(i + r, i1 - 1) * p.a.stride;
        for (std::int64_t g = 0; g < ngroups; ++g) {
          Acc acc[kMR][kNR];
          micro_kernel(op, ar, panel.data() + g * d * kNR, d, static_cast<C const*>(nullptr), acc);
          std::int64_t const jg = j0 + g * kNR;
          for (int r = 0; r < kMR && i + r < i1; ++r)
            for (int c = 0; c < kNR && jg + c < j1; ++c)
              semiring::store_entry(out, op, acc[r][c], i + r, jg + c);
        }
      }
    }
  }
}

template <class Elem>
void run_for_dtype(SemiringProblem const& p) {
  semiring::dispatch_ring<Elem>(p.semiring, [&](auto ring) {
    semiring::with_product_op(ring, p.witness.data != nullptr,
                              [&](auto op) { run_tiles<decltype(op), Elem>(p, op); });
  });
}

}  // namespace

void semiring_product(SemiringProblem const& p) {
  if (p.c.rows == 0 || p.c.cols == 0) return;
  switch (p.a.dtype) {
    case DType::kFloat32: return run_for_dtype<float>(p);
    case DType::kFloat64: return run_for_dtype<double>(p);
    case DType::kInt32: return run_for_dtype<std::int32_t>(p);
    case DType::kInt16: return run_for_dtype<std::int16_t>(p);
    default: break;  // the API layer admits no other dtype
  }
}

}  // namespace cudist::detail::cpu
