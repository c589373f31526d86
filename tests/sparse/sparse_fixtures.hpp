// Test matrices for the sparse tests, and the conversions between the reference's plain vectors
// and the library's CSR matrices and dense arrays. The conversions fill arrays element by
// element, so the tests do not rely on the library's own converters.
#pragma once

#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "cudist/core/array.hpp"
#include "cudist/sparse/csr.hpp"
#include "cudist/sparse/spmv.hpp"
#include "reference/spmv_ref.hpp"

namespace cudist::test {

struct SparseTypes {
  DType value;
  DType index;
};

inline std::string types_name(SparseTypes t) {
  return std::string(dtype_name(t.value)) + "_" + std::string(dtype_name(t.index));
}

/// How gtest prints a parameter.
inline void PrintTo(SparseTypes t, std::ostream* os) { *os << types_name(t); }

inline std::vector<SparseTypes> all_sparse_types() {
  return {{DType::kFloat32, DType::kInt32},
          {DType::kFloat32, DType::kInt64},
          {DType::kFloat64, DType::kInt32},
          {DType::kFloat64, DType::kInt64}};
}

/// Writes doubles into an array of dtype float32/float64/int32/int64, element by element.
inline void fill(Array& a, std::vector<double> const& v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (a.dtype()) {
      case DType::kFloat32:
        a.data_as<float>()[i] = static_cast<float>(v[i]);
        break;
      case DType::kFloat64:
        a.data_as<double>()[i] = v[i];
        break;
      case DType::kInt32:
        a.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(v[i]);
        break;
      default:
        a.data_as<std::int64_t>()[i] = static_cast<std::int64_t>(v[i]);
        break;
    }
  }
}

/// The elements of a host or device view, row by row, as doubles.
inline std::vector<double> to_doubles(ConstMatrixView v) {
  Array const host = to_host(v);
  std::vector<double> out(static_cast<std::size_t>(host.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = host.dtype() == DType::kFloat32 ? host.data_as<float>()[i] : host.data_as<double>()[i];
  }
  return out;
}

/// A rows x cols host array of `dtype` holding v row-major.
inline Array host_array(std::vector<double> const& v, std::int64_t rows, std::int64_t cols,
                        DType dtype) {
  Array a = Array::allocate(rows, cols, dtype, Device::cpu());
  fill(a, v);
  return a;
}

/// The same, on the backend under test.
inline Array backend_array(std::vector<double> const& v, std::int64_t rows, std::int64_t cols,
                           DType dtype) {
  return to_backend(host_array(v, rows, cols, dtype));
}

/// A host CSR matrix with the reference's entries.
inline sparse::CsrMatrix to_library(reference::Csr const& a, SparseTypes t) {
  auto const nnz = static_cast<std::int64_t>(a.values.size());
  sparse::CsrMatrix m =
      sparse::CsrMatrix::allocate(a.rows, a.cols, nnz, t.value, t.index, Device::cpu());
  fill(m.row_offsets(), std::vector<double>(a.offsets.begin(), a.offsets.end()));
  fill(m.col_indices(), std::vector<double>(a.col_indices.begin(), a.col_indices.end()));
  fill(m.values(), a.values);
  return m;
}

/// The same, on the backend under test.
inline sparse::CsrMatrix to_backend(reference::Csr const& a, SparseTypes t) {
  return sparse::CsrMatrix::copy_of(to_library(a, t).view(), backend_device());
}

/// The entries of a host CSR matrix (e.g. from a generator) as a reference matrix.
inline reference::Csr from_library(sparse::CsrMatrix const& m) {
  reference::Csr a;
  a.rows = m.rows();
  a.cols = m.cols();
  auto read = [](Array const& arr, std::int64_t i) -> double {
    switch (arr.dtype()) {
      case DType::kFloat32:
        return arr.data_as<float>()[i];
      case DType::kFloat64:
        return arr.data_as<double>()[i];
      case DType::kInt32:
        return arr.data_as<std::int32_t>()[i];
      default:
        return static_cast<double>(arr.data_as<std::int64_t>()[i]);
    }
  };
  a.offsets.assign(m.rows() + 1, 0);
  for (std::int64_t i = 0; i <= m.rows(); ++i)
    a.offsets[i] = static_cast<std::int64_t>(read(m.row_offsets(), i));
  for (std::int64_t k = 0; k < m.nnz(); ++k) {
    a.col_indices.push_back(static_cast<std::int64_t>(read(m.col_indices(), k)));
    a.values.push_back(read(m.values(), k));
  }
  return a;
}

/// n integers in [lo, hi] (exact in float32 sums of modest length).
inline std::vector<double> random_integers(std::size_t n, int lo, int hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<double> v(n);
  for (double& e : v) e = dist(rng);
  return v;
}

/// Rows of random length in [0, max_row_nnz] (so some are empty), random columns in any order
/// and with repeats, non-zero integer values in [-8, 8].
inline reference::Csr random_ragged(std::int64_t rows, std::int64_t cols, int max_row_nnz,
                                    std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> length(0, max_row_nnz);
  std::uniform_int_distribution<std::int64_t> column(0, cols > 0 ? cols - 1 : 0);
  std::uniform_int_distribution<int> value(1, 8);
  reference::Csr a;
  a.rows = rows;
  a.cols = cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    int const n = cols > 0 ? length(rng) : 0;
    for (int e = 0; e < n; ++e) {
      a.col_indices.push_back(column(rng));
      a.values.push_back(value(rng) * (rng() & 1 ? 1.0 : -1.0));
    }
    a.offsets.push_back(static_cast<std::int64_t>(a.values.size()));
  }
  return a;
}

