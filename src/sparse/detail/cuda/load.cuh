// Global-memory loads with the cache behaviour SpMV needs. The matrix streams through once:
// its loads are marked evict-first (ld.global.cs) in L1 and L2 so they do not push x out, since
// x is gathered at random and every reuse of it that a cache catches saves a DRAM or L2 trip.
#pragma once

#include <cstdint>
#include <cstring>

namespace cudist::sparse::detail::cuda {

/// kVec consecutive elements read by one load instruction; aligned to its size.
template <class E, int kVec>
struct alignas(sizeof(E) * kVec) Chunk {
  E e[kVec];
};

template <int kBytes>
struct LoadBits;
template <>
struct LoadBits<4> {
  using type = unsigned int;
};
template <>
struct LoadBits<8> {
  using type = uint2;
};
template <>
struct LoadBits<16> {
  using type = uint4;
};

/// Read-once data: evict-first in L1 and L2.
template <class V>
__device__ __forceinline__ V load_streaming(V const* p) {
  using Bits = typename LoadBits<sizeof(V)>::type;
  Bits const bits = __ldcs(reinterpret_cast<Bits const*>(p));
  V v;
  std::memcpy(&v, &bits, sizeof(V));
  return v;
}

/// Reused data (x, row offsets): the read-only path, cached in L1.
template <class E>
__device__ __forceinline__ E load_cached(E const* p) {
  return __ldg(p);
}

/// Chunk `chunk` of an array of `size` elements, as one vector load; the chunk that runs past
/// the end of the array is read element by element instead, never past `size`.
/// Position is the caller's unsigned type for positions in the array (32 bits where it fits).
template <int kVec, class E, class Position>
__device__ __forceinline__ Chunk<E, kVec> load_chunk_streaming(E const* base, Position chunk,
                                                               Position size) {
  Position const first = chunk * kVec;
  if (first + kVec <= size)
    return load_streaming(reinterpret_cast<Chunk<E, kVec> const*>(base) + chunk);
  Chunk<E, kVec> c{};
#pragma unroll
  for (int v = 0; v < kVec; ++v) {
    if (first + v < size) c.e[v] = load_streaming(base + first + v);
  }
  return c;
}

}  // namespace cudist::sparse::detail::cuda
