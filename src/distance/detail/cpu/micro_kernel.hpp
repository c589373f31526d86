// The CPU backend's register-blocked micro-kernel over the op structs, shared by every dense
// contraction on the CPU (pairwise distances, semiring products): kMR rows of x against a panel of
// kNR columns of y packed k-major, the innermost loop running over the kNR outputs of one x row
// with a broadcast x value, so the compiler vectorises it across j without reordering the
// reduction over k.
#pragma once

#include <cstdint>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "distance/detail/cpu/isa.hpp"
#include "distance/detail/ops.hpp"

namespace cudist::detail::cpu::CUDIST_CPU_ISA {

// The SIMD register the code targets: zmm, ymm, or 16 bytes (SSE2 in a portable x86-64 build
// such as the wheels', NEON elsewhere); a variant translation unit names its own (isa.hpp). A GCC
// vector wider than the target's registers is emulated through memory: at 32 bytes in an SSE2
// build the micro-kernel took ~230 cycles a step, not ~7.
#if defined(CUDIST_CPU_VECTOR_BYTES)
constexpr int kVectorBytes = CUDIST_CPU_VECTOR_BYTES;
constexpr int kVectorRegisters = CUDIST_CPU_VECTOR_REGISTERS;
#elif defined(__AVX512F__)
constexpr int kVectorBytes = 64;
constexpr int kVectorRegisters = 32;
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
constexpr int kVectorRegisters = 16;
#else
constexpr int kVectorBytes = 16;
constexpr int kVectorRegisters = 16;
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

/// Ops whose step also runs on SIMD vectors here: the lane-wise ops, and bit Hamming on 32-bit
/// words (which the GPU engine does not treat as lane-wise; see XorPopcountOp).
template <class Op>
constexpr bool kSimdStep = Op::kLaneWise;
template <class Out>
constexpr bool kSimdStep<ops::XorPopcountOp<std::uint32_t, Out>> = true;

/// Vector registers a row's chunk of Op's accumulators takes: two for the witness ops (the values
/// and the ks that produced them), else one.
template <class Op>
constexpr int kAccRegisters = kSimdStep<Op> && Op::kTakesIndex ? 2 : 1;

/// Rows of x per micro-kernel call: the accumulators of kMR rows of kNR columns (kMR independent
/// chains per column vector), the panel's row and a broadcast must fit the registers, else they
/// spill (doubles in AVX2 at 4 rows: ~20 cycles a step against ~8 at 2, on an AVX2 EPYC). The
/// most rows up to 8 that fit: 8 in AVX-512, 6 (float) or 2 (double) in AVX2, 3 for float
/// witnesses. Each panel load serves every row of the call, and the panel streams from L2 once
/// per call's rows: float in AVX2 took 0.44 ns a row-step at 4 rows and 0.40 at 6 (Zen 3, a
/// tile's loop order), and C1 250 -> 202 ms (docs/tuning.md).
template <class Op>
constexpr int kMR = [] {
  constexpr int chunks = kNR / kLanes<typename Op::Compute>;
  int rows = 8;
  while (rows > 1 && rows * chunks * kAccRegisters<Op> + chunks + 2 > kVectorRegisters) --rows;
  return rows;
}();

/// The kLanes<C> values at p (any alignment) as one register. One vector-sized copy per register:
/// a copy of a whole row of kNR went through the stack in 16-byte halves, and every 32-byte load
/// of it then missed store-to-load forwarding (perf, C1 on an AVX2 EPYC: half the loop's cycles).
/// kPinned: the value is held in a register (an empty asm that may change it), where GCC would
/// fold the load into each row's operation and load it kMR times: then the loads, two a cycle on
/// AMD Zen, bound the loop instead of the FMAs (C1's micro-kernel ~10.5 -> ~6.5 cycles a step on
/// an AVX2 EPYC). Only where the accumulators leave registers for it: a pinned value that does not
/// fit is spilled, which is worse than the folded loads.
template <bool kPinned, class C>
inline typename LanesOf<C>::type load_lanes(C const* p) {
  typename LanesOf<C>::type v;
  __builtin_memcpy(&v, p, sizeof v);
#if defined(__x86_64__) || defined(__i386__)
  if constexpr (kPinned) asm("" : "+x"(v));
#endif
  return v;
}

/// kLanes int32 lanes: the ks that lane-wise witness ops keep next to their values.
template <int kCount>
struct IndexLanesOf {
  typedef std::int32_t type __attribute__((vector_size(kCount * sizeof(std::int32_t))));
};

/// acc[r][c] = reduction over k of step(x_r[k], panel[k][c]), for kMR rows and kNR columns.
/// Lane-wise ops run on GCC vector types: the kNR lanes of each row in registers, the x value
/// broadcast, kMR independent accumulator chains (the compiler does not reliably find this on its
/// own). Lane-wise ops that take the index (witness ops, Acc = {value, k}) keep a vector of values
/// and a vector of the ks that produced them.
template <class Op, class Elem, class C, class Acc>
void micro_kernel(Op const& op, Elem const* const (&xr)[kMR<Op>], C const* panel, std::int64_t d,
                  C const* w, Acc (&acc)[kMR<Op>][kNR]) {
  constexpr int kRows = kMR<Op>;
  using Lanes = typename LanesOf<C>::type;
  constexpr int kChunks = kNR / kLanes<C>;
  if constexpr (kSimdStep<Op> && Op::kTakesIndex) {
    using Index = typename IndexLanesOf<kLanes<C>>::type;
    Lanes v[kRows][kChunks];
    Index ks[kRows][kChunks];
    for (int r = 0; r < kRows; ++r) {
      for (int q = 0; q < kChunks; ++q) {
        v[r][q] = Lanes{} + Op::init().value;
        ks[r][q] = Index{} + Op::init().k;
      }
    }
    for (std::int64_t k = 0; k < d; ++k) {
      Lanes b[kChunks];
      for (int q = 0; q < kChunks; ++q) b[q] = load_lanes<false>(panel + k * kNR + q * kLanes<C>);
      Index const kv = Index{} + static_cast<std::int32_t>(k);
      for (int r = 0; r < kRows; ++r) {
        Lanes const a = static_cast<C>(xr[r][k]) - Lanes{};
        for (int q = 0; q < kChunks; ++q) Op::step(v[r][q], ks[r][q], a, b[q], kv);
      }
    }
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kNR; ++c)
        acc[r][c] = Acc{v[r][c / kLanes<C>][c % kLanes<C>], ks[r][c / kLanes<C>][c % kLanes<C>]};
  } else if constexpr (kSimdStep<Op>) {
    // The accumulators, the panel's row, x's broadcast and a step's temporary.
    constexpr bool kPinned = kRows * kChunks + kChunks + 2 <= kVectorRegisters;
    Lanes v[kRows][kChunks];
    for (int r = 0; r < kRows; ++r)
      for (int q = 0; q < kChunks; ++q) v[r][q] = Lanes{} + Op::init();
    for (std::int64_t k = 0; k < d; ++k) {
      Lanes b[kChunks];
      for (int q = 0; q < kChunks; ++q) b[q] = load_lanes<kPinned>(panel + k * kNR + q * kLanes<C>);
      for (int r = 0; r < kRows; ++r) {
        // x - 0 is x for every x (unlike x + 0 at -0), so this compiles to a plain broadcast.
        Lanes const a = static_cast<C>(xr[r][k]) - Lanes{};
        for (int q = 0; q < kChunks; ++q) Op::step(v[r][q], a, b[q]);
      }
    }
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kNR; ++c) acc[r][c] = v[r][c / kLanes<C>][c % kLanes<C>];
  } else {
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kNR; ++c) acc[r][c] = Op::init();
    for (std::int64_t k = 0; k < d; ++k) {
      C const* b = panel + k * kNR;
      for (int r = 0; r < kRows; ++r) {
        C const a = static_cast<C>(xr[r][k]);
        for (int c = 0; c < kNR; ++c) ops::step_at(op, acc[r][c], a, b[c], w, k);
      }
    }
  }
}