/// random_ragged with row `heavy` holding `heavy_nnz` entries: most of the matrix.
inline reference::Csr one_heavy_row(std::int64_t rows, std::int64_t cols, std::int64_t heavy,
                                    std::int64_t heavy_nnz, std::uint64_t seed) {
  reference::Csr const light = random_ragged(rows, cols, 3, seed);
  std::vector<double> const cols_of_heavy =
      random_integers(heavy_nnz, 0, static_cast<int>(cols - 1), seed + 1);
  reference::Csr a;
  a.rows = rows;
  a.cols = cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t k = light.offsets[r]; k < light.offsets[r + 1]; ++k) {
      a.col_indices.push_back(light.col_indices[k]);
      a.values.push_back(light.values[k]);
    }
    if (r == heavy) {
      for (std::int64_t e = 0; e < heavy_nnz; ++e) {
        a.col_indices.push_back(static_cast<std::int64_t>(cols_of_heavy[e]));
        a.values.push_back(e % 2 ? 1.0 : -2.0);
      }
    }
    a.offsets.push_back(static_cast<std::int64_t>(a.values.size()));
  }
  return a;
}

/// Every row with exactly `per_row` entries at random columns: regular rows (row-split's case).
inline reference::Csr regular_rows(std::int64_t rows, std::int64_t cols, int per_row,
                                   std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> column(0, cols - 1);
  reference::Csr a;
  a.rows = rows;
  a.cols = cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (int e = 0; e < per_row; ++e) {
      a.col_indices.push_back(column(rng));
      a.values.push_back(static_cast<double>(1 + rng() % 8));
    }
    a.offsets.push_back(static_cast<std::int64_t>(a.values.size()));
  }
  return a;
}

/// The CUDA backend has several kernels; the CPU backend one.
inline std::vector<sparse::SpmvAlgorithm> backend_algorithms() {
  if (!backend_device().is_cuda()) return {sparse::SpmvAlgorithm::kAuto};
  return {sparse::SpmvAlgorithm::kAuto, sparse::SpmvAlgorithm::kRowSplit,
          sparse::SpmvAlgorithm::kMergePath, sparse::SpmvAlgorithm::kThreadPerRow};
}

inline char const* algorithm_name(sparse::SpmvAlgorithm a) {
  switch (a) {
    case sparse::SpmvAlgorithm::kAuto:
      return "auto";
    case sparse::SpmvAlgorithm::kRowSplit:
      return "row-split";
    case sparse::SpmvAlgorithm::kThreadPerRow:
      return "thread-per-row";
    default:
      return "merge-path";
  }
}

/// Index of the first element where got != want (NaN == NaN), or -1.
inline std::int64_t first_mismatch(std::vector<double> const& got,
                                   std::vector<double> const& want) {
  if (got.size() != want.size()) return 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool const same = got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i]));
    if (!same) return static_cast<std::int64_t>(i);
  }
  return -1;
}

}  // namespace cudist::test

/// EXPECT that two vectors are equal element for element, printing the first difference.
#define CUDIST_EXPECT_SAME_VALUES(got, want)                                                   \
  do {                                                                                         \
    std::int64_t const bad_ = ::cudist::test::first_mismatch(got, want);                       \
    EXPECT_EQ(bad_, -1)                                                                        \
        << "first mismatch at " << bad_ << ": got "                                            \
        << (bad_ >= 0 && bad_ < static_cast<std::int64_t>((got).size()) ? (got)[bad_] : 0.0)   \
        << ", want "                                                                           \
        << (bad_ >= 0 && bad_ < static_cast<std::int64_t>((want).size()) ? (want)[bad_] : 0.0) \
        << " (sizes " << (got).size() << ", " << (want).size() << ")";                         \
  } while (0)
