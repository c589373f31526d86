// SpMV / SpMM split over several devices (docs/multi_gpu.md): each shard takes a contiguous block
// of A's rows (its CSR slice, offsets rebased), the whole of x, and computes its rows of y. The
// shards are any Resources, so the tests split CPU calls the same way the API splits GPU calls.
#pragma once

#include <vector>

#include "cudist/core/resources.hpp"
#include "cudist/sparse/spmv.hpp"

namespace cudist::sparse::detail {

enum class SplitProduct { kSpmv, kSpmm, kSpmvMinPlus };

/// The one-shot product `what` of A with x into y (y = alpha A x + beta y; min-plus: y = min(y,
/// A (+) x)) with the rows of A split over the shards. op(A) = A and row-major X / Y only.
/// @note Synchronizes every shard.
void split_product(char const* who, std::vector<Resources> const& shards, SplitProduct what,
                   CsrView const& a, ConstMatrixView x, MatrixView y, double alpha, double beta);

}  // namespace cudist::sparse::detail
