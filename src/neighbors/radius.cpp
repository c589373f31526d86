// API layer of radius: validate the radius and inputs, plan, run.
#include <cmath>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"
#include "core/detail/interrupt_check.hpp"
#include "core/detail/split.hpp"
#include "cudist/core/timeline.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/detail/backend.hpp"
#include "neighbors/detail/plan.hpp"
#include "neighbors/detail/split_select.hpp"

namespace cudist {

RadiusResult radius(Resources const& res, ConstMatrixView x, ConstMatrixView y, double r,
                    Metric metric, MetricParams const& params) {
  char const* who = "radius";
  cudist::TimelineSpan const span(who);
  neighbors::detail::validate_inputs(who, x, y, res.device);
  if (metric == Metric::kInnerProduct) {
    CUDIST_EXPECTS(!std::isnan(r), who << ": r is NaN; for inner_product r is the smallest similarity kept");
  } else {
    CUDIST_EXPECTS(r >= 0, who << ": r = " << r << "; the radius must be >= 0");
  }
  if (res.is_split()) {
    cudist::detail::expect_split_params(who, metric, params);
    return neighbors::detail::split_radius(who, cudist::detail::split_resources(res, who), x, y, r,
                                           metric, params);
  }
  require_device(res.device, who);
  cudist::detail::ScopedDevice const device_scope(res.device);
  std::uint64_t const requests = cudist::detail::interrupt_requests();
  neighbors::detail::PlannedSelect const planned = neighbors::detail::plan_select(
      who, res, x, y, neighbors::detail::whole(x, y), metric, params, false, false);
  RadiusResult found = res.device.is_cuda()
                           ? neighbors::detail::cuda::radius(planned.problem, r, res.stream)
                           : neighbors::detail::cpu::radius(planned.problem, r);
  // The GPU path has waited for its counting pass; a kernel an interrupt stopped (either pass)
  // left the neighbourhoods unfinished.
  if (res.device.is_cuda()) cudist::detail::cuda_stream_synchronize(res.stream);
  cudist::detail::throw_if_interrupted(who, requests);
  return found;
}

}  // namespace cudist
