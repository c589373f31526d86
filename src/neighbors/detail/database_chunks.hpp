// knn over a database in host memory larger than the device's memory budget: the database is
// streamed to the device in chunks of rows, each chunk's top-k is found there, and the per-chunk
// answers are merged on the host into exactly the in-memory call's answer (database_chunks.cpp).
#pragma once

#include <cstdint>

#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail {

/// How many rows of y a search on `res` holds at once, y.rows when all of them: on a GPU, as many
/// as fit res.memory_budget (without one: the GPU's free memory), counting the copies the search
/// makes of them (staged and prepared for `metric`); on the CPU, only an explicit budget limits.
std::int64_t database_rows_held(Resources const& res, ConstMatrixView y, Metric metric);

/// Rows of y per chunk, or 0 when y is used whole: y in host memory beyond database_rows_held.
std::int64_t database_chunk_rows(Resources const& res, ConstMatrixView y, Metric metric);

/// knn(x, y) (one problem, not a self-join) chunk by chunk of `chunk_rows` rows of y, into the
/// caller's (m, k) views. Ranks on the same keys as the in-memory call (euclidean on the squares,
/// similarities negated; ties by the smaller index; NaN after +inf), so the answer is the same
/// entry for entry; slots no row of y fills (k > n) are (NaN, -1). Exact integer distances
/// (uint8, hamming_bits) merge on their float32 value, which is exact below 2^24. Reports
/// progress (rows of y done) and stops on an interrupt between chunks. With options.rank_values,
/// reports the values ranked (euclidean not yet rooted), as the in-memory call does. Returns the
/// ranking used.
/// @note Synchronizes: each chunk's answer comes to the host to be merged.
RankSpec knn_in_database_chunks(char const* who, Resources const& res, ConstMatrixView x, ConstMatrixView y,
                                std::int64_t k, Metric metric, KnnOptions const& options, MatrixView distances,
                                MatrixView indices, std::int64_t chunk_rows);

}  // namespace cudist::neighbors::detail
