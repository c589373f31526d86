// CPU backend of the graph steps of blocked Floyd-Warshall: preparing the weight matrix and
// closing a diagonal block (the products between blocks are the semiring CPU backend's).
#include <cmath>
#include <cstdint>
#include <limits>

#include <omp.h>

#include "graph/detail/backend.hpp"

namespace cudist::detail::cpu {
namespace {

template <class T>
void prepare(MatrixView dv, MatrixView nv, bool directed) {
  auto* d = static_cast<T*>(dv.data);
  auto* next = static_cast<std::int32_t*>(nv.data);
  std::int64_t const n = dv.rows, ld = dv.stride;
  T const inf = std::numeric_limits<T>::infinity();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      if (std::isnan(d[i * ld + j])) d[i * ld + j] = inf;
    }
  }
  if (!directed) {  // each thread owns the pairs (i, j > i) of its rows
#pragma omp parallel for schedule(dynamic, 16)
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = i + 1; j < n; ++j) {
        T const w = std::fmin(d[i * ld + j], d[j * ld + i]);
        d[i * ld + j] = w;
        d[j * ld + i] = w;
      }
    }
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    d[i * ld + i] = std::fmin(d[i * ld + i], T(0));
    if (next == nullptr) continue;
    for (std::int64_t j = 0; j < n; ++j) {
      std::int32_t const hop = d[i * ld + j] < inf ? static_cast<std::int32_t>(j) : -1;
      next[i * nv.stride + j] = i == j ? static_cast<std::int32_t>(i) : hop;
    }
  }
}

/// Floyd-Warshall in place; step k reads row k and column k, which step k does not change (a
/// non-negative d[k][k]; with a negative one the result only has to show a negative diagonal).
template <class T>
void close(MatrixView dv, MatrixView nv) {
  auto* d = static_cast<T*>(dv.data);
  auto* next = static_cast<std::int32_t*>(nv.data);
  std::int64_t const b = dv.rows, ld = dv.stride, ldn = nv.stride;
  for (std::int64_t k = 0; k < b; ++k) {
    for (std::int64_t i = 0; i < b; ++i) {
      T const dik = d[i * ld + k];
      for (std::int64_t j = 0; j < b; ++j) {
        T const t = dik + d[k * ld + j];
        if (t < d[i * ld + j]) {
          d[i * ld + j] = t;
          if (next != nullptr) next[i * ldn + j] = next[i * ldn + k];
        }
      }
    }
  }
}

}  // namespace

void prepare_graph(MatrixView d, MatrixView next, bool directed) {
  if (d.dtype == DType::kFloat64) return prepare<double>(d, next, directed);
  prepare<float>(d, next, directed);
}

void close_diagonal_block(MatrixView d, MatrixView next) {
  if (d.dtype == DType::kFloat64) return close<double>(d, next);
  close<float>(d, next);
}

}  // namespace cudist::detail::cpu
