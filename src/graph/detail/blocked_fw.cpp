// Blocked Floyd-Warshall. Round K (vertices k0 .. k0 + kb) of the n / kFwBlock rounds:
//   1. close the diagonal block D[K][K] (Floyd-Warshall on kb vertices, by the backend);
//   2. the row panel    D[K][:] (+)= D[K][K] (x) D[K][:]  and
//      the column panel D[:][K] (+)= D[:][K] (x) D[K][K], computed into scratch copies, since each
//      reads what it writes, then copied back;
//   3. every entry      D (+)= D[:][K] (x) D[K][:]   (one min-plus product, kb deep).
// Step 3 covers the panels too; there it changes nothing (D[K][K] has a zero diagonal and the
// panels are already closed under it), so no part of the grid needs to be left out.
//
// Next hops: each product keeps the witness k of a strictly improved entry and stores
// witness_map[i][k], the next hop from i towards k, so an improved path i -> k -> j starts like
// i -> k. Every next[i][j] is thus the first edge of a walk from i to j no longer than D[i][j];
// once D is the true distance, that walk is a shortest path and the hops can be followed.
#include "graph/detail/blocked_fw.hpp"

#include <algorithm>

#include "cudist/core/array.hpp"
#include "core/detail/interrupt_check.hpp"
#include "graph/detail/backend.hpp"
#include "semiring/detail/backend.hpp"

namespace cudist::detail {
namespace {

/// The (rows, cols) window of v at (r0, c0); a view with null data stays null.
MatrixView window(MatrixView v, std::int64_t r0, std::int64_t c0, std::int64_t rows,
                  std::int64_t cols) {
  if (v.data == nullptr) return MatrixView{};
  char* const base = static_cast<char*>(v.data) + (r0 * v.stride + c0) * size_of(v.dtype);
  return MatrixView(base, rows, cols, v.stride, v.dtype, v.memory);
}

/// Runs each step on res.device.
struct Steps {
  Resources res;

  /// c (+)= a (x) b over min-plus; the witness (if any) maps through `map`.
  void relax(ConstMatrixView a, ConstMatrixView b, MatrixView c, MatrixView witness,
             ConstMatrixView map) const {
    SemiringProblem p;
    p.a = a;
    p.b = b;
    p.c = c;
    p.semiring = Semiring::kMinPlus;
    p.accumulate = true;
    p.witness = witness;
    p.witness_map = map;
    if (res.device.is_cuda()) {
      cuda::semiring_product(p, res.stream);
    } else {
      cpu::semiring_product(p);
    }
  }

  void close(MatrixView d, MatrixView next) const {
    if (res.device.is_cuda()) {
      cuda::close_diagonal_block(d, next, res.stream);
    } else {
      cpu::close_diagonal_block(d, next);
    }
  }

  void prepare(MatrixView d, MatrixView next, bool directed) const {
    if (res.device.is_cuda()) {
      cuda::prepare_graph(d, next, directed, res.stream);
    } else {
      cpu::prepare_graph(d, next, directed);
    }
  }

  void copy(ConstMatrixView src, MatrixView dst) const {
    if (src.data != nullptr) cudist::copy(src, dst, res.stream);
  }
};

}  // namespace

std::int64_t blocked_floyd_warshall_scratch_bytes(std::int64_t n, DType dtype, bool with_next) {
  std::int64_t const panel = n * std::min(n, kFwBlock);  // entries of one panel
  return 2 * panel * static_cast<std::int64_t>(size_of(dtype) + (with_next ? sizeof(std::int32_t) : 0));
}

void blocked_floyd_warshall(Resources const& res, MatrixView dist, MatrixView next, bool directed) {
  Steps const steps{res};
  std::int64_t const n = dist.rows;
  bool const hops = next.data != nullptr;
  steps.prepare(dist, next, directed);

  std::int64_t const width = std::min(n, kFwBlock);
  Array row_panel = Array::allocate(width, n, dist.dtype, res.device, res.stream);  // (kb, n)
  Array col_panel = Array::allocate(n, width, dist.dtype, res.device, res.stream);  // (n, kb)
  Array row_hops, col_hops;
  if (hops) {
    row_hops = Array::allocate(width, n, DType::kInt32, res.device, res.stream);
    col_hops = Array::allocate(n, width, DType::kInt32, res.device, res.stream);
  }

  for (std::int64_t k0 = 0; k0 < n; k0 += kFwBlock) {
    // Between block steps: on CUDA the steps already queued still run, but no more are launched.
    throw_if_interrupted("apsp");
    std::int64_t const kb = std::min(kFwBlock, n - k0);
    MatrixView const dkk = window(dist, k0, k0, kb, kb), nkk = window(next, k0, k0, kb, kb);
    steps.close(dkk, nkk);

    MatrixView const row = window(dist, k0, 0, kb, n), col = window(dist, 0, k0, n, kb);
    MatrixView const next_row = window(next, k0, 0, kb, n), next_col = window(next, 0, k0, n, kb);
    MatrixView const drow = window(row_panel.view(), 0, 0, kb, n);
    MatrixView const dcol = window(col_panel.view(), 0, 0, n, kb);
    MatrixView const nrow = hops ? window(row_hops.view(), 0, 0, kb, n) : MatrixView{};
    MatrixView const ncol = hops ? window(col_hops.view(), 0, 0, n, kb) : MatrixView{};
    steps.copy(row, drow);
    steps.copy(col, dcol);
    steps.copy(next_row, nrow);
    steps.copy(next_col, ncol);
    steps.relax(dkk, row, drow, nrow, nkk);       // i in K: i -> k (in K) -> j
    steps.relax(col, dkk, dcol, ncol, next_col);  // j in K: i -> k (in K) -> j
    steps.copy(drow, row);
    steps.copy(dcol, col);
    steps.copy(nrow, next_row);
    steps.copy(ncol, next_col);
    steps.relax(dcol, drow, dist, next, ncol);    // everything: i -> k (in K) -> j
  }
}

}  // namespace cudist::detail
