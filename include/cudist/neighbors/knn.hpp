// Nearest neighbours without the distance matrix: per query row of x, the k nearest rows of y
// (knn), descriptor matching with Lowe's ratio test and an optional mutual check (match), and
// every pair within a radius (radius). The distances are those of cdist, for every metric and
// dtype; on a GPU the selection runs on chip inside the contraction, so the n x m matrix is
// never written.
//
// Ranking, the same on every backend:
//  - nearest first: smallest distance first; for inner_product, a similarity, largest first;
//  - ties (equal distances) keep the smaller index first, so results are reproducible;
//  - NaN distances rank after every other distance, +inf included (ties among them by index);
//  - euclidean ranks on the exact squared distance (the square root is taken of the answers only),
//    and exact integer paths (uint8, hamming_bits) on the exact integer distance.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/distance/pairwise.hpp"

namespace cudist {

/// Independent problems in one call: problem b pairs rows x_offsets[b] .. x_offsets[b+1] - 1 of x
/// with rows y_offsets[b] .. y_offsets[b+1] - 1 of y (many images' descriptor sets at once).
/// Both vectors are non-decreasing, start at 0, end at the row counts and have the same length.
struct Batch {
  std::vector<std::int64_t> x_offsets;
  std::vector<std::int64_t> y_offsets;
};

struct KnnOptions {
  MetricParams params;  ///< metric parameters, as for cdist
  /// Allow k larger than the number of candidates: the missing slots of a row get index -1 and a
  /// NaN distance (after every real answer). Without it, such a k is an error.
  bool pad = false;
  /// Report the values the ranking orders instead of distances: for the metrics whose distance is
  /// a square root (euclidean, seuclidean, mahalanobis, minkowski with p = 2) the squares, before
  /// the root; every other metric's distances as they are. The answers of several calls over
  /// parts of y merge on these exactly as one call ranks (two squares may round to one root, and
  /// then only their squares tell which comes first); the root of a merged value is the distance
  /// one call reports (ranks_on_squares says where). cudist.dask merges its blocks this way.
  bool rank_values = false;
};

/// Whether knn ranks `metric` on the squares of its distances, so that its rank_values are those
/// squares and a merge of them takes the root last: euclidean, seuclidean, mahalanobis, and
/// minkowski with params.p = 2.
bool ranks_on_squares(Metric metric, MetricParams const& params);

/// k nearest rows per query row: (m, k) distances (float32; float64 for float64 inputs) and
/// (m, k) int64 indices into y (into the problem's own rows of y for a batch), nearest first.
struct KnnResult {
  Array distances;
  Array indices;
};

/// Whether a self-join counts each point among its own neighbours.
enum class SelfJoin : std::uint8_t { kIncludeSelf, kExcludeSelf };

/// Per row of x (m, d), its k nearest rows of y (n, d). x and y may be host or device memory;
/// the result is on res.device.
/// @note Asynchronous on res.stream when the inputs are device memory; otherwise synchronizes.
/// @throw InvalidArgument naming the argument: k < 1, k > n without options.pad, mismatched
///        columns or dtypes, a bad view or metric parameter.
KnnResult knn(Resources const& res, ConstMatrixView x, ConstMatrixView y, std::int64_t k,
              Metric metric, KnnOptions const& options = {});

/// As above into caller-provided (m, k) views: distances of distance_output_dtype(x.dtype),
/// indices int64, in any memory and with any row stride.
void knn(Resources const& res, ConstMatrixView x, ConstMatrixView y, std::int64_t k, Metric metric,
         MatrixView distances, MatrixView indices, KnnOptions const& options = {});

/// How merge_knn reads its parts and reports the merge.
struct KnnMergeOptions {
  MetricParams params;  ///< the parts' metric parameters (p decides ranks_on_squares)
  /// The parts hold knn's rank values (KnnOptions::rank_values), not distances: the merge then
  /// ranks exactly as one call (two squares may round to one root).
  bool parts_rank_values = false;
  /// Report the merged rank values (a merge to be merged again); else distances: with
  /// parts_rank_values, the root of the squares where ranks_on_squares. Needs parts_rank_values.
  bool rank_values = false;
};

/// One knn's answer from the answers of several for the same queries against disjoint rows of
/// one database: part p is (m, c_p) distances and int64 indices already into the whole database
/// (its rows' places there; -1 past a row's candidates, as knn's pad leaves them). Each row's k
/// best over all parts go into `distances` / `indices`, (m, w) with w at least k or the parts'
/// columns together, whichever is fewer, ranked as knn ranks (nearest first, a similarity's
/// largest; ties by the smaller index; NaN after every number); slots past a row's candidates
/// get index -1 and NaN. Parts ranked as knn leaves them merge fastest (any order is merged). This is how a database sharded
/// by hand (over processes, machines, or calls) is searched: knn per shard with rank_values,
/// indices offset by the shard's first row, then one merge_knn; cudist.dask merges its blocks so.
/// Host memory only; distances float32 or float64, the same in every part and in the result.
/// @throw InvalidArgument naming the argument: no parts, a part in device memory, parts or
///        results of other row counts or dtypes, k < 1, a result narrower than k or sharing
///        memory with a part.
void merge_knn(std::vector<ConstMatrixView> const& part_distances,
               std::vector<ConstMatrixView> const& part_indices, std::int64_t k, Metric metric,
               MatrixView distances, MatrixView indices, KnnMergeOptions const& options = {});

/// The k nearest rows of x to each row of x. With kExcludeSelf, row i is never its own neighbour
/// (other rows at distance 0 still are); k is then at most n - 1 unless options.pad.
KnnResult self_knn(Resources const& res, ConstMatrixView x, std::int64_t k, Metric metric,
                   SelfJoin self = SelfJoin::kExcludeSelf, KnnOptions const& options = {});

/// knn for every problem of a batch at once (no launch per problem). Row r of the result belongs
/// to row r of x; its indices count from the start of the problem's rows of y. k must fit the
/// smallest problem unless options.pad.
KnnResult knn_batched(Resources const& res, ConstMatrixView x, ConstMatrixView y, Batch const& batch,
                      std::int64_t k, Metric metric, KnnOptions const& options = {});

struct MatchOptions {
  /// Lowe's ratio test: the best match is kept when d1 < ratio * d2 (d2: the second best). In
  /// (0, 1]; 1 keeps every best match that is strictly better than the second. A query with a
  /// single candidate has no second best and passes.
  double ratio = 0.75;
  /// Keep a match (i, j) only when i is also j's best query: OpenCV's cross-check.
  bool mutual = false;
  /// Keep only matches with d1 <= max_distance.
  double max_distance = std::numeric_limits<double>::infinity();
  MetricParams params;
};

/// Accepted matches ordered by query: pairs (count, 2) int64 (query, train), distances
/// (count, 1) (float32; float64 for float64 inputs), and offsets (1, problems + 1) int64: the
/// matches of problem b are rows offsets[b] .. offsets[b+1] - 1 (one problem without a batch).
/// Indices count from the start of their problem's rows.
struct MatchResult {
  Array pairs;
  Array distances;
  Array offsets;
};

/// Descriptor matching as OpenCV's BFMatcher knnMatch(k = 2) + ratio test (+ crossCheck): best
/// and second-best train row per query row, filtered, in one pass over the data. Distance
/// metrics only (not inner_product). A query whose best distance is NaN is never matched, nor one
/// whose second best is NaN (the test cannot be decided).
/// @note Synchronizes once: the number of matches sizes the result (filled in stream order).
/// @throw InvalidArgument naming the argument: ratio outside (0, 1], a NaN or negative
///        max_distance, mismatched columns or dtypes, inner_product.
MatchResult match(Resources const& res, ConstMatrixView x, ConstMatrixView y, Metric metric,
                  MatchOptions const& options = {});

/// match for every problem of a batch at once.
MatchResult match_batched(Resources const& res, ConstMatrixView x, ConstMatrixView y,
                          Batch const& batch, Metric metric, MatchOptions const& options = {});

/// Every pair within a radius, compressed by query row (CSR): the neighbours of row i are
/// entries offsets[i] .. offsets[i+1] - 1 of indices (int64, increasing) and distances.
/// offsets is (1, m + 1) int64; indices and distances are (1, count).
struct RadiusResult {
  Array offsets;
  Array indices;
  Array distances;
};

/// Pairs (i, j) with distance(x_i, y_j) <= r; for inner_product, a similarity, the pairs with
/// x_i . y_j >= r. No cap per query and no (m, n) intermediate: a counting pass sizes the result,
/// a second pass writes it.
/// @note Synchronizes once: the number of pairs sizes the result (filled in stream order).
/// @throw InvalidArgument: r negative or NaN (inner_product: NaN), mismatched columns or dtypes.
RadiusResult radius(Resources const& res, ConstMatrixView x, ConstMatrixView y, double r,
                    Metric metric, MetricParams const& params = {});

}  // namespace cudist
