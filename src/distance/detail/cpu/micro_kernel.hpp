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
#else
constexpr int kMR = 4;   // 4 x 16-float accumulators: 8 ymm registers
#endif
constexpr int kNR = 16;

/// kNR lanes of C as one GCC vector (a zmm register for float with AVX-512, two ymm with AVX2).
template <class C>
struct LanesOf;
template <>
struct LanesOf<float> {
  typedef float type __attribute__((vector_size(kNR * sizeof(float))));
};
template <>
struct LanesOf<double> {
  typedef double type __attribute__((vector_size(kNR * sizeof(double))));
};
template <>
struct LanesOf<std::int32_t> {
  typedef std::int32_t type __attribute__((vector_size(kNR * sizeof(std::int32_t))));
};

/// acc[r][c] = reduction over k of step(x_r[k], panel[k][c]), for kMR rows and kNR columns.
/// Lane-wise ops run on GCC vector types: one kNR-wide vector per row, the x value broadcast,
/// kMR independent accumulator chains (the compiler does not reliably find this on its own).
/// Lane-wise ops that take the index (witness ops, Acc = {value, k}) keep a vector of values and
/// a vector of the ks that produced them.
template <class Op, class Elem, class C, class Acc>
void micro_kernel(Op const& op, Elem const* const (&xr)[kMR], C const* panel, std::int64_t d,
                  C const* w, Acc (&acc)[kMR][kNR]) {
  if constexpr (Op::kLaneWise && Op::kTakesIndex) {
    using Lanes = typename LanesOf<C>::type;
    using Index = typename LanesOf<std::int32_t>::type;
    Lanes v[kMR];
    Index ks[kMR];
    for (int r = 0; r < kMR; ++r) {
      v[r] = Lanes{} + Op::init().value;
      ks[r] = Index{} + Op::init().k;
    }
    for (std::int64_t k = 0; k < d; ++k) {
      Lanes b;
      __builtin_memcpy(&b, panel + k * kNR, sizeof b);
      Index const kv = Index{} + static_cast<std::int32_t>(k);
      for (int r = 0; r < kMR; ++r) Op::step(v[r], ks[r], static_cast<C>(xr[r][k]) - Lanes{}, b, kv);
    }
    for (int r = 0; r < kMR; ++r)
      for (int c = 0; c < kNR; ++c) acc[r][c] = Acc{v[r][c], ks[r][c]};
  } else if constexpr (Op::kLaneWise) {
    using Lanes = typename LanesOf<C>::type;
    Lanes v[kMR];
    for (int r = 0; r < kMR; ++r) v[r] = Lanes{} + Op::init();
    for (std::int64_t k = 0; k < d; ++k) {
      Lanes b;
      __builtin_memcpy(&b, panel + k * kNR, sizeof b);
      // x - 0 is x for every x (unlike x + 0 at -0), so this compiles to a plain broadcast.
      for (int r = 0; r < kMR; ++r) Op::step(v[r], static_cast<C>(xr[r][k]) - Lanes{}, b);
    }
    for (int r = 0; r < kMR; ++r)
      for (int c = 0; c < kNR; ++c) acc[r][c] = v[r][c];
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
