// API layer of match and match_batched: validate the criteria and inputs, plan, run.
#include <cmath>
#include <vector>

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
namespace {

neighbors::detail::MatchCriteria validated_criteria(char const* who, Metric metric,
                                                    MatchOptions const& o) {
  CUDIST_EXPECTS(o.ratio > 0 && o.ratio <= 1,
                 who << ": ratio = " << o.ratio << "; Lowe's ratio must be in (0, 1]");
  CUDIST_EXPECTS(o.max_distance >= 0, who << ": max_distance = " << o.max_distance
                                          << "; it must be >= 0 (infinity: no limit)");
  CUDIST_EXPECTS(metric != Metric::kInnerProduct,
                 who << ": metric inner_product is a similarity; the ratio test needs a distance");
  return {o.ratio, o.mutual, o.max_distance};
}

MatchResult run_match(char const* who, Resources const& res, ConstMatrixView x, ConstMatrixView y,
                      Batch const& batch, Metric metric, MatchOptions const& options) {
  cudist::TimelineSpan const span(who);
  neighbors::detail::MatchCriteria const criteria = validated_criteria(who, metric, options);
  if (res.is_split()) {
    cudist::detail::expect_split_params(who, metric, options.params);
    std::vector<Resources> const shards = cudist::detail::split_resources(res, who);
    if (batch.x_offsets.size() == 2) {
      return neighbors::detail::split_match(who, shards, x, y, metric, options);
    }
    return neighbors::detail::split_match_batched(who, shards, x, y, batch, metric, options);
  }
  require_device(res.device, who);
  cudist::detail::ScopedDevice const device_scope(res.device);
  std::uint64_t const requests = cudist::detail::interrupt_requests();
  neighbors::detail::PlannedSelect const planned = neighbors::detail::plan_select(
      who, res, x, y, batch, metric, options.params, false, false);
  MatchResult matches = res.device.is_cuda()
                            ? neighbors::detail::cuda::match(planned.problem, criteria, res.stream)
                            : neighbors::detail::cpu::match(planned.problem, criteria);
  // The GPU path has waited for its kernels (it reads the number of matches back); one that an
  // interrupt stopped left the matches unfinished.
  cudist::detail::throw_if_interrupted(who, requests);
  return matches;
}

}  // namespace

MatchResult match(Resources const& res, ConstMatrixView x, ConstMatrixView y, Metric metric,
                  MatchOptions const& options) {
  char const* who = "match";
  neighbors::detail::validate_inputs(who, x, y, res.device);
  return run_match(who, res, x, y, neighbors::detail::whole(x, y), metric, options);
}

MatchResult match_batched(Resources const& res, ConstMatrixView x, ConstMatrixView y,
                          Batch const& batch, Metric metric, MatchOptions const& options) {
  char const* who = "match_batched";
  neighbors::detail::validate_inputs(who, x, y, res.device);
  neighbors::detail::validate_batch(who, batch, x.rows, y.rows);
  return run_match(who, res, x, y, batch, metric, options);
}

}  // namespace cudist
