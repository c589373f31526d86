// Sparse matrix times dense vector (SpMV) and times dense matrix (SpMM) for CSR matrices, in the
// ordinary arithmetic and in the min-plus semiring (one Bellman-Ford relaxation step).
//
//   spmv:           y = alpha * op(A) x + beta * y          op(A) = A or A^T
//   spmm:           Y = alpha * op(A) X + beta * Y          X, Y row-major or column-major
//   spmv_min_plus:  y_i = min(y_i, min_j op(A)_ij + x_j)
//
// A plan holds everything that depends only on the matrix: the choice of kernel from the row
// lengths, the nonzero-balanced partition, scratch space and, for A^T, the explicit transpose.
// Iterative solvers build one plan and call spmv many times; the overloads that take a CsrView
// build a plan for a single call.
//
// @code
//   auto plan = cudist::sparse::make_spmv_plan(res, A);       // validates A, analyses it
//   for (int it = 0; it < iterations; ++it) {
//     cudist::sparse::spmv(res, plan, x.view(), y.view());    // y = A x, asynchronous
//   }
// @endcode
#pragma once

#include <cstdint>
#include <memory>

#include "cudist/core/device.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/sparse/csr.hpp"

namespace cudist::sparse {

/// op(A): the matrix itself or its transpose.
enum class Operation : std::uint8_t { kNone, kTranspose };

/// How spmm reads X and writes Y. Views are always row-major descriptions of memory as stored:
/// for kRowMajor, X is a (op(A).cols, n) view and Y a (op(A).rows, n) view; for kColMajor the
/// columns of X are contiguous, so X is passed as the (n, op(A).cols) view of that memory (the
/// row-major view of X^T), and likewise Y as (n, op(A).rows).
enum class Layout : std::uint8_t { kRowMajor, kColMajor };

/// The kernel family a plan runs (docs/sparse.md explains each and how kAuto decides).
enum class SpmvAlgorithm : std::uint8_t {
  kAuto,          ///< choose from the row-length statistics
  kRowSplit,      ///< a group of lanes per row; for rows of similar, not tiny, length
  kMergePath,     ///< equal shares of rows + nonzeros per thread; any row-length distribution
  kThreadPerRow,  ///< a thread per row over staged nonzeros; for short rows of similar length
};

struct SpmvPlanOptions {
  Operation op = Operation::kNone;
  SpmvAlgorithm algorithm = SpmvAlgorithm::kAuto;
  CsrCheck check = CsrCheck::kFull;  ///< kShapeOnly skips the O(nnz) structure check
};

/// The analysis of one matrix for one device. Cheap to copy (shared state).
/// Calls that use the same plan share its scratch space: order them on one stream (or
/// synchronise between them). A plan borrows A's arrays when A already lives in the plan's
/// memory (A must then outlive the plan) and owns a copy otherwise.
class SpmvPlan {
 public:
  struct State;
  SpmvPlan() = default;
  explicit SpmvPlan(std::shared_ptr<State> state) : state_(std::move(state)) {}

  std::int64_t rows() const;  ///< rows of op(A): the length of y
  std::int64_t cols() const;  ///< columns of op(A): the length of x
  std::int64_t nnz() const;
  DType value_dtype() const;
  Device device() const;
  Operation op() const;
  SpmvAlgorithm algorithm() const;  ///< the kernel family chosen (never kAuto)
  State const& state() const;

 private:
  std::shared_ptr<State> state_;
};

/// Validates (unless options.check says not to) and analyses A for products on res.device.
/// @throw InvalidArgument on a malformed A; DeviceUnavailable when res.device cannot run.
/// @note synchronizes res.stream (the analysis reads row statistics back to the host).
SpmvPlan make_spmv_plan(Resources const& res, CsrView const& a,
                        SpmvPlanOptions const& options = {});

/// y = alpha * op(A) x + beta * y. x and y are vectors: views with one row or one column (a
/// column may have any stride), of A's value dtype, in the memory of the plan's device. When
/// beta == 0, y is not read (NaN in y does not propagate); when alpha == 0, A and x are not used.
/// @note asynchronous on res.stream.
/// @throw InvalidArgument naming the argument on a wrong length, dtype or memory space.
void spmv(Resources const& res, SpmvPlan const& plan, ConstMatrixView x, MatrixView y,
          double alpha = 1.0, double beta = 0.0);

/// One-shot form: builds a plan (validating A) for this call. @note synchronizes res.stream.
void spmv(Resources const& res, CsrView const& a, ConstMatrixView x, MatrixView y,
          double alpha = 1.0, double beta = 0.0, Operation op = Operation::kNone);

/// Y = alpha * op(A) X + beta * Y for X with n columns; same rules as spmv. A is read once for
/// every group of up to four columns. @note asynchronous on res.stream.
void spmm(Resources const& res, SpmvPlan const& plan, ConstMatrixView x, MatrixView y,
          double alpha = 1.0, double beta = 0.0, Layout layout = Layout::kRowMajor);

/// One-shot form. @note synchronizes res.stream.
void spmm(Resources const& res, CsrView const& a, ConstMatrixView x, MatrixView y,
          double alpha = 1.0, double beta = 0.0, Layout layout = Layout::kRowMajor,
          Operation op = Operation::kNone);

/// y_i = min(y_i, min over stored j of (op(A)_ij + x_j)): one Bellman-Ford relaxation of the
/// distances x along the edges of A (A_ij = weight of edge j -> i; use kTranspose for i -> j).
/// Infinities mean "unreached" and propagate as in IEEE arithmetic; NaN operands are ignored by
/// the minimum. @note asynchronous on res.stream.
void spmv_min_plus(Resources const& res, SpmvPlan const& plan, ConstMatrixView x, MatrixView y);

/// One-shot form. @note synchronizes res.stream.
void spmv_min_plus(Resources const& res, CsrView const& a, ConstMatrixView x, MatrixView y,
                   Operation op = Operation::kNone);

}  // namespace cudist::sparse
