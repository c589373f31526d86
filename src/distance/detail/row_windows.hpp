// Out-of-core pairwise outputs: a cdist / pdist result in host memory that does not fit the
// device's memory budget is computed one window of rows at a time, each window's device-to-host
// copy overlapping the next window's kernel (row_windows.cpp).
#pragma once

#include <cstdint>

#include "cudist/core/resources.hpp"
#include "distance/detail/problem.hpp"

namespace cudist::detail {

/// Rows per window for a result of `rows` rows, `total_bytes` in all, whose longest row takes
/// `row_bytes` bytes, going to memory `out_memory`; 0 when the result is computed whole (it fits, or it is already in the
/// backend's memory). On a GPU with the output in host memory: windows when the output exceeds
/// res.memory_budget (or, without one, the GPU's free memory), sized so that the two windows in
/// flight fit that. On the CPU: windows only under an explicit budget smaller than the output
/// (written straight into it; what the CPU tests exercise). Throws OutOfMemory naming `who` when
/// even two one-row windows do not fit.
std::int64_t window_rows(Resources const& res, char const* who, Memory out_memory, std::int64_t rows,
                         double row_bytes, double total_bytes);

/// Runs rows first .. last - 1 of `problem` (inputs in res.device's memory, problem.out the
/// whole result in host memory; last < 0: to the end) in windows of `rows_per_window` rows,
/// reporting progress (report_progress: rows of the range done) after each window and stopping
/// with Interrupted between windows. On a GPU: two windows in flight on two streams of their own,
/// each kernel's output copied to the host while the next kernel runs, directly into out when it
/// is page-locked, else through page-locked staging buffers.
/// @note Synchronizes res.stream (the work queued on it comes first).
void run_pairwise_in_windows(Resources const& res, char const* who, PairwiseProblem const& problem,
                             std::int64_t rows_per_window, std::int64_t first = 0, std::int64_t last = -1);

}  // namespace cudist::detail
