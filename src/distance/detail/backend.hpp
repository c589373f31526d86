// The operations each backend (cpu, cuda) implements for the pairwise family. Planning in
// pairwise_plan.cpp calls these; nothing here validates user input (the API layer did).
#pragma once

#include "cudist/core/matrix_view.hpp"
#include "distance/detail/problem.hpp"

namespace cudist::detail {

/// Row-wise preparation of an input before the contraction, in this order, in double:
/// subtract the row mean (weighted by mean_weights when given); divide by the row sum; multiply
/// column k by col_scale[k]; when norms are wanted, multiply the row by the power of two that
/// brings its norm sqrt(sum v^2) into [0.5, 1) (norm_scale.hpp) and write that norm; round to
/// out's dtype. Vectors are in out's dtype and in the backend's memory.
struct RowPrep {
  ConstMatrixView in;                  // (r, d) any supported dtype
  MatrixView out;                      // (r, d) float32 / float64, dense
  void const* mean_weights = nullptr;  // (d) or null for a plain mean
  bool center = false;
  bool normalize_sum = false;
  void const* col_scale = nullptr;     // (d) or null
  void* norms = nullptr;               // (r) or null
};

namespace cpu {
void pairwise(PairwiseProblem const& p);
void prepare_rows(RowPrep const& prep);
}  // namespace cpu

namespace cuda {
void pairwise(PairwiseProblem const& p, void* stream);
void prepare_rows(RowPrep const& prep, void* stream);
}  // namespace cuda

}  // namespace cudist::detail
