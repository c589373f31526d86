// A's CSR arrays as the SpMV kernels read them (row_split_kernel.cuh, thread_per_row_kernel.cuh,
// merge_path_kernel.cuh): typed pointers and the sizes.
#pragma once

#include <cstdint>

#include "sparse/detail/problem.hpp"

namespace cudist::sparse::detail::cuda {

template <class T, class I>
struct CsrArrays {
  I const* row_offsets;  // (rows + 1)
  I const* col_indices;  // (nnz)
  T const* values;       // (nnz)
  std::int64_t rows;
  std::int64_t nnz;
};

/// p's matrix with T values and I indices.
template <class T, class I>
CsrArrays<T, I> csr_arrays(SpmvProblem const& p) {
  return {static_cast<I const*>(p.a.row_offsets), static_cast<I const*>(p.a.col_indices),
          static_cast<T const*>(p.a.values), p.a.rows, p.a.nnz};
}

}  // namespace cudist::sparse::detail::cuda
