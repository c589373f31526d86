// A neighbour selection as the backends receive it: a planned pairwise contraction (inputs in the
// backend's memory and compute dtype, op configured, euclidean's square root moved into the
// RankSpec), how its values rank, and the problems of a batch. The API layer builds these
// (plan.cpp); the backends only compute.
#pragma once

#include <cstdint>
#include <vector>

#include "core/detail/host_device.hpp"
#include "cudist/core/dtype.hpp"
#include "distance/detail/problem.hpp"
#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail {

struct SelectProblem {
  cudist::detail::PairwiseProblem pairwise;  // out is unused; zero_diagonal lives in rank
  RankSpec rank;
  DType distance_dtype = DType::kFloat32;    // what distances are reported in
  /// Problem b: x rows [x_offsets[b], x_offsets[b+1]) against y rows [y_offsets[b], y_offsets[b+1]);
  /// a single problem is {0, m} and {0, n}. Host vectors.
  std::vector<std::int64_t> x_offsets;
  std::vector<std::int64_t> y_offsets;
  /// knn's streamed database (plan_select's stream_y): y's rows still in host memory, to be
  /// copied into pairwise.y (allocated, not yet written) by the backend, a part at a time while it
  /// searches the parts before (cuda::knn). Null data: pairwise.y holds the rows.
  ConstMatrixView y_host{};

  bool y_pending() const { return y_host.data != nullptr; }
  std::int64_t problems() const { return static_cast<std::int64_t>(x_offsets.size()) - 1; }
  std::int64_t m() const { return pairwise.x.rows; }
  std::int64_t n() const { return pairwise.y.rows; }
};

/// The tests of match() after the 2-NN selection.
struct MatchCriteria {
  double ratio = 0.75;
  bool mutual = false;
  double max_distance = 0;
};

/// Lowe's ratio test and the distance limit on a query's best (d1) and second best (d2; j2 < 0
/// when there is none) distances, in double as OpenCV's Python samples compare them. A NaN d1 or
/// d2 fails: the test cannot be decided. (The mutual check is separate.)
template <class Out>
CUDIST_HD bool passes_ratio_test(Out d1, std::int64_t j2, Out d2, MatchCriteria const& c) {
  double const b1 = static_cast<double>(d1);
  if (b1 != b1) return false;
  if (j2 >= 0 && !(b1 < c.ratio * static_cast<double>(d2))) return false;
  return b1 <= c.max_distance;
}

}  // namespace cudist::neighbors::detail
