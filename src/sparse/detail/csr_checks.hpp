// Argument checks shared by the sparse entry points. Each message starts with the public
// function's name (`who`) and names the argument: "spmv: A has ...".
#pragma once

#include <cstdint>

#include "cudist/core/dtype.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/sparse/csr.hpp"

namespace cudist::sparse::detail {

/// Non-negative sizes, supported dtypes, sizes that fit the index dtype.
void check_csr_dims(char const* who, std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                    DType value_dtype, DType index_dtype);

/// check_csr_dims, then non-null and aligned arrays; returns where the arrays live
/// (kHost or kDevice), having checked that all three agree.
Memory check_csr_shape(char const* who, CsrView const& a);

/// check_csr_shape, then (kFull) the structure, on the CPU or the GPU where `a` lives.
/// Returns where the arrays live.
Memory check_csr(char const* who, Resources const& res, CsrView const& a, CsrCheck check);

}  // namespace cudist::sparse::detail
