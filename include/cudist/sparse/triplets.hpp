// A sparse matrix as a list of (row, column, value) triplets in host memory (coordinate format),
// and its conversions to CSR and to a dense array. The Matrix Market reader returns these, with
// symmetry already expanded, so any consumer (SpMV, graph algorithms) starts from one form.
#pragma once

#include <cstdint>
#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/core/dtype.hpp"
#include "cudist/sparse/csr.hpp"

namespace cudist::sparse {

/// Entry t is (row[t], col[t], value[t]), 0-based. Order is arbitrary; (row, col) may repeat.
struct Triplets {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> row;
  std::vector<std::int64_t> col;
  std::vector<double> value;

  std::int64_t size() const { return static_cast<std::int64_t>(value.size()); }
};

/// How repeated (row, col) entries combine: summed (Matrix Market and scipy convention) or the
/// smallest kept (parallel edges of a weighted graph, for shortest paths).
enum class Duplicates : std::uint8_t { kSum, kMin };

/// A host CSR matrix with columns sorted within each row and every (row, col) stored once.
/// @throw InvalidArgument on an entry outside rows x cols, unsupported dtypes, or sizes that do
///        not fit index_dtype.
CsrMatrix to_csr(Triplets const& t, DType value_dtype = DType::kFloat64,
                 DType index_dtype = DType::kInt32, Duplicates duplicates = Duplicates::kSum);

/// A dense rows x cols host array; positions without an entry hold `missing` (0 for a matrix,
/// +infinity for the edge weights of a graph). dtype: float32 or float64.
Array to_dense(Triplets const& t, DType dtype = DType::kFloat64, double missing = 0.0,
               Duplicates duplicates = Duplicates::kSum);

}  // namespace cudist::sparse
