// The operations each backend (cpu, cuda) implements for the sparse family. The API layer
// (csr.cpp, spmv.cpp) validates arguments and calls these; they trust their inputs.
#pragma once

#include "cudist/core/device.hpp"
#include "cudist/sparse/csr.hpp"
#include "cudist/sparse/spmv.hpp"
#include "sparse/detail/problem.hpp"

namespace cudist::sparse::detail {

namespace cpu {
CsrViolation find_csr_violation(CsrView const& a);
CsrMatrix transpose(CsrView const& a);
SpmvAnalysis analyse_spmv(CsrView const& a, SpmvAlgorithm requested);
void spmv(SpmvAnalysis const& analysis, SpmvProblem const& problem);
}  // namespace cpu

namespace cuda {
/// @note synchronizes `stream` (reads the result back).
CsrViolation find_csr_violation(CsrView const& a, void* stream);
CsrMatrix transpose(CsrView const& a, Device device, void* stream);
/// @note synchronizes `stream` (reads the row statistics back).
SpmvAnalysis analyse_spmv(CsrView const& a, SpmvAlgorithm requested, Device device, void* stream);
void spmv(SpmvAnalysis const& analysis, SpmvProblem const& problem, void* stream);
}  // namespace cuda

}  // namespace cudist::sparse::detail
