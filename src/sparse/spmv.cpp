// API layer of SpMV / SpMM: validate every argument, bring A to the plan's device (copying or
// transposing it when needed), hand a SpmvProblem to the backend. No math here.
#include "cudist/sparse/spmv.hpp"

#include <cstdint>
#include <memory>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/split.hpp"
#include "cudist/core/timeline.hpp"
#include "sparse/detail/backend.hpp"
#include "sparse/detail/csr_checks.hpp"
#include "sparse/detail/plan_state.hpp"
#include "sparse/detail/split_spmv.hpp"

namespace cudist::sparse {
namespace {

using detail::SemiringKind;
using detail::SpmvProblem;

SpmvPlan::State const& checked_state(char const* who, Resources const& res, SpmvPlan const& plan) {
  CUDIST_EXPECTS(plan.device() == res.device, who << ": the plan was made for "
                                                  << plan.device().str() << " but res.device is "
                                                  << res.device.str());
  return plan.state();
}

/// A dense operand as the backends address it (see detail::SpmvProblem).
struct Operand {
  void const* data = nullptr;
  std::int64_t row_stride = 1;
  std::int64_t col_stride = 0;
};

void check_dense(char const* who, char const* name, ConstMatrixView v, SpmvPlan const& plan) {
  CUDIST_EXPECTS(v.dtype == plan.value_dtype(), who << ": " << name << " is " << dtype_name(v.dtype)
                                                    << " but A is "
                                                    << dtype_name(plan.value_dtype()));
  CUDIST_EXPECTS(v.stride >= v.cols || v.rows <= 1, who << ": " << name << " has row stride "
                                                        << v.stride << " < its " << v.cols
                                                        << " columns");
  if (v.empty()) return;
  CUDIST_EXPECTS(v.data != nullptr, who << ": " << name << " is a null pointer");
  CUDIST_EXPECTS(
      reinterpret_cast<std::uintptr_t>(v.data) % size_of(v.dtype) == 0,
      who << ": " << name << " is not aligned to its " << size_of(v.dtype) << "-byte elements");
  Memory const wanted = cudist::detail::backend_memory(plan.device());
  CUDIST_EXPECTS(cudist::detail::resolve_memory(v.data, v.memory) == wanted,
                 who << ": " << name << " is in " << (wanted == Memory::kHost ? "device" : "host")
                     << " memory but the plan computes on " << plan.device().str()
                     << "; copy it there first (Array::copy_of)");
}

/// x or y of spmv: a view with one row or one column holding `length` elements.
Operand vector_operand(char const* who, char const* name, ConstMatrixView v, std::int64_t length,
                       SpmvPlan const& plan) {
  CUDIST_EXPECTS((v.rows == 1 || v.cols == 1) && v.rows * v.cols == length,
                 who << ": " << name << " must be a vector of " << length
                     << " elements (one row or one column) but is (" << v.rows << ", " << v.cols
                     << ")");
  check_dense(who, name, v, plan);
  return {v.data, v.rows == 1 ? 1 : v.stride, 0};
}

/// X or Y of spmm: `rows` x n in the given layout; returns the operand and sets n.
Operand matrix_operand(char const* who, char const* name, ConstMatrixView v, std::int64_t rows,
                       Layout layout, SpmvPlan const& plan, std::int64_t& n) {
  bool const row_major = layout == Layout::kRowMajor;
  std::int64_t const v_rows = row_major ? v.rows : v.cols;  // rows of the operand, not the view
  std::int64_t const v_cols = row_major ? v.cols : v.rows;
  CUDIST_EXPECTS(v_rows == rows, who << ": " << name << " has " << v_rows
                                     << " rows but op(A) needs " << rows
                                     << (row_major ? "" : " (column-major: view columns)"));
  CUDIST_EXPECTS(n < 0 || v_cols == n, who << ": X has " << n << " columns but Y has " << v_cols);
  n = v_cols;
  check_dense(who, name, v, plan);
  return row_major ? Operand{v.data, v.stride, 1} : Operand{v.data, 1, v.stride};
}

void run(Resources const& res, SpmvPlan::State const& state, SpmvProblem problem) {
  cudist::TimelineSpan const span("sparse product");
  problem.a = state.a;
  if (problem.a.rows == 0 || problem.ncols == 0) return;
  cudist::detail::ScopedDevice const device_scope(res.device);
  if (res.device.is_cuda()) {
    detail::cuda::spmv(state.analysis, problem, res.stream);
  } else {
    detail::cpu::spmv(state.analysis, problem);
  }
}

SpmvProblem vector_problem(char const* who, SpmvPlan const& plan, ConstMatrixView x, MatrixView y,
                           SemiringKind semiring) {
  Operand const xo = vector_operand(who, "x", x, plan.cols(), plan);
  Operand const yo = vector_operand(who, "y", y, plan.rows(), plan);
  SpmvProblem p;
  p.semiring = semiring;
  p.x = xo.data;
  p.x_row_stride = xo.row_stride;
  p.y = y.data;
  p.y_row_stride = yo.row_stride;
  return p;
}

/// A one-shot product over a device set: op(A) = A and row-major operands only.
void split_one_shot(char const* who, Resources const& res, detail::SplitProduct what,
                    CsrView const& a, ConstMatrixView x, MatrixView y, double alpha, double beta,
                    Operation op, Layout layout = Layout::kRowMajor) {
  CUDIST_EXPECTS(op == Operation::kNone,
                 who << ": A^T is not split over a device set; pass one device");
  CUDIST_EXPECTS(layout == Layout::kRowMajor,
                 who << ": column-major X / Y are not split over a device set; pass one device");
  detail::split_product(who, cudist::detail::split_resources(res, who), what, a, x, y, alpha, beta);
}

}  // namespace

std::int64_t SpmvPlan::rows() const { return state().a.rows; }
std::int64_t SpmvPlan::cols() const { return state().a.cols; }
std::int64_t SpmvPlan::nnz() const { return state().a.nnz; }
DType SpmvPlan::value_dtype() const { return state().a.value_dtype; }
Device SpmvPlan::device() const { return state().device; }
Operation SpmvPlan::op() const { return state().op; }
SpmvAlgorithm SpmvPlan::algorithm() const { return state().analysis.algorithm; }

SpmvPlan::State const& SpmvPlan::state() const {
  CUDIST_EXPECTS(state_ != nullptr, "SpmvPlan: this plan is empty; make one with make_spmv_plan");
  return *state_;
}

SpmvPlan make_spmv_plan(Resources const& res, CsrView const& a, SpmvPlanOptions const& options) {
  constexpr char const* who = "make_spmv_plan";
  cudist::detail::expect_one_device(who, res);
  require_device(res.device, who);
  cudist::detail::ScopedDevice const device_scope(res.device);  // for the whole plan's making
  Memory const memory = detail::check_csr(who, res, a, options.check);

  auto state = std::make_shared<SpmvPlan::State>();
  state->device = res.device;
  state->op = options.op;
  state->a = a;
  state->a.memory = memory;
  if (memory != cudist::detail::backend_memory(res.device)) {
    state->storage = CsrMatrix::copy_of(a, res.device, res.stream);
    state->a = state->storage.view();
  }
  if (options.op == Operation::kTranspose) {
    state->storage = res.device.is_cuda()
                         ? detail::cuda::transpose(state->a, res.device, res.stream)
                         : detail::cpu::transpose(state->a);
    state->a = state->storage.view();
  }
  state->analysis = res.device.is_cuda() ? detail::cuda::analyse_spmv(state->a, options.algorithm,
                                                                      res.device, res.stream)
                                         : detail::cpu::analyse_spmv(state->a, options.algorithm);
  return SpmvPlan(std::move(state));
}

void spmv(Resources const& res, SpmvPlan const& plan, ConstMatrixView x, MatrixView y, double alpha,
          double beta) {
  SpmvPlan::State const& state = checked_state("spmv", res, plan);
  SpmvProblem p = vector_problem("spmv", plan, x, y, SemiringKind::kPlusTimes);
  p.alpha = alpha;
  p.beta = beta;
  run(res, state, p);
}

void spmv(Resources const& res, CsrView const& a, ConstMatrixView x, MatrixView y, double alpha,
          double beta, Operation op) {
  if (res.is_split()) {
    return split_one_shot("spmv", res, detail::SplitProduct::kSpmv, a, x, y, alpha, beta, op);
  }
  spmv(res, make_spmv_plan(res, a, {op}), x, y, alpha, beta);
}

void spmm(Resources const& res, SpmvPlan const& plan, ConstMatrixView x, MatrixView y, double alpha,
          double beta, Layout layout) {
  SpmvPlan::State const& state = checked_state("spmm", res, plan);
  std::int64_t n = -1;
  Operand const xo = matrix_operand("spmm", "X", x, plan.cols(), layout, plan, n);
  Operand const yo = matrix_operand("spmm", "Y", y, plan.rows(), layout, plan, n);
  SpmvProblem p;
  p.alpha = alpha;
  p.beta = beta;
  p.ncols = n;
  p.x = xo.data;
  p.x_row_stride = xo.row_stride;
  p.x_col_stride = xo.col_stride;
  p.y = y.data;
  p.y_row_stride = yo.row_stride;
  p.y_col_stride = yo.col_stride;
  run(res, state, p);
}

void spmm(Resources const& res, CsrView const& a, ConstMatrixView x, MatrixView y, double alpha,
          double beta, Layout layout, Operation op) {
  if (res.is_split()) {
    return split_one_shot("spmm", res, detail::SplitProduct::kSpmm, a, x, y, alpha, beta, op,
                          layout);
  }
  spmm(res, make_spmv_plan(res, a, {op}), x, y, alpha, beta, layout);
}

void spmv_min_plus(Resources const& res, SpmvPlan const& plan, ConstMatrixView x, MatrixView y) {
  SpmvPlan::State const& state = checked_state("spmv_min_plus", res, plan);
  run(res, state, vector_problem("spmv_min_plus", plan, x, y, SemiringKind::kMinPlus));
}

void spmv_min_plus(Resources const& res, CsrView const& a, ConstMatrixView x, MatrixView y,
                   Operation op) {
  if (res.is_split()) {
    return split_one_shot("spmv_min_plus", res, detail::SplitProduct::kSpmvMinPlus, a, x, y, 1, 0,
                          op);
  }
  spmv_min_plus(res, make_spmv_plan(res, a, {op}), x, y);
}

}  // namespace cudist::sparse
