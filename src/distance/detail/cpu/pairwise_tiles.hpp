// The CPU backend's pairwise contraction for one instruction set: OpenMP over output tiles, each
// tile a register-blocked micro-kernel over the same op structs as the CUDA engine. Included once
// per instruction set (isa.hpp): by pairwise_cpu.cpp for the build's own, and by
// cpu_kernels_avx2.cpp / cpu_kernels_avx512.cpp, whose CUDIST_CPU_ISA names the namespace.
//
// A tile of y rows is packed column-major ("k-major") into a panel of kNR-wide groups, so the
// innermost loop runs over kNR consecutive outputs of one x row with a broadcast x value: the
// compiler vectorises it across j (no reduction reordering, so the sum over k is taken in the same
// order as the reference), and kMR x rows share each panel load.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "distance/detail/backend.hpp"
#include "distance/detail/cpu/tiled_contraction.hpp"
#include "distance/detail/dispatch_op.hpp"

namespace cudist::detail::cpu::CUDIST_CPU_ISA {
namespace {

/// Writes finished values where the layout puts them; i is a row of the whole result, out holds
/// the window from row first_row on.
template <class Out>
struct Writer {
  Out* out;
  std::int64_t stride;     // full layout
  std::int64_t n;          // condensed layout: number of points
  std::int64_t first_row;  // the window's first row
  OutputLayout layout;
  bool zero_diagonal;

  /// Index in out of entry (i, j), which the condensed layout holds only right of the diagonal:
  /// entries (i, j) .. (i, j + count - 1) are consecutive from there in both layouts.
  std::int64_t at(std::int64_t i, std::int64_t j) const {
    return layout == OutputLayout::kCondensed
               ? condensed_row_start(n, i) - condensed_row_start(n, first_row) + (j - i - 1)
               : (i - first_row) * stride + j;
  }

  /// Where all kNR entries (i, j) .. (i, j + kNR - 1) go, when the layout holds every one of them
  /// as it is (no diagonal to zero, none left of it): the finish may write there directly.
  Out* whole_run(std::int64_t i, std::int64_t j, int count) const {
    bool const diagonal = i >= j && i < j + count;
    bool const held = layout == OutputLayout::kCondensed ? j > i : !(zero_diagonal && diagonal);
    return count == kNR && held ? out + at(i, j) : nullptr;
  }

