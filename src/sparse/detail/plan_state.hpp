// What a SpmvPlan holds: op(A) in the plan's memory (borrowed from the caller or owned), and the
// backend's analysis of it.
#pragma once

#include "cudist/sparse/csr.hpp"
#include "cudist/sparse/spmv.hpp"
#include "sparse/detail/problem.hpp"

namespace cudist::sparse {

struct SpmvPlan::State {
  Device device = Device::cpu();
  Operation op = Operation::kNone;
  CsrView a;          // op(A), in the memory of `device`
  CsrMatrix storage;  // owns a's arrays when the plan had to copy or transpose A
  detail::SpmvAnalysis analysis;
};

}  // namespace cudist::sparse
