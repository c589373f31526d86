// knn over a database still in host memory (SelectProblem::y_host) on the tensor-core search: the
// grid's column chunks are launched a part (a few chunks) at a time, each part once its rows of y
// are on the device and rounded, so that copying the later parts overlaps searching the earlier
// ones instead of coming before all of it. Why: a copy from pageable memory is bound by the
// host's memory (~30 GB/s on the 2 x H200 machine: 6.9 ms of a 47 ms search of a 205 MB
// database, run 193), and the copies of several GPUs at once share that bandwidth (two halves of
// it took 8 ms there).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "neighbors/detail/cuda/bounded_search.hpp"
#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail::cuda {

/// Parts a streamed search cuts y into (the grid's chunks, grouped where it has more): each is
/// copied, then searched while the next ones are copied; the first part's copy is not overlapped.
constexpr int kStreamedParts = 8;

/// p with its pending y (p.y_pending()) copied to the device on `stream` (from pageable memory,
/// returning once there; from page-locked memory, in stream order): for the paths other than the
/// tensor-core search, which take y whole.
SelectProblem with_y_copied(SelectProblem p, cudaStream_t stream);

/// run_bounded_search of a pending y (f.grid: chunks_outer, at least kStreamedParts chunks where
/// y has that many column tiles): part by part, y's rows copied from p.y_host (on a stream of
/// their own, returning once each is there), then rounded and searched on a stream of the part's
/// own, so that the parts' blocks run as soon as their rows are there and fill the SMs that
/// earlier parts' last blocks leave. `stream` waits for all of it.
void run_bounded_search_streamed(SelectProblem const& p, BoundedForm const& form, FusedLaunch const& f,
                                 SelectArgs const& a, cudaStream_t stream);

}  // namespace cudist::neighbors::detail::cuda
