// Integer min-plus and max-plus on Hopper's DPX instructions: __viaddmin_s32 / __viaddmax_s32 do
// one update (an add, then a min or max) per instruction, and __viaddmin_s16x2 / __viaddmax_s16x2
// two int16 updates. Their adds wrap around in the element's own width, so the operands are first
// encoded (dpx_encode.cuh): an infinity becomes a proxy P, and the loop is exact whenever every
// finite entry lies within +-F, because with T = P - F > 2F and 2P within range
//   finite + finite   stays within [-2F, 2F],
//   infinite + finite stays beyond T (in magnitude), and infinite + infinite = 2P does not wrap,
// so a result at or beyond T decodes to infinity and every other result is exact. The encode pass
// checks the range and, on the device, hands the product to the saturating ring otherwise.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "semiring/detail/semiring_ops.hpp"

namespace cudist::detail::cuda {

/// The proxy P, the exact range F and the decode threshold T = P - F of an element type.
template <class E>
struct DpxRange;
template <>
struct DpxRange<std::int32_t> {
  static constexpr std::int32_t kProxy = (1 << 30) - 1;  // 2P = 2^31 - 2
  static constexpr std::int32_t kFiniteMax = 1 << 28;   // T = 3 * 2^28 - 1 > 2^29
  static constexpr std::int32_t kThreshold = kProxy - kFiniteMax;
};
template <>
struct DpxRange<std::int16_t> {
  static constexpr std::int16_t kProxy = (1 << 14) - 1;  // 2P = 32766
  static constexpr std::int16_t kFiniteMax = 1 << 12;   // T = 12287 > 8192
  static constexpr std::int16_t kThreshold = kProxy - kFiniteMax;
};

/// Encoding of the elements E of (min, +) (kSign = +1, infinity = E's maximum) or (max, +)
/// (kSign = -1, infinity = E's minimum) for the DPX loop.
template <class E, int kSign>
struct DpxEncoding {
  using Range = DpxRange<E>;
  static constexpr E kInfinity =
      kSign > 0 ? std::numeric_limits<E>::max() : std::numeric_limits<E>::lowest();
  static constexpr E kEncodedInfinity = E(kSign * Range::kProxy);
  static CUDIST_HD bool exact(E v) {
    return v == kInfinity || (v >= -Range::kFiniteMax && v <= Range::kFiniteMax);
  }
  static CUDIST_HD E encode(E v) { return v == kInfinity ? kEncodedInfinity : v; }
  static CUDIST_HD E decode(E r) {
    bool const infinite = kSign > 0 ? r >= Range::kThreshold : r <= -Range::kThreshold;
    return infinite ? kInfinity : r;
  }
};

/// Two int16 lanes in one 32-bit word: lane 0 in the low half.
CUDIST_HD std::uint32_t pack_lanes(std::int16_t lo, std::int16_t hi) {
  return static_cast<std::uint16_t>(lo) | (static_cast<std::uint32_t>(static_cast<std::uint16_t>(hi)) << 16);
}
CUDIST_HD std::int16_t lane_of(std::uint32_t word, int lane) {
  return static_cast<std::int16_t>(static_cast<std::uint16_t>(word >> (16 * lane)));
}

template <int kSign>
using DpxAdd = std::conditional_t<(kSign > 0), semiring::MinAdd, semiring::MaxAdd>;

/// int32 (min, +) / (max, +): one update per DPX instruction, on encoded operands.
template <int kSign>
struct DpxPlusInt32 {
  using Compute = std::int32_t;
  using Element = std::int32_t;
  using Add = DpxAdd<kSign>;
  using Encoding = DpxEncoding<std::int32_t, kSign>;
  static constexpr bool kLaneWise = false;
  /// Beyond every sum of encoded operands, in the direction add moves away from.
  static CUDIST_HD std::int32_t zero() {
    return kSign > 0 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int32_t>::lowest();
  }
  static CUDIST_HD std::int32_t pad() { return Encoding::kEncodedInfinity; }
  static CUDIST_HD std::int32_t mul_add(std::int32_t acc, std::int32_t a, std::int32_t b) {
    if constexpr (kSign > 0) {
      return __viaddmin_s32(a, b, acc);  // min(a + b, acc)
    } else {
      return __viaddmax_s32(a, b, acc);
    }
  }
  template <class Out>
  static CUDIST_HD Out decode(std::int32_t v) { return Encoding::decode(v); }
};

/// int16 pairs: A's words hold (A[i][k], A[i][k]) and B's (B[k][2c], B[k][2c+1]), so one DPX
/// instruction updates outputs (i, 2c) and (i, 2c + 1). The accumulator is a packed pair; decode
/// gives the pair of int16 results, which PackedPairEpilogue stores.
template <int kSign>
struct DpxPlusInt16x2 {
  using Compute = std::uint32_t;
  using Element = std::int16_t;
  using Add = DpxAdd<kSign>;
  using Encoding = DpxEncoding<std::int16_t, kSign>;
  static constexpr bool kLaneWise = false;
  static CUDIST_HD std::uint32_t zero() {
    std::int16_t const z = kSign > 0 ? std::numeric_limits<std::int16_t>::max()
                                     : std::numeric_limits<std::int16_t>::lowest();
    return pack_lanes(z, z);
  }
  static CUDIST_HD std::uint32_t pad() {
    return pack_lanes(Encoding::kEncodedInfinity, Encoding::kEncodedInfinity);
  }
  static CUDIST_HD std::uint32_t mul_add(std::uint32_t acc, std::uint32_t a, std::uint32_t b) {
    if constexpr (kSign > 0) {
      return __viaddmin_s16x2(a, b, acc);  // per lane: min(a + b, acc)
    } else {
      return __viaddmax_s16x2(a, b, acc);
    }
  }
  template <class Out>
  static CUDIST_HD Out decode(std::uint32_t v) {
    return pack_lanes(Encoding::decode(lane_of(v, 0)), Encoding::decode(lane_of(v, 1)));
  }
};

/// Stores the two int16 outputs of a packed accumulator: columns 2 * pair and 2 * pair + 1 of C
/// (the second only when it exists), combined with C's value in the accumulate form.
template <class Op>
struct PackedPairEpilogue {
  struct Params {
    std::int16_t* c;
    std::int64_t ldc;
    std::int64_t n;  // int16 columns of C
    bool accumulate;
  };
  __device__ static void store(Params const& p, Op const& op, std::uint32_t acc, std::int64_t i,
                               std::int64_t pair) {
    std::uint32_t const v = op.finish(acc, i, pair);
#pragma unroll
    for (int lane = 0; lane < 2; ++lane) {
      std::int64_t const col = 2 * pair + lane;
      if (col >= p.n) break;
      std::int16_t& c = p.c[i * p.ldc + col];
      std::int16_t const x = lane_of(v, lane);
      c = p.accumulate ? Op::Add::add(x, c) : x;
    }
  }
};

}  // namespace cudist::detail::cuda
