// The CPU backend's register-blocked micro-kernel over the op structs, shared by every dense
// contraction on the CPU (pairwise distances, semiring products): kMR rows of x against a panel of
// kNR columns of y packed k-major, the innermost loop running over the kNR outputs of one x row
// with a broadcast x value, so the compiler vectorises it across j without reordering the
// reduction over k.
#pragma once

#include <cstdint>

#include "distance/detail/ops.hpp"

namespace cudist::detail::cpu {

#if defined(__AVX512F__)
constexpr int kMR = 8;   // 8 x 16-float accumulators: 8 zmm registers, 8 independent FMA chains
constexpr int kVectorBytes = 64;  // one zmm
#else
constexpr int kMR = 4;   // 4 x 16-float accumulators: 8 ymm registers
constexpr int kVectorBytes = 32;  // one ymm
#endif
constexpr int kNR = 16;

/// One SIMD register of C (a GCC vector). The kNR lanes of a row are kNR / kLanes<C> of these:
/// GCC splits adds and multiplies on wider vectors into registers, but lowers their compares and
/// selects (min, max, |a - b|) to scalar code, so the lane-wise ops never see a wider vector.
template <class C>
struct LanesOf {
  typedef C type __attribute__((vector_size(kVectorBytes)));
};
template <class C>
constexpr int kLanes = kVectorBytes / static_cast<int>(sizeof(C));

/// kLanes int32 lanes: the ks that lane-wise witness ops keep next to their values.
template <int kCount>
struct IndexLanesOf {
  typedef std::int32_t type __attribute__((vector_size(kCount * sizeof(std::int32_t))));
};

/// Ops whose step also runs on SIMD vectors here: the lane-wise ops, and bit Hamming on 32-bit
/// words (which the GPU engine does not treat as lane-wise; see XorPopcountOp).
template <class Op>
constexpr bool kSimdStep = Op::kLaneWise;
template <class Out>
constexpr bool kSimdStep<ops::XorPopcountOp<std::uint32_t, Out>> = true;

/// acc[r][c] = reduction over k of step(x_r[k], panel[k][c]), for kMR rows and kNR columns.
/// Lane-wise ops run on GCC vector types: the kNR lanes of each row in registers, the x value
/// broadcast, kMR independent accumulator chains (the compiler does not reliably find this on its
/// own). Lane-wise ops that take the index (witness ops, Acc = {value, k}) keep a vector of values
/// and a vector of the ks that produced them.
template <class Op, class Elem, class C, class Acc>
void micro_kernel(Op const& op, Elem const* const (&xr)[kMR], C const* panel, std::int64_t d,
                  C const* w, Acc (&acc)[kMR][kNR]) {
  using Lanes = typename LanesOf<C>::type;
  constexpr int kChunks = kNR / kLanes<C>;
  if constexpr (kSimdStep<Op> && Op::kTakesIndex) {
    using Index = typename IndexLanesOf<kLanes<C>>::type;
    Lanes v[kMR][kChunks];
    Index ks[kMR][kChunks];
    for (int r = 0; r < kMR; ++r) {
      for (int q = 0; q < kChunks; ++q) {
        v[r][q] = Lanes{} + Op::init().value;
        ks[r][q] = Index{} + Op::init().k;
      }
    }
    for (std::int64_t k = 0; k < d; ++k) {
      Lanes b[kChunks];
      __builtin_memcpy(b, panel + k * kNR, sizeof b);
      Index const kv = Index{} + static_cast<std::int32_t>(k);
      for (int r = 0; r < kMR; ++r) {
        Lanes const a = static_cast<C>(xr[r][k]) - Lanes{};
        for (int q = 0; q < kChunks; ++q) Op::step(v[r][q], ks[r][q], a, b[q], kv);
      }
    }
    for (int r = 0; r < kMR; ++r)
      for (int c = 0; c < kNR; ++c)
        acc[r][c] = Acc{v[r][c / kLanes<C>][c % kLanes<C>], ks[r][c / kLanes<C>][c % kLanes<C>]};
  } else if constexpr (kSimdStep<Op>) {
    Lanes v[kMR][kChunks];
    for (int r = 0; r < kMR; ++r)
      for (int q = 0; q < kChunks; ++q) v[r][q] = Lanes{} + Op::init();
    for (std::int64_t k = 0; k < d; ++k) {
      Lanes b[kChunks];
      __builtin_memcpy(b, panel + k * kNR, sizeof b);
      for (int r = 0; r < kMR; ++r) {
        // x - 0 is x for every x (unlike x + 0 at -0), so this compiles to a plain broadcast.
        Lanes const a = static_cast<C>(xr[r][k]) - Lanes{};
        for (int q = 0; q < kChunks; ++q) Op::step(v[r][q], a, b[q]);
      }
    }
    for (int r = 0; r < kMR; ++r)
      for (int c = 0; c < kNR; ++c) acc[r][c] = v[r][c / kLanes<C>][c % kLanes<C>];
  } else {
    for (int r = 0; r < kMR; ++r)
      for (int c = 0; c < kNR; ++c) acc[r][c] = Op::init();
    for (std::int64_t k = 0; k < d; ++k) {
      C const* b = panel + k * kNR;
      for (int r = 0; r < kMR; ++r) {
        C const a = static_cast<C>(xr[r][k]);
        for (int c = 0; c < kNR; ++c) ops::step_at(op, acc[r][c], a, b[c], w, k);
      }
    }
  }
}

}  // namespace cudist::detail::cpu
