// Seeded sparse matrices for benchmarks and tests, in host memory. Values are small non-zero
// integers (in [-8, 8]) so that products with integer vectors are exact in float32 and two
// implementations can be compared with ==. Columns are sorted and unique within each row.
#pragma once

#include <cstdint>

#include "cudist/core/dtype.hpp"
#include "cudist/sparse/csr.hpp"

namespace cudist::sparse {

/// rows x cols with exactly `nnz_per_row` distinct, uniformly random columns in every row
/// (nnz_per_row <= cols).
CsrMatrix uniform_random_csr(std::int64_t rows, std::int64_t cols, std::int64_t nnz_per_row,
                             std::uint64_t seed, DType value_dtype = DType::kFloat32,
                             DType index_dtype = DType::kInt32);

/// Quadrant probabilities of the recursive R-MAT generator; d = 1 - a - b - c.
/// The defaults are Graph500's.
struct RmatParams {
  double a = 0.57;
  double b = 0.19;
  double c = 0.19;
};

/// The adjacency matrix of an R-MAT graph with 2^scale vertices and edge_factor * 2^scale edges
/// (Chakrabarti, Zhan, Faloutsos 2004), vertex labels randomly permuted as Graph500 does so that
/// the heavy rows are scattered. Repeated edges are merged (values summed), so nnz is a little
/// below edge_factor * 2^scale; the row lengths follow a power law and many rows are empty.
CsrMatrix rmat_csr(int scale, std::int64_t edge_factor, std::uint64_t seed,
                   RmatParams const& params = {}, DType value_dtype = DType::kFloat32,
                   DType index_dtype = DType::kInt32);

/// The 7-point finite-difference Laplacian on an n x n x n grid (Dirichlet boundary): n^3 rows,
/// 6 on the diagonal and -1 for each of the up to six neighbours, in lexicographic order.
CsrMatrix poisson3d_csr(std::int64_t n, DType value_dtype = DType::kFloat32,
                        DType index_dtype = DType::kInt32);

}  // namespace cudist::sparse
