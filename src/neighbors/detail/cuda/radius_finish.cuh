// The last step of radius on the GPU: the CSR row offsets from the scanned (row, chunk) counts.
#pragma once

#include <cstdint>

namespace cudist::neighbors::detail::cuda {

/// offsets[i] = starts[i * chunks] for i <= m (starts has m * chunks + 1 entries, the last the total).
struct RowOffsetsKernel {
  static constexpr int kThreads = 256;
  struct Params {
    std::int64_t const* starts;
    std::int64_t m;
    int chunks;
    std::int64_t* offsets;  // (m + 1)
  };
  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const i = block * kThreads + tid;
    if (i <= p.m) p.offsets[i] = p.starts[i * p.chunks];
  }
};

}  // namespace cudist::neighbors::detail::cuda
