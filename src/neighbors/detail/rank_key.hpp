// From an op's accumulator to its rank key (keys.hpp), for the fused selection on the GPU:
// the finished value, negated for a similarity. Planning has already taken euclidean's square
// root out of the op (RankSpec::sqrt_distance), so the root is computed for the answers only.
// Bit Hamming ranks on its exact integer count: no conversion in the hot loop.
#pragma once

#include <cstdint>
#include <type_traits>

#include "distance/detail/ops.hpp"

namespace cudist::neighbors::detail {

template <class Op>
struct RankKey {
  static constexpr bool kRecomputes = false;  // every key is final as made
  using Key = typename Op::Output;
  Op op;
  bool negate = false;  // similarity: larger values rank first
  CUDIST_HD Key operator()(typename Op::Acc const& acc, std::int64_t i, std::int64_t j) const {
    Key const v = op.finish(acc, i, j);
    if constexpr (std::is_signed_v<Key> || std::is_floating_point_v<Key>) {
      return negate ? -v : v;
    } else {
      return v;
    }
  }
};

/// Squared distances: the sum itself (planning cleared take_sqrt; no per-key branch on it).
/// In float, a key whose sum left the normal range (inexact) is replaced by exact(i, j), the sum
/// recomputed in double as cdist's epilogue does (SqDiffSumOp::squares); the fused kernel finds
/// such keys with two compares each and fixes them out of line, off its hot path.
template <class C, class Out>
struct RankKey<cudist::detail::ops::SqDiffSumOp<C, Out>> {
  using Op = cudist::detail::ops::SqDiffSumOp<C, Out>;
  static constexpr bool kRecomputes = Op::kRecomputes;
  using Key = Out;
  Op op;
  bool negate = false;  // never: a distance
  CUDIST_HD Key operator()(typename Op::Acc acc, std::int64_t, std::int64_t) const {
    return static_cast<Key>(acc);
  }
  static CUDIST_HD bool inexact(typename Op::Acc acc) { return Op::inexact(acc); }
  CUDIST_HD Key exact(std::int64_t i, std::int64_t j) const { return static_cast<Key>(op.exact_squares(i, j)); }
};

template <class Word, class Out>
struct RankKey<cudist::detail::ops::XorPopcountOp<Word, Out>> {
  static constexpr bool kRecomputes = false;
  using Op = cudist::detail::ops::XorPopcountOp<Word, Out>;
  using Key = std::uint32_t;
  Op op;
  bool negate = false;  // never: a distance
  CUDIST_HD Key operator()(typename Op::Acc acc, std::int64_t, std::int64_t) const { return acc; }
};

}  // namespace cudist::neighbors::detail
