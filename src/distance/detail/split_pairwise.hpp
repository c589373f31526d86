// cdist and pdist split over several devices (docs/multi_gpu.md): each shard computes a
// contiguous block of output rows, its rows of x against y, and writes them into the caller's
// output. The shards are any Resources, so the tests split CPU calls the same way the API splits GPU calls.
#pragma once

#include <vector>

#include "cudist/core/resources.hpp"
#include "cudist/distance/pairwise.hpp"

namespace cudist::detail {

/// cdist(x, y) into out with the rows of x split over the shards; for x is y, the self-join's
/// exact-0 diagonal as the unsplit call writes it. Validated arguments.
/// @note Synchronizes every shard.
void split_cdist(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                 ConstMatrixView y, MatrixView out, Metric metric, MetricParams const& params);

/// pdist(x) into the condensed out with x's rows split over the shards in ranges of about equal
/// numbers of pairs. Validated arguments, at least one pair.
/// @note Synchronizes every shard.
void split_pdist(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                 MatrixView out, Metric metric, MetricParams const& params);

}  // namespace cudist::detail