/// Whether rows of T can be written with streaming (non-temporal) stores here: x86's for float
/// and double.
template <class T>
constexpr bool kStreamable =
#if defined(__x86_64__)
    std::is_same_v<T, float> || std::is_same_v<T, double>;
#else
    false;
#endif

/// Writes v to p (kVectorBytes-aligned) with streaming stores: the lines go to memory without
/// being read first for ownership and without evicting the caches' working set. For outputs far
/// larger than the caches, which nothing reads back before they leave them (pairwise_tiles.hpp).
template <class T>
inline void stream_row(T* p, T const (&v)[kNR]) {
  static_assert(kStreamable<T>, "streaming stores of float or double rows");
#if defined(__x86_64__)
  constexpr int kStep = kVectorBytes / static_cast<int>(sizeof(T));
  for (int q = 0; q < kNR; q += kStep) {
    if constexpr (std::is_same_v<T, float>) {
      if constexpr (kVectorBytes == 64) {
        _mm512_stream_ps(p + q, _mm512_loadu_ps(v + q));
      } else if constexpr (kVectorBytes == 32) {
        _mm256_stream_ps(p + q, _mm256_loadu_ps(v + q));
      } else {
        _mm_stream_ps(p + q, _mm_loadu_ps(v + q));
      }
    } else {
      if constexpr (kVectorBytes == 64) {
        _mm512_stream_pd(p + q, _mm512_loadu_pd(v + q));
      } else if constexpr (kVectorBytes == 32) {
        _mm256_stream_pd(p + q, _mm256_loadu_pd(v + q));
      } else {
        _mm_stream_pd(p + q, _mm_loadu_pd(v + q));
      }
    }
  }
#endif
}

/// Orders this thread's streaming stores before what follows (they are weakly ordered): each
/// thread of a team calls it before the barrier that hands the output to the caller.
inline void fence_streamed_stores() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

}  // namespace cudist::detail::cpu::CUDIST_CPU_ISA
