// CPU backend of Bellman-Ford from every source (relaxation.hpp): the same Jacobi rounds as the
// GPU's, in the same edge order, so both backends return the same distances and next hops.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <omp.h>

#include "core/detail/interrupt_check.hpp"
#include "cudist/core/interrupt.hpp"
#include "graph/detail/backend.hpp"

namespace cudist::detail::cpu {
namespace {

template <class T>
bool is_in_edge(T w, std::int64_t u, std::int64_t v) {
  return u == v ? w < T(0) : w < std::numeric_limits<T>::infinity();
}

template <class T>
std::int64_t offsets_of(ConstMatrixView d, std::int64_t* offsets) {
  auto const* w = static_cast<T const*>(d.data);
  std::int64_t const n = d.rows;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n), 0);
  for (std::int64_t u = 0; u < n; ++u)  // row by row: d is row-major
    for (std::int64_t v = 0; v < n; ++v) counts[v] += is_in_edge(w[u * d.stride + v], u, v);
  std::int64_t total = 0;
  for (std::int64_t v = 0; v < n; ++v) {
    offsets[v] = total;
    total += counts[v];
  }
  offsets[n] = total;
  return total;
}

template <class T>
void gather(ConstMatrixView d, InEdgesOut e) {
  auto const* w = static_cast<T const*>(d.data);
  auto* weights = static_cast<T*>(e.weights);
  std::int64_t const n = d.rows;
  std::vector<std::int64_t> fill(e.offsets, e.offsets + n);
  for (std::int64_t u = 0; u < n; ++u) {
    for (std::int64_t v = 0; v < n; ++v) {
      T const x = w[u * d.stride + v];
      if (!is_in_edge(x, u, v)) continue;
      e.sources[fill[v]] = static_cast<std::int32_t>(u);
      weights[fill[v]++] = x;
    }
  }
}

/// One source's rounds; false when it has not settled after n rounds.
template <class T>
bool relax_from(std::int64_t s, InEdgesView e, T* dist, std::int32_t* next, std::vector<T>& a,
                std::vector<T>& b, std::vector<std::int32_t>& fa, std::vector<std::int32_t>& fb) {
  std::int64_t const n = e.vertices;
  auto const* w = static_cast<T const*>(e.weights);
  T const inf = std::numeric_limits<T>::infinity();
  for (std::int64_t v = 0; v < n; ++v) {
    a[v] = v == s ? T(0) : inf;
    fa[v] = v == s ? static_cast<std::int32_t>(s) : -1;
  }
  bool changed = true;
  for (std::int64_t round = 0; changed && round < n; ++round) {
    changed = false;
    for (std::int64_t v = 0; v < n; ++v) {
      T best = a[v];
      std::int32_t first = fa[v];
      for (std::int64_t k = e.offsets[v]; k < e.offsets[v + 1]; ++k) {
        std::int32_t const u = e.sources[k];
        T const t = a[u] + w[k];
        if (t < best) {
          best = t;
          first = u == s ? static_cast<std::int32_t>(v) : fa[u];
        }
      }
      b[v] = best;
      fb[v] = first;
      changed = changed || best < a[v];
    }
    a.swap(b);
    fa.swap(fb);
  }
  for (std::int64_t v = 0; v < n; ++v) {
    dist[v] = a[v];
    if (next != nullptr) next[v] = fa[v];
  }
  return !changed;
}

template <class T>
bool every_source(InEdgesView e, MatrixView dv, MatrixView nv) {
  std::int64_t const n = e.vertices;
  bool settled = true;
#pragma omp parallel
  {
    std::vector<T> a(n), b(n);
    std::vector<std::int32_t> fa(n), fb(n);
#pragma omp for schedule(dynamic, 1) reduction(&& : settled)
    for (std::int64_t s = 0; s < n; ++s) {
      if (interrupt_requested()) continue;  // an OpenMP loop cannot throw: skip, throw below
      auto* next = nv.data == nullptr ? nullptr : static_cast<std::int32_t*>(nv.data) + s * nv.stride;
      settled = relax_from(s, e, static_cast<T*>(dv.data) + s * dv.stride, next, a, b, fa, fb) && settled;
    }
  }
  throw_if_interrupted("apsp");
  return settled;
}

}  // namespace

std::int64_t in_edge_offsets(ConstMatrixView d, std::int64_t* offsets) {
  return d.dtype == DType::kFloat64 ? offsets_of<double>(d, offsets) : offsets_of<float>(d, offsets);
}

void gather_in_edges(ConstMatrixView d, InEdgesOut edges) {
  d.dtype == DType::kFloat64 ? gather<double>(d, edges) : gather<float>(d, edges);
}

bool bellman_ford_every_source(InEdgesView edges, MatrixView dist, MatrixView next) {
  return edges.dtype == DType::kFloat64 ? every_source<double>(edges, dist, next)
                                        : every_source<float>(edges, dist, next);
}

}  // namespace cudist::detail::cpu
