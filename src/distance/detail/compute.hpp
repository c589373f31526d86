// One pairwise call on one device, after validation: stage the inputs to the device, plan, run,
// and copy the result to `out` where it lives elsewhere. The API layer and each part of a call
// split over several devices (split_pairwise.hpp) run it.
#pragma once

#include "cudist/core/resources.hpp"
#include "cudist/distance/pairwise.hpp"
#include "distance/detail/plan.hpp"

namespace cudist::detail {

/// @note Synchronizes res.stream when host staging buffers or temporaries must outlive the work.
void compute_pairwise(char const* who, Resources const& res, ConstMatrixView x, ConstMatrixView y,
                      bool same, MatrixView out, OutputLayout layout, Metric metric,
                      MetricParams const& params);

}  // namespace cudist::detail
