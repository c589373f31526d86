// API layer of the semiring products: validate every argument, bring the data to the device that
// computes, run the backend, and hand the result back where the caller wants it. No math here.
#include <cstdint>
#include <optional>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"
#include "core/detail/interrupt_check.hpp"
#include "core/detail/split.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/validate_view.hpp"
#include "cudist/core/timeline.hpp"
#include "cudist/semiring/semiring.hpp"
#include "semiring/detail/backend.hpp"

namespace cudist {
namespace {

constexpr char const* kWho = "semiring_product";

void validate(ConstMatrixView a, ConstMatrixView b, MatrixView c, Semiring semiring,
              SemiringOptions const& options) {
  detail::expect_valid_view(kWho, "a", a);
  detail::expect_valid_view(kWho, "b", b);
  detail::expect_valid_view(kWho, "c", c);
  CUDIST_EXPECTS(static_cast<int>(semiring) <= static_cast<int>(Semiring::kPlusTimes),
                 kWho << ": semiring " << static_cast<int>(semiring) << " is not a Semiring");
  CUDIST_EXPECTS(a.dtype == DType::kFloat32 || a.dtype == DType::kFloat64 ||
                     a.dtype == DType::kInt32 || a.dtype == DType::kInt16,
                 kWho << ": a is " << dtype_name(a.dtype)
                      << ", which is not supported (use float32, float64, int32 or int16)");
  detail::expect_dtype(kWho, "b", b, a.dtype);
  detail::expect_dtype(kWho, "c", c, a.dtype);
  CUDIST_EXPECTS(a.cols == b.rows,
                 kWho << ": a has " << a.cols << " columns but b has " << b.rows << " rows");
  detail::expect_shape(kWho, "c", c, a.rows, b.cols);
  CUDIST_EXPECTS(!detail::views_overlap(c, a) && !detail::views_overlap(c, b),
                 kWho << ": c overlaps an input (a or b); write the product elsewhere");
  if (!options.witness) return;
  MatrixView const w = *options.witness;
  CUDIST_EXPECTS(semiring != Semiring::kPlusTimes,
                 kWho << ": a witness is not defined for plus-times (its add selects no term)");
  detail::expect_valid_view(kWho, "witness", w);
  detail::expect_dtype(kWho, "witness", w, DType::kInt32);
  detail::expect_shape(kWho, "witness", w, a.rows, b.cols);
  CUDIST_EXPECTS(!detail::views_overlap(w, a) && !detail::views_overlap(w, b) &&
                     !detail::views_overlap(w, c),
                 kWho << ": witness overlaps a, b or c");
}

}  // namespace

void semiring_product(Resources const& res, ConstMatrixView a, ConstMatrixView b, MatrixView c,
                      Semiring semiring, SemiringOptions const& options) {
  cudist::TimelineSpan const span(kWho);
  validate(a, b, c, semiring, options);
  if (c.empty()) return;
  cudist::detail::expect_one_device(kWho, res);
  require_device(res.device, kWho);
  detail::ScopedDevice const device_scope(res.device);
  std::uint64_t const requests = detail::interrupt_requests();

  std::optional<Array> a_stage, b_stage, c_stage, w_stage;
  detail::SemiringProblem p;
  p.a = detail::staged(a, res.device, res.stream, a_stage);
  p.b = detail::staged(b, res.device, res.stream, b_stage);
  p.c = detail::staged_output(c, res.device, res.stream, options.accumulate, c_stage);
  if (options.witness) {
    p.witness = detail::staged_output(*options.witness, res.device, res.stream, options.accumulate, w_stage);
  }
  p.semiring = semiring;
  p.accumulate = options.accumulate;

  if (res.device.is_cuda()) {
    detail::cuda::semiring_product(p, res.stream);
  } else {
    detail::cpu::semiring_product(p);
  }
  // A kernel an interrupt stopped left the product unfinished: nothing of it reaches c.
  if (c_stage && res.device.is_cuda()) detail::cuda_stream_synchronize(res.stream);
  detail::throw_if_interrupted(kWho, requests);
  if (c_stage) copy(c_stage->view(), detail::resolved(c), res.stream);
  if (w_stage) copy(w_stage->view(), detail::resolved(*options.witness), res.stream);
  // Host staging buffers must outlive the work queued on the stream.
  if (res.device.is_cuda() && (a_stage || b_stage)) detail::cuda_stream_synchronize(res.stream);
}

Array semiring_product(Resources const& res, ConstMatrixView a, ConstMatrixView b,
                       Semiring semiring) {
  detail::expect_valid_view(kWho, "a", a);
  detail::expect_valid_view(kWho, "b", b);
  Array c = Array::allocate(a.rows, b.cols, a.dtype, res.device, res.stream);
  semiring_product(res, a, b, c.view(), semiring);
  return c;
}

}  // namespace cudist
