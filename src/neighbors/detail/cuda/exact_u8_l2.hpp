// The int8 tensor-core search of byte-row (uint8, int8) knn / match in squared L2, and the
// single-bit one of bit rows in Hamming distance (exact_u8_l2_kernel.cuh), as the orchestration
// (select_cuda.cu) sees it: whether a problem takes it, its block's shared memory, and the launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail::cuda {

/// The MMA a problem's rows take: uint8 or int8 bytes (squared L2), or bits (Hamming distance).
enum class RowProduct { kUnsignedBytes, kSignedBytes, kBits };

/// Whether knn (k nearest; k <= 2 also for match) of p runs on it. p is the fused kernel's form
/// (byte rows read as 32-bit words, packed_u8_l2.cuh; op.signed_bytes for int8) of squared L2,
/// or bit rows as words of hamming_bits, with uint32 keys; it takes rows of 16 to 256 bytes in
/// multiples of 16, 16-byte aligned, no mutual-check observer, a block that fits the device, sm_80 code for the device, and
/// CUDIST_SIMT_SELECTION unset (set, the fused kernel runs, with the same results: the tests
/// compare the two).
bool exact_u8_l2_applies(SelectProblem const& p, std::int64_t k, bool observer);

/// Shared memory of a block of p's search for k entries (the grid plan's occupancy guess).
std::size_t exact_u8_l2_smem(SelectProblem const& p, std::int64_t k);

/// The search's launch: each chunk's best a.k entries per row into a.partial, as the fused
/// kernel leaves them for the merge. f.problem's norms are the rows' sums of squares (bit counts
/// for Hamming: fused_form).
void run_exact_u8_l2(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);

}  // namespace cudist::neighbors::detail::cuda
