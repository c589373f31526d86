// The tensor-core candidate search of float32 knn / match in squared L2 (bounded_l2_kernel.cuh),
// as the orchestration (select_cuda.cu) sees it: whether a problem takes it, its block's shared
// memory, the rounded rows it reads, and the launch.
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
struct BoundedL2Form {
  RoundedRows x, y;
  ExpansionBound bound;
};

/// Whether knn (k nearest; k <= 2 also for match) of p runs on the tensor cores: float32 rows of
/// squared L2 (euclidean ranks on it), depth at most kMaxBoundedDepth, no mutual-check observer,
/// a block that fits the device, sm_80 code for the device, and CUDIST_SIMT_SELECTION unset (set,
/// the SIMT engine runs, with the same results: the tests compare the two).
bool bounded_l2_applies(SelectProblem const& p, std::int64_t k, bool observer);

/// Deepest rows the search takes (its tiles stay in shared memory whole).
constexpr std::int64_t kMaxBoundedDepth = 256;

/// Shared memory of a block for k entries on rows of depth d (the grid plan's occupancy guess).
std::size_t bounded_l2_smem(std::int64_t k, std::int64_t d);

/// The rounded rows of p (y's are x's in a self-join), kept alive in `keep`.
BoundedL2Form bounded_l2_form(SelectProblem const& p, std::vector<Array>& keep, cudaStream_t stream);

/// The search's launch: each chunk's best a.k entries per row into a.partial, as the fused
/// kernel leaves them for the merge.
void run_bounded_l2(BoundedL2Form const& form, FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);

}  // namespace cudist::neighbors::detail::cuda
