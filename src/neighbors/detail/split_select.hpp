// knn, match and radius split over several devices (docs/multi_gpu.md): the rows of y (the
// database) are cut into one contiguous part per shard, every shard selects among its part for
// all queries, and the per-shard answers are merged exactly on the host into the answer the
// unsplit call gives (same ranking, ties by the smaller index, NaN last). knn with many queries
// and a database every shard holds splits the queries instead, and needs no merge. The shards are any
// Resources, so the tests split CPU calls the same way the public API splits GPU calls.
#pragma once

#include <cstdint>
#include <vector>

#include "cudist/core/resources.hpp"
#include "cudist/neighbors/knn.hpp"

namespace cudist::neighbors::detail {

/// knn(x, y) with y split over the shards; the result is on shards[0]. Validated arguments.
/// @note Synchronizes every shard.
KnnResult split_knn(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                    ConstMatrixView y, std::int64_t k, Metric metric, KnnOptions const& options);

/// The same, merged straight into `distances` / `indices` in host memory (any row stride): no
/// trip of the answer through the first shard's device.
void split_knn(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
               ConstMatrixView y, std::int64_t k, Metric metric, KnnOptions const& options,
               MatrixView distances, MatrixView indices);

/// Whether knn(x, y) over the shards splits the queries (every shard searching all of y for its
/// rows of x) rather than y: when y is in host memory (each shard uploads what it reads anyway)
/// or the shards' GPUs are peer linked, each shard holds the whole of y, and the queries are many.
/// A split of y repeats on every shard the per-query work of the search (the candidates it sums
/// exactly before its k-th value settles), which measured 37 ms for each half of a 40000 x 400000
/// x 128 fp32 search whose whole took 57 ms on one H100.
bool splits_queries(std::vector<Resources> const& shards, ConstMatrixView x, ConstMatrixView y,
                    Metric metric);

/// knn(x, y) with x's rows split over the shards, each shard writing its rows of the answer into
/// `distances` / `indices` (host memory, or a GPU every shard can write: writable_by_all): the
/// single-device answer row for row, with no merge.
/// Validated arguments. @note Synchronizes every shard.
void split_knn_queries(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                       ConstMatrixView y, std::int64_t k, Metric metric, KnnOptions const& options,
                       MatrixView distances, MatrixView indices);

/// The k nearest rows of x to each row of x with the rows split over the shards: as knn(x, x)
/// (each point its own neighbour at the self-join's value, exact 0 for a distance) or, with
/// exclude_self, as self_knn(kExcludeSelf). Validated arguments.
KnnResult split_self_knn(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                         std::int64_t k, Metric metric, KnnOptions const& options,
                         bool exclude_self);

/// knn_batched and match_batched: whole problems per shard, in contiguous ranges of about equal
/// work; each shard's rows (matches) are copied into their places, no merge needed.
KnnResult split_knn_batched(char const* who, std::vector<Resources> const& shards,
                            ConstMatrixView x, ConstMatrixView y, Batch const& batch,
                            std::int64_t k, Metric metric, KnnOptions const& options);
MatchResult split_match_batched(char const* who, std::vector<Resources> const& shards,
                                ConstMatrixView x, ConstMatrixView y, Batch const& batch,
                                Metric metric, MatchOptions const& options);

/// match(x, y): each shard's best two per query and, for the mutual check, each of its train
/// rows' best query (that direction needs no merge: a train row's shard sees every query).
MatchResult split_match(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                        ConstMatrixView y, Metric metric, MatchOptions const& options);

/// radius(x, y): each row's pairs are its shards' pairs one after another (indices increase).
RadiusResult split_radius(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                          ConstMatrixView y, double r, Metric metric, MetricParams const& params);

}  // namespace cudist::neighbors::detail
