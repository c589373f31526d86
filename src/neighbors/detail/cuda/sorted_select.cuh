// Kernels of the second path of knn on the GPU, for k beyond what fits on chip: a block of rows'
// values from the pairwise engine becomes (key order, column) pairs, a segmented stable sort per
// row orders them, and the first k of each row are gathered. Only the block is held, never the
// whole matrix.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail::cuda {

/// The order value of a slot that is not a candidate (the point itself): above every key's.
template <class Order>
__device__ __forceinline__ Order no_candidate() {
  return ~Order(0);
}

template <class Key>
struct PackSortKeysKernel {
  using Traits = KeyTraits<Key>;
  using Order = typename Traits::Order;
  static constexpr int kThreads = 256;

  struct Params {
    Key const* values;    // (rows, cols) finished values of the block, dense
    std::int64_t rows, cols;
    std::int64_t row0;    // global row of the block's first row
    std::int64_t col0;    // global row of y of its first column
    RankSpec spec;
    Order* orders;        // (rows, cols) sort keys
    std::uint32_t* columns;  // (rows, cols) column within the problem
  };

  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const e = block * kThreads + tid;
    if (e >= p.rows * p.cols) return;
    std::int64_t const i = p.row0 + e / p.cols, j = p.col0 + e % p.cols;
    Key key = p.spec.similarity ? -p.values[e] : p.values[e];
    if (p.spec.zero_diagonal && i == j && is_finite_key(key)) key = Key(0);
    p.orders[e] = p.spec.exclude_self && i == j ? no_candidate<Order>() : Traits::order(key);
    p.columns[e] = static_cast<std::uint32_t>(e % p.cols);
  }
};

/// Offsets of the rows of a dense (rows, cols) block: the sort's segments.
struct SegmentOffsetsKernel {
  static constexpr int kThreads = 256;
  struct Params {
    std::int64_t rows, cols;
    std::int64_t* offsets;  // (rows + 1)
  };
  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const i = block * kThreads + tid;
    if (i <= p.rows) p.offsets[i] = i * p.cols;
  }
};

template <class Key>
struct GatherSortedKernel {
  using Traits = KeyTraits<Key>;
  using Order = typename Traits::Order;
  static constexpr int kThreads = 256;

  struct Params {
    Order const* orders;            // (rows, cols) sorted per row
    std::uint32_t const* columns;   // (rows, cols)
    std::int64_t rows, cols, k;
    RankSpec spec;
    Key* distances;                 // the block's first output row
    std::int64_t ld_distances;
    std::int64_t* indices;
    std::int64_t ld_indices;
  };

  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const e = block * kThreads + tid;
    if (e >= p.rows * p.k) return;
    std::int64_t const i = e / p.k, r = e % p.k;
    bool const real = r < p.cols && p.orders[i * p.cols + r] != no_candidate<Order>();
    p.distances[i * p.ld_distances + r] =
        real ? distance_of<Key>(Traits::from_order(p.orders[i * p.cols + r]), p.spec)
             : std::numeric_limits<Key>::quiet_NaN();
    p.indices[i * p.ld_indices + r] = real ? static_cast<std::int64_t>(p.columns[i * p.cols + r]) : -1;
  }
};

}  // namespace cudist::neighbors::detail::cuda