  /// Entries (i, j) .. (i, j + count - 1).
  void row(std::int64_t i, std::int64_t j, int count, Out (&v)[kNR]) const {
    int c = 0;
    if (layout == OutputLayout::kCondensed) {
      c = static_cast<int>(std::clamp<std::int64_t>(i + 1 - j, 0, count));
    } else if (zero_diagonal && i >= j && i < j + count && std::isfinite(static_cast<double>(v[i - j]))) {
      v[i - j] = Out(0);
    }
    std::int64_t const first = at(i, j);
    for (; c < count; ++c) out[first + c] = v[c];
  }
};

/// The outputs of a row segment's kNR accumulators (entries c < count; the rest are not entries).
/// Ops with an unchecked root (squared L2, euclidean) finish every lane without a branch, which
/// vectorises, and recompute the rare inexact entries after (as the GPU engine does).
template <class Op>
void finish_row(Op const& op, typename Op::Acc const (&acc)[kNR], std::int64_t i, std::int64_t j, int count,
                typename Op::Output (&v)[kNR]) {
  if constexpr (Op::kUncheckedRoot) {
    // Two plain loops, not one: the finish, which GCC unswitches on take_sqrt and vectorises
    // (vsqrtps), and a branch-free OR of the range tests (with both in one loop, neither was).
    for (int c = 0; c < kNR; ++c) v[c] = op.in_range_finish_unchecked(acc[c]);
    int inexact = 0;
    for (int c = 0; c < kNR; ++c) inexact |= static_cast<int>(Op::inexact(acc[c]));
    if (!inexact) return;
    for (int c = 0; c < count; ++c)
      if (Op::inexact(acc[c])) v[c] = op.exact_finish(i, j + c);
  } else {
    for (int c = 0; c < count; ++c) v[c] = op.finish(acc[c], i, j + c);
  }
}

/// Outputs at least this large are written with streaming stores where a row segment's run is
/// vector-aligned: beyond any last-level cache they are not read back from it, and streamed,
/// their lines are not first read for ownership (C1, 320 MB: 345.6 -> 320.3 ms, medians of nine
/// alternated pairs on the AVX2 dev box; docs/tuning.md).
constexpr std::int64_t kStreamedOutputBytes = std::int64_t{64} << 20;

template <class Op, class Elem>
void run_tiles(PairwiseProblem const& p, Op const& op) {
  using C = typename Op::Compute;
  using Acc = typename Op::Acc;
  using Out = typename Op::Output;
  auto const* x = static_cast<Elem const*>(p.x.data);
  auto const* y = static_cast<Elem const*>(p.y.data);
  auto const* w = static_cast<C const*>(p.op.weights);
  std::int64_t const n = p.y.rows, d = p.x.cols;
  std::int64_t const first = p.row_begin, rows = p.window_end() - p.row_begin;
  Writer<Out> const write{static_cast<Out*>(p.out.data), p.out.stride, p.x.rows, first, p.layout,
                          p.zero_diagonal};

  auto const pack_rows_of_y = [&](C* dst, std::int64_t jg, std::int64_t j_last) {
    for (int c = 0; c < kNR; ++c) {
      Elem const* src = y + std::min(jg + c, j_last) * p.y.stride;
      for (std::int64_t k = 0; k < d; ++k) dst[k * kNR + c] = static_cast<C>(src[k]);
    }
  };
  bool const condensed = p.layout == OutputLayout::kCondensed;
  bool const stream = kStreamable<Out> && rows * n * static_cast<std::int64_t>(sizeof(Out)) >= kStreamedOutputBytes;
  // The tiles count rows from the window's first; the op and the writer see rows of the result.
  auto const below_diagonal = [&](std::int64_t i0, std::int64_t, std::int64_t j1) {
    return condensed && j1 <= first + i0 + 1;
  };
  contract_tiles(op, x + first * p.x.stride, p.x.stride, rows, n, d, w, pack_rows_of_y, below_diagonal,
                 [&](std::int64_t i, std::int64_t j, int count, Acc const (&acc)[kNR]) {
                   // Finished into the output itself where it holds the whole run: staged in v,
                   // the run went through the stack in 16-byte pieces (perf, C1: ~9%).
                   if (Out* run = write.whole_run(first + i, j, count)) {
                     if constexpr (kStreamable<Out>) {
                       if (stream && reinterpret_cast<std::uintptr_t>(run) % kVectorBytes == 0) {
                         Out v[kNR];
                         finish_row(op, acc, first + i, j, count, v);
                         return stream_row(run, v);
                       }
                     }
                     return finish_row(op, acc, first + i, j, count, *reinterpret_cast<Out(*)[kNR]>(run));
                   }
                   Out v[kNR];
                   finish_row(op, acc, first + i, j, count, v);
                   write.row(first + i, j, count, v);
                 });
}

}  // namespace

/// The contraction of p on this instruction set (p has entries).
void pairwise_tiles(PairwiseProblem const& p) {
  switch (p.x.dtype) {
    case DType::kFloat32:
      return dispatch_floating_op<float, float>(p, [&](auto op) { run_tiles<decltype(op), float>(p, op); });
    case DType::kFloat64:
      return dispatch_floating_op<double, double>(p, [&](auto op) { run_tiles<decltype(op), double>(p, op); });
    case DType::kUInt8:
    case DType::kInt8:
      if (p.op.kind == OpKind::kXorPopcount) {  // uint8 only (plan_metric)
        return run_tiles<ops::XorPopcountOp<std::uint8_t, float>, std::uint8_t>(p, {});
      }
      return with_byte_type(p.x.dtype, [&](auto elem) {
        dispatch_integer_op(p.op, [&](auto op) { run_tiles<decltype(op), decltype(elem)>(p, op); });
      });
    case DType::kInt32:  // hamming_bits on 4-byte words
      return run_tiles<ops::XorPopcountOp<std::uint32_t, float>, std::uint32_t>(p, {});
    default: break;
  }
}

}  // namespace cudist::detail::cpu::CUDIST_CPU_ISA
