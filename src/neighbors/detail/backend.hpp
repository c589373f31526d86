// What each backend (cpu, cuda) implements for the neighbours family. The API layer has validated
// every argument and planned the problem; outputs are in the backend's memory.
#pragma once

#include <cstdint>

#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail {

namespace cpu {
/// (m, k) distances (p.distance_dtype) and int64 indices, nearest first, padded with (NaN, -1).
void knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices);
MatchResult match(SelectProblem const& p, MatchCriteria const& criteria);
RadiusResult radius(SelectProblem const& p, double r);
}  // namespace cpu

namespace cuda {
/// As cpu::knn, in stream order. A pending y (p.y_pending(): knn's streamed database) is copied
/// here, a part at a time while the search runs where the tensor-core search takes p, else whole
/// first; the copies from pageable memory return once done, so the call waits for them.
void knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
         void* stream);
/// Synchronizes once: the number of matches sizes the result.
MatchResult match(SelectProblem const& p, MatchCriteria const& criteria, void* stream);
/// Synchronizes once: the number of pairs sizes the result.
RadiusResult radius(SelectProblem const& p, double r, void* stream);
}  // namespace cuda

}  // namespace cudist::neighbors::detail
