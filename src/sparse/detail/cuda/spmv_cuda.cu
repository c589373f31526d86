// CUDA backend entry point of SpMV/SpMM: turns the matrix dtypes into template arguments and
// calls the instantiation for them (spmv_dispatch.cuh, inst/*.cu).
#include <cuda_runtime.h>

#include "sparse/detail/backend.hpp"
#include "sparse/detail/cuda/spmv_dispatch.cuh"
#include "sparse/detail/dispatch.hpp"

namespace cudist::sparse::detail::cuda {

void spmv(SpmvAnalysis const& analysis, SpmvProblem const& problem, void* stream) {
  with_csr_types(problem.a.value_dtype, problem.a.index_dtype, [&](auto value_tag, auto index_tag) {
    spmv_typed<typename decltype(value_tag)::type, typename decltype(index_tag)::type>(
        analysis, problem, static_cast<cudaStream_t>(stream));
  });
}

}  // namespace cudist::sparse::detail::cuda
