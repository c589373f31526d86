// CPU backend of Bellman-Ford from every source (relaxation.hpp): the same Jacobi rounds as the
// GPU's, over the in-edges in the same order, so both backends return the same distances and next
// hops. (The GPU also skips the vertices none of whose in-neighbours changed, which changes no
// result.)
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
  std::int64_t total = 0;
  for (std::int64_t u = 0; u < n; ++u) {
    offsets[u] = total;
    for (std::int64_t v = 0; v < n; ++v) total += is_in_edge(w[u * d.stride + v], u, v);
  }
  offsets[n] = total;
  return total;
}

/// Both groupings in one row-major sweep, so every list comes out ascending.
template <class T>
void gather(ConstMatrixView d, EdgeListsOut e) {
  auto const* w = static_cast<T const*>(d.data);
  std::int64_t const n = d.rows;
  bool const separate_in = e.in_offsets != e.out_offsets;  // (the lists may be empty, null)
  std::vector<std::int64_t> in_fill;
  if (separate_in) {
    std::vector<std::int64_t> in_count(static_cast<std::size_t>(n), 0);
    for (std::int64_t u = 0; u < n; ++u)
      for (std::int64_t v = 0; v < n; ++v) in_count[v] += is_in_edge(w[u * d.stride + v], u, v);
    std::int64_t total = 0;
    for (std::int64_t v = 0; v < n; ++v) {
      e.in_offsets[v] = total;
      total += in_count[v];
    }
    e.in_offsets[n] = total;
    in_fill.assign(e.in_offsets, e.in_offsets + n);
  }
  auto* out_w = static_cast<T*>(e.out_weights);
  auto* in_w = static_cast<T*>(e.in_weights);
  for (std::int64_t u = 0; u < n; ++u) {
    std::int64_t k = e.out_offsets[u];
    for (std::int64_t v = 0; v < n; ++v) {
      T const x = w[u * d.stride + v];
      if (!is_in_edge(x, u, v)) continue;
      e.out_targets[k] = static_cast<std::int32_t>(v);
      out_w[k++] = x;
      if (!separate_in) continue;
      e.in_sources[in_fill[v]] = static_cast<std::int32_t>(u);
      in_w[in_fill[v]++] = x;
    }
  }
}

/// One source's rounds; false when it has not settled after n rounds.
template <class T>
bool relax_from(std::int64_t s, EdgeListsView e, T* dist, std::int32_t* next, std::vector<T>& a,
                std::vector<T>& b, std::vector<std::int32_t>& fa, std::vector<std::int32_t>& fb) {
  std::int64_t const n = e.vertices;
  auto const* w = static_cast<T const*>(e.in_weights);
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
      for (std::int64_t k = e.in_offsets[v]; k < e.in_offsets[v + 1]; ++k) {
        std::int32_t const u = e.in_sources[k];
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
bool every_source(EdgeListsView e, MatrixView dv, MatrixView nv) {
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

std::int64_t out_edge_offsets(ConstMatrixView d, std::int64_t* offsets) {
  return d.dtype == DType::kFloat64 ? offsets_of<double>(d, offsets) : offsets_of<float>(d, offsets);
}

void gather_edges(ConstMatrixView d, EdgeListsOut edges) {
  d.dtype == DType::kFloat64 ? gather<double>(d, edges) : gather<float>(d, edges);
}

bool bellman_ford_every_source(EdgeListsView edges, MatrixView dist, MatrixView next) {
  return edges.dtype == DType::kFloat64 ? every_source<double>(edges, dist, next)
                                        : every_source<float>(edges, dist, next);
}

}  // namespace cudist::detail::cpu
