// The materialised paths of the neighbours family on the GPU (sorted knn for large k, and every
// op without a fused consumer): blocks of query rows, each one's finished values against all of
// its problem's y computed by the pairwise engine into a workspace bounded by free memory. Only a
// block is held at a time, never the whole matrix.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/detail/cuda_runtime.hpp"
#include "distance/detail/backend.hpp"
#include "neighbors/detail/cuda/workspace.cuh"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail::cuda {

/// One block of values: rows [row0, row1) of x against rows [col0, col0 + cols) of y (its
/// problem's), dense (rows, cols) in `values` (the problem's distance dtype).
struct ValueBlock {
  std::int64_t row0, row1, col0, cols;
  Array const& values;
  std::int64_t rows() const { return row1 - row0; }
};

/// Calls f(block) for consecutive row blocks of every problem of p, in order. Each value takes
/// `bytes_per_value` of workspace in all (the values plus whatever f allocates per value): blocks
/// are sized so that this stays within a quarter of free device memory (at least 2^20 values,
/// at most 2^28, at least one row). Problems with no y still get their row blocks (cols = 0,
/// values empty), so f can write their padded answers.
template <class F>
void for_each_value_block(SelectProblem const& p, std::int64_t bytes_per_value, cudaStream_t stream, F&& f) {
  std::int64_t const budget = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(cudist::detail::cuda_free_memory() / 4) / bytes_per_value, 1 << 20, 1 << 28);
  auto rows_of = [](ConstMatrixView v, std::int64_t begin, std::int64_t end) {
    v.data = static_cast<char const*>(v.data) + begin * v.stride * static_cast<std::int64_t>(size_of(v.dtype));
    v.rows = end - begin;
    return v;
  };
  std::size_t const norm_bytes = size_of(p.distance_dtype);  // the prepared rows' norms (cosine)
  auto offset = [&](void const* norms, std::int64_t rows) {
    return norms == nullptr ? nullptr
                            : static_cast<void const*>(static_cast<char const*>(norms) + rows * norm_bytes);
  };
  for (std::int64_t b = 0; b < p.problems(); ++b) {
    std::int64_t const xb = p.x_offsets[b], xe = p.x_offsets[b + 1];
    std::int64_t const yb = p.y_offsets[b], ye = p.y_offsets[b + 1];
    std::int64_t const cols = ye - yb;
    std::int64_t const step =
        std::clamp<std::int64_t>(budget / std::max<std::int64_t>(cols, 1), 1, std::max<std::int64_t>(xe - xb, 1));
    for (std::int64_t r0 = xb; r0 < xe; r0 += step) {
      std::int64_t const r1 = std::min(xe, r0 + step);
      Array values = device_array(cols > 0 ? r1 - r0 : 0, cols, p.distance_dtype, stream);
      if (cols > 0) {
        cudist::detail::PairwiseProblem sub = p.pairwise;
        sub.x = rows_of(p.pairwise.x, r0, r1);
        sub.y = rows_of(p.pairwise.y, yb, ye);
        sub.out = values.view();
        sub.op.x_norms = offset(p.pairwise.op.x_norms, r0);
        sub.op.y_norms = offset(p.pairwise.op.y_norms, yb);
        cudist::detail::cuda::pairwise(sub, stream);
      }
      f(ValueBlock{r0, r1, yb, cols, values});
    }
  }
}

}  // namespace cudist::neighbors::detail::cuda
