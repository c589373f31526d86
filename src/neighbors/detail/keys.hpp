// Rank keys: what the neighbour selection compares, identically on both backends. A key orders
// like the distance it stands for (smaller = nearer). KeyTraits gives each key type a total order
// in which NaN comes after +inf, and packs a key with its column index into an Entry whose plain
// comparison is the pair (key, index): ties go to the smaller index, and every real entry ranks
// before the empty one.
//
// Key types: float / double (the finished value of a floating-point op, without the square root
// of euclidean and negated for a similarity), and uint32 (exact integer distances: bit Hamming,
// uint8 squared L2), which never come near 2^32 - 1.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "distance/detail/ops.hpp"  // CUDIST_HD

namespace cudist::neighbors::detail {

/// How a finished value becomes a key, and a key the distance a caller sees.
struct RankSpec {
  bool similarity = false;     // inner_product: key = -value, so larger values rank first
  bool sqrt_distance = false;  // euclidean family: keys are the squares, distance = sqrt(key)
  bool zero_diagonal = false;  // self-join: finite (i, i) keys are exact 0, as cdist writes them
  bool exclude_self = false;   // self-join without each point itself
};

CUDIST_HD std::uint32_t bits_of(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

CUDIST_HD float float_of(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

CUDIST_HD std::uint64_t bits_of(double f) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(f));
#else
  std::uint64_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

CUDIST_HD double double_of(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

/// A 64-bit key order with its index, compared as the pair (order, index).
struct WideEntry {
  std::uint64_t order;
  std::uint64_t index;
  friend CUDIST_HD bool operator<(WideEntry a, WideEntry b) {
    return a.order < b.order || (a.order == b.order && a.index < b.index);
  }
  friend CUDIST_HD bool operator==(WideEntry a, WideEntry b) {
    return a.order == b.order && a.index == b.index;
  }
  friend CUDIST_HD bool operator!=(WideEntry a, WideEntry b) { return !(a == b); }
};

template <class Key>
struct KeyTraits;

/// The common half of the float and double traits: Bits is the unsigned type of the same width.
template <class Key, class Bits, class EntryT>
struct FloatKeyTraits {
  using Entry = EntryT;
  using Order = Bits;
  static constexpr Bits kSign = Bits(1) << (8 * sizeof(Bits) - 1);

  /// The threshold of a row with fewer than k entries: may_enter admits every key.
  static CUDIST_HD Key open() { return std::numeric_limits<Key>::quiet_NaN(); }
  /// The hot-loop filter: false only when `key` cannot rank before the threshold's entry. NaN keys
  /// pass it (the exact comparison then places them after every real key).
  static CUDIST_HD bool may_enter(Key key, Key threshold) { return !(key >= threshold); }
  /// Monotone map to unsigned order: -0 is +0, every NaN is one NaN above +inf, negatives are
  /// reversed below the positives.
  static CUDIST_HD Bits order(Key key) {
    Bits u = bits_of(key + Key(0));
    if (key != key) u = bits_of(std::numeric_limits<Key>::quiet_NaN()) & ~kSign;
    return (u & kSign) ? ~u : (u | kSign);
  }
  static CUDIST_HD Key from_order(Bits o) {
    Bits const u = (o & kSign) ? (o & ~kSign) : ~o;
    if constexpr (sizeof(Bits) == 4) {
      return float_of(u);
    } else {
      return double_of(u);
    }
  }
  /// The keys a search over the order may visit: the orders of -inf and +inf bound every
  /// non-NaN key; below and above them lie NaN patterns.
  static CUDIST_HD Bits lowest_order() { return order(-std::numeric_limits<Key>::infinity()); }
  static CUDIST_HD Bits highest_order() { return order(std::numeric_limits<Key>::infinity()); }
};

template <>
struct KeyTraits<float> : FloatKeyTraits<float, std::uint32_t, std::uint64_t> {
  static CUDIST_HD Entry empty() { return ~Entry(0); }
  static CUDIST_HD Entry entry(float key, std::uint32_t index) {
    return (static_cast<Entry>(order(key)) << 32) | index;
  }
  static CUDIST_HD float key(Entry e) { return from_order(static_cast<std::uint32_t>(e >> 32)); }
  static CUDIST_HD std::int64_t index(Entry e) {
    return e == empty() ? -1 : static_cast<std::int64_t>(e & 0xffffffffu);
  }
  static CUDIST_HD float threshold(Entry kth) { return kth == empty() ? open() : key(kth); }
};

template <>
struct KeyTraits<double> : FloatKeyTraits<double, std::uint64_t, WideEntry> {
  static CUDIST_HD Entry empty() { return {~std::uint64_t(0), ~std::uint64_t(0)}; }
  static CUDIST_HD Entry entry(double key, std::uint32_t index) { return {order(key), index}; }
  static CUDIST_HD double key(Entry e) { return from_order(e.order); }
  static CUDIST_HD std::int64_t index(Entry e) {
    return e == empty() ? -1 : static_cast<std::int64_t>(e.index);
  }
  static CUDIST_HD double threshold(Entry kth) { return kth == empty() ? open() : key(kth); }
};

/// Exact integer distances: no NaN, and no real key reaches open().
template <>
struct KeyTraits<std::uint32_t> {
  using Entry = std::uint64_t;
  using Order = std::uint32_t;
  static CUDIST_HD Entry empty() { return ~Entry(0); }
  static CUDIST_HD std::uint32_t open() { return 0xffffffffu; }
  static CUDIST_HD bool may_enter(std::uint32_t key, std::uint32_t threshold) { return key < threshold; }
  static CUDIST_HD std::uint32_t order(std::uint32_t key) { return key; }
  static CUDIST_HD std::uint32_t from_order(std::uint32_t o) { return o; }
  static CUDIST_HD std::uint32_t lowest_order() { return 0; }
  static CUDIST_HD std::uint32_t highest_order() { return 0xfffffffeu; }
  static CUDIST_HD Entry entry(std::uint32_t key, std::uint32_t index) {
    return (static_cast<Entry>(key) << 32) | index;
  }
  static CUDIST_HD std::uint32_t key(Entry e) { return static_cast<std::uint32_t>(e >> 32); }
  static CUDIST_HD std::int64_t index(Entry e) {
    return e == empty() ? -1 : static_cast<std::int64_t>(e & 0xffffffffu);
  }
  static CUDIST_HD std::uint32_t threshold(Entry kth) { return kth == empty() ? open() : key(kth); }
};

template <class Key>
CUDIST_HD bool is_finite_key(Key key) {
  if constexpr (std::is_floating_point_v<Key>) {
    return key - key == Key(0);  // false for NaN and both infinities
  } else {
    return true;
  }
}

/// The distance a caller sees for `key` (float32, or float64 for float64 inputs). The conversion
/// of an integer key is the one cdist's epilogue makes, so both report the same value.
template <class Out, class Key>
CUDIST_HD Out distance_of(Key key, RankSpec spec) {
  Out v = static_cast<Out>(key);
  if (spec.similarity) v = -v;
  return spec.sqrt_distance ? std::sqrt(v) : v;
}

/// True when a key with this distance is kept by radius r: distance <= r, or for a similarity
/// value >= r (NaN never).
template <class Out, class Key>
bool within_radius(Key key, double r, RankSpec spec) {
  Out const v = distance_of<Out>(key, spec);
  return spec.similarity ? static_cast<double>(v) >= r : static_cast<double>(v) <= r;
}

/// The largest key kept by radius r, or nothing when no key is. The kept keys are a prefix of
/// the key order (the reported value is monotone in the key), so a binary search over the order
/// finds the bound, and `key <= bound` is then the whole test on a device.
template <class Key, class Out>
std::optional<Key> radius_bound(double r, RankSpec spec) {
  using Traits = KeyTraits<Key>;
  using Order = typename Traits::Order;
  // Squares are never negative: start the search at +0 so sqrt never sees a negative key.
  Order lo = (spec.sqrt_distance && std::is_floating_point_v<Key>) ? Traits::order(Key(0))
                                                                    : Traits::lowest_order();
  Order hi = Traits::highest_order();
  if (!within_radius<Out>(Traits::from_order(lo), r, spec)) return std::nullopt;
  while (lo < hi) {  // invariant: lo is kept
    Order const mid = lo + (hi - lo + 1) / 2;
    if (within_radius<Out>(Traits::from_order(mid), r, spec)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return Traits::from_order(lo);
}

}  // namespace cudist::neighbors::detail
