// Planning a pairwise computation: from (metric, parameters, input dtype) to the preparation of
// the inputs and the OpSpec the backends run. See pairwise_plan.cpp.
#pragma once

#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/distance/pairwise.hpp"
#include "distance/detail/problem.hpp"

namespace cudist::detail {

/// The checks every distance entry point makes of its inputs (views as a call on `device` reads
/// them: expect_valid_input; equal dtypes and column counts, a dtype distances are defined for);
/// throws InvalidArgument naming `who`'s argument.
void validate_distance_inputs(char const* who, ConstMatrixView x, ConstMatrixView y, Device device);

/// A problem ready for a backend, and the temporaries it points into.
struct PlannedPairwise {
  PairwiseProblem problem;
  std::vector<Array> temporaries;
};

/// x and y must already be in res.device's memory (y may alias x: then `same` is true); out is
/// the backend-memory output view. Validates metric parameters (throws InvalidArgument).
/// keep_bfloat16: bfloat16 rows that need no preparation stay bfloat16 instead of being widened
/// to float32; the caller's backend widens them where its path needs it (CUDA knn).
PlannedPairwise plan_pairwise(Resources const& res, char const* who, ConstMatrixView x,
                              ConstMatrixView y, bool same, MatrixView out, OutputLayout layout,
                              Metric metric, MetricParams const& params, bool keep_bfloat16 = false);

/// `params` with the defaults plan_pairwise would estimate from all rows of x and y filled in
/// (seuclidean's V, mahalanobis's VI), for calls that plan pieces of y one at a time (knn over
/// database chunks): every piece then uses the estimate of the whole. x and y in any memory.
MetricParams with_estimates(Resources const& res, char const* who, Metric metric, MetricParams params,
                            ConstMatrixView x, ConstMatrixView y);

/// Whether the metric's distance is the square root of the sum its op accumulates (euclidean,
/// seuclidean, mahalanobis, minkowski with p = 2): the op then takes the root last, and neighbour
/// selection ranks on the sums (knn's rank_values).
bool takes_root(Metric metric, double p);

/// Runs a planned problem on res.device.
void run_pairwise(Resources const& res, PairwiseProblem const& problem);

}  // namespace cudist::detail
