// API layer of the pairwise family: validate every argument, bring the data to the device that
// computes, plan, run, and hand the result back where the caller wants it. No math here.
#include "cudist/distance/pairwise.hpp"

#include <cstdint>
#include <optional>
#include <string>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"
#include "core/detail/interrupt_check.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/split.hpp"
#include "core/detail/validate_view.hpp"
#include "cudist/core/timeline.hpp"
#include "distance/detail/compute.hpp"
#include "distance/detail/plan.hpp"
#include "distance/detail/row_windows.hpp"
#include "distance/detail/split_pairwise.hpp"

namespace cudist {
namespace detail {

void validate_distance_inputs(char const* who, ConstMatrixView x, ConstMatrixView y, Device device) {
  expect_valid_input(who, "x", x, device);
  expect_valid_input(who, "y", y, device);
  CUDIST_EXPECTS(x.dtype == y.dtype, who << ": x is " << dtype_name(x.dtype) << " but y is "
                                         << dtype_name(y.dtype) << "; convert one of them");
  CUDIST_EXPECTS(x.dtype != DType::kInt16 && x.dtype != DType::kInt32 && x.dtype != DType::kInt64,
                 who << ": dtype " << dtype_name(x.dtype)
                     << " is not supported (use float16/bfloat16/float32/float64/uint8/int8)");
  CUDIST_EXPECTS(x.cols == y.cols, who << ": x has " << x.cols << " columns but y has " << y.cols);
}

void compute_pairwise(char const* who, Resources const& res, ConstMatrixView x, ConstMatrixView y,
                      bool same, MatrixView out, OutputLayout layout, Metric metric,
                      MetricParams const& params) {
  require_device(res.device, who);
  ScopedDevice const device_scope(res.device);
  std::uint64_t const requests = interrupt_requests();
  std::optional<Array> x_stage, y_stage, out_stage;
  ConstMatrixView const xs = staged(x, res.device, res.stream, x_stage);
  ConstMatrixView const ys = same ? xs : staged(y, res.device, res.stream, y_stage);
  MatrixView const resolved_out = resolved(out);
  double const es = static_cast<double>(size_of(out.dtype));
  std::int64_t const rows_per_window =
      window_rows(res, who, resolved_out.memory, x.rows, es * static_cast<double>(y.rows),
                  es * static_cast<double>(out.size()));
  if (rows_per_window > 0) {
    PlannedPairwise const planned =
        plan_pairwise(res, who, xs, ys, same, resolved_out, layout, metric, params);
    run_pairwise_in_windows(res, who, planned.problem, rows_per_window);
    return;
  }
  MatrixView const target = staged_output(out, res.device, res.stream, false, out_stage);
  PlannedPairwise const planned =
      plan_pairwise(res, who, xs, ys, same, target, layout, metric, params);
  run_pairwise(res, planned.problem);
  // A kernel an interrupt stopped left the result unfinished: nothing of it reaches out.
  if (out_stage && res.device.is_cuda()) cuda_stream_synchronize(res.stream);
  throw_if_interrupted(who, requests);
  if (out_stage) copy(out_stage->view(), out, res.stream);
  // Host staging buffers must outlive the work queued on the stream.
  if (res.device.is_cuda() && (x_stage || y_stage || !planned.temporaries.empty())) {
    cuda_stream_synchronize(res.stream);
  }
}

}  // namespace detail

namespace {

void validate_output(char const* who, MatrixView out, std::int64_t rows, std::int64_t cols,
                     DType dtype) {
  detail::expect_valid_view(who, "out", out);
  detail::expect_shape(who, "out", out, rows, cols);
  CUDIST_EXPECTS(out.dtype == dtype, who << ": out is " << dtype_name(out.dtype) << " but must be "
                                         << dtype_name(dtype) << " for these inputs");
}

}  // namespace

DType distance_output_dtype(DType input) {
  return input == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
}

void cdist(Resources const& res, ConstMatrixView x, ConstMatrixView y, MatrixView out,
           Metric metric, MetricParams const& params) {
  char const* who = "cdist";
  TimelineSpan const span(who);
  detail::validate_distance_inputs(who, x, y, res.device);
  validate_output(who, out, x.rows, y.rows, distance_output_dtype(x.dtype));
  if (x.rows == 0 || y.rows == 0) return;  // empty output: nothing to launch
  if (res.is_split()) {
    detail::expect_split_params(who, metric, params);
    return detail::split_cdist(who, detail::split_resources(res, who), x, y, out, metric, params);
  }
  detail::compute_pairwise(who, res, x, y, detail::same_view(x, y), out, detail::OutputLayout::kFull, metric, params);
}

Array cdist(Resources const& res, ConstMatrixView x, ConstMatrixView y, Metric metric,
            MetricParams const& params) {
  detail::validate_distance_inputs("cdist", x, y, res.device);
  Array out = Array::allocate(x.rows, y.rows, distance_output_dtype(x.dtype), res.device, res.stream);
  cdist(res, x, y, out.view(), metric, params);
  return out;
}

void pdist(Resources const& res, ConstMatrixView x, MatrixView out, Metric metric,
           MetricParams const& params) {
  char const* who = "pdist";
  TimelineSpan const span(who);
  detail::validate_distance_inputs(who, x, x, res.device);
  std::int64_t const pairs = x.rows * (x.rows - 1) / 2;
  validate_output(who, out, 1, pairs, distance_output_dtype(x.dtype));
  if (pairs == 0) return;
  if (res.is_split()) {
    detail::expect_split_params(who, metric, params);
    return detail::split_pdist(who, detail::split_resources(res, who), x, out, metric, params);
  }
  detail::compute_pairwise(who, res, x, x, true, out, detail::OutputLayout::kCondensed, metric, params);
}

Array pdist(Resources const& res, ConstMatrixView x, Metric metric, MetricParams const& params) {
  detail::validate_distance_inputs("pdist", x, x, res.device);
  std::int64_t const pairs = x.rows * (x.rows - 1) / 2;
  Array out = Array::allocate(1, pairs, distance_output_dtype(x.dtype), res.device, res.stream);
  pdist(res, x, out.view(), metric, params);
  return out;
}

}  // namespace cudist
