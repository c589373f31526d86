// The tensor-core candidate search of float32 knn / match (bounded_search_kernel.cuh) for squared
// L2 (euclidean ranks on it), inner product and cosine, as the orchestration (select_cuda.cu) sees
// it: whether a problem takes it, its block's shared memory, the rounded rows it reads, and the
// launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/cuda/rounded_rows.hpp"
#include "neighbors/detail/expansion_bound.hpp"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail::cuda {

/// The rows as the search reads them, and the bound they were rounded under.
struct BoundedForm {
  RoundedRows x, y;
  ExpansionBound bound;
};

/// Deepest rows the search takes (its tiles stay in shared memory whole).
constexpr std::int64_t kMaxBoundedDepth = 256;

/// Whether knn (k nearest; k <= 2 also for match) of p runs on the tensor cores: float32 rows
/// (bfloat16 / float16 inputs arrive converted) of squared L2, inner product or cosine, unweighted,
/// depth at most kMaxBoundedDepth, no mutual-check observer, a block that fits the device, sm_80
/// code for the device, and CUDIST_SIMT_SELECTION unset (set, the SIMT engine runs, with the same
/// results: the tests compare the two).
bool bounded_search_applies(SelectProblem const& p, std::int64_t k, bool observer);

/// Shared memory of a block for k entries (the grid plan's occupancy guess).
std::size_t bounded_search_smem(SelectProblem const& p, std::int64_t k);

/// The rounded rows of p (y's are x's in a self-join), kept alive in `keep`. A streamed database's
/// (p.y_pending()) are allocated, not written: round_y_rows writes them as y's rows arrive.
BoundedForm bounded_search_form(SelectProblem const& p, std::vector<Array>& keep, cudaStream_t stream);

/// Rows [first, last) of p's y rounded into form.y, in stream order; last = n also writes the
/// padding's terms.
void round_y_rows(SelectProblem const& p, BoundedForm const& form, std::int64_t first, std::int64_t last,
                  cudaStream_t stream);

/// The search's launch: each chunk's best a.k entries per row into a.partial, as the fused
/// kernel leaves them for the merge.
void run_bounded_search(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);

// Per op, for the above (inst/bounded_l2.cu, inst/bounded_dot.cu): a block's shared memory for k
// entries on rows of `depth` float16 values, whether its kernel runs on this device, the launch.
std::size_t bounded_l2_smem(std::int64_t k, int depth);
bool bounded_l2_runs_here(std::int64_t k, int depth);
void run_bounded_l2(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);
std::size_t bounded_dot_smem(std::int64_t k, int depth);
bool bounded_dot_runs_here(std::int64_t k, int depth);
void run_bounded_dot(BoundedForm const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);

}  // namespace cudist::neighbors::detail::cuda
