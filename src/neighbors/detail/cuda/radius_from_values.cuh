// Radius search over a materialised block of values (value_blocks.cuh), for the ops without a
// fused consumer: a warp per row walks the row's columns 32 at a time; the counting pass adds up
// the kept columns, the writing pass places them from the row's start in increasing column
// order (a ballot gives each lane its position), as the fused radius consumer does.
#pragma once

#include <cstdint>
#include <type_traits>

#include "neighbors/detail/cuda/warp_entries.cuh"
#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail::cuda {

template <class Key>
struct RadiusFromValuesKernel {
  static_assert(std::is_floating_point_v<Key>, "materialised values are float32 or float64");
  static constexpr int kThreads = 256;
  static constexpr int kRowsPerBlock = kThreads / 32;

  struct Params {
    Key const* values;           // (rows, cols) finished values of the block, dense
    std::int64_t rows, cols;
    std::int64_t row0;           // global row of x of the block's first row
    std::int64_t col0;           // global row of y of its first column
    Key bound;                   // keep key <= bound (keys.hpp: radius_bound)
    RankSpec spec;
    std::int64_t* counts;        // counting pass: (m) kept columns per row
    std::int64_t const* starts;  // writing pass: (m) first output position per row; null: count
    std::int64_t* indices;       // writing pass: (total) column within the problem
    Key* distances;              // writing pass: (total)
  };

  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const r = block * kRowsPerBlock + tid / 32;
    int const lane = tid % 32;
    if (r >= p.rows) return;  // whole warps leave together
    std::int64_t const i = p.row0 + r;
    Key const* row = p.values + r * p.cols;
    std::int64_t const base = p.starts != nullptr ? p.starts[i] : 0;
    std::int64_t kept = 0;
    for (std::int64_t c0 = 0; c0 < p.cols; c0 += 32) {
      std::int64_t const j = c0 + lane;
      Key key = 0;
      bool keep = false;
      if (j < p.cols) {
        key = p.spec.similarity ? -row[j] : row[j];
        bool const self = i == p.col0 + j;
        if (p.spec.zero_diagonal && self && is_finite_key(key)) key = Key(0);
        keep = !(p.spec.exclude_self && self) && key <= p.bound;
      }
      unsigned const ballot = __ballot_sync(kFullWarp, keep);
      if (p.starts != nullptr && keep) {
        std::int64_t const pos = base + kept + __popc(ballot & ((1u << lane) - 1));
        p.indices[pos] = j;
        p.distances[pos] = distance_of<Key>(key, p.spec);
      }
      kept += __popc(ballot);
    }
    if (p.starts == nullptr && lane == 0) p.counts[i] = kept;
  }
};

}  // namespace cudist::neighbors::detail::cuda
