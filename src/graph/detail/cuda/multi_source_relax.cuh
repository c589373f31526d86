// Jacobi Bellman-Ford from S sources at once, one block per group of S consecutive sources (the
// CUDA side of relaxation.hpp). The block keeps, per vertex, the S sources' distances side by
// side (and their first hops), so a vertex's in-edge is loaded once and relaxes all S; a round
// re-evaluates only the vertices marked in a bitmask shared by the S searches (an in-neighbour
// improved for some source in the round before: no other vertex can improve for any source, and
// re-evaluating one that cannot improve changes nothing). So each source's distances and first
// hops after every round are exactly those of its own Jacobi rounds (the CPU backend's).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "graph/detail/cuda/marked_vertices.cuh"

namespace cudist::detail::cuda {

/// One vertex's values for the group's S sources, side by side: vector loads and stores (16 bytes
/// at most each).
template <class T, int S>
struct alignas(sizeof(T) * S < 16 ? sizeof(T) * S : 16) PerSource {
  T at[S];
};

template <class T>
struct RelaxParams {
  int n;
  std::int64_t const* out_offsets;
  std::int32_t const* out_targets;
  std::int64_t const* in_offsets;
  std::int32_t const* in_sources;
  T const* in_weights;
  T* dist;
  std::int64_t ld;
  std::int32_t* next;  // null: no next hops
  std::int64_t ldn;
  std::int64_t first_group, end_group;  // groups of S consecutive sources, this launch's
  unsigned char* scratch;               // per block, when its state does not fit in shared memory
  std::size_t block_bytes;
  int* unsettled;
};

/// A block's state for one group (relax_block_bytes): per vertex the S distances after the last
/// round (a) and this round's (b, equal to a wherever the vertex did not improve), with next hops
/// their first hops (fa, fb); two bitmasks of "may improve" (this round's and the next's).
template <class T, int S>
struct GroupState {
  PerSource<T, S>* a;
  PerSource<T, S>* b;
  PerSource<std::int32_t, S>* fa;
  PerSource<std::int32_t, S>* fb;
  unsigned* masks;

  __device__ GroupState(unsigned char* base, int n, bool hops) {
    a = reinterpret_cast<PerSource<T, S>*>(base);
    b = a + n;
    fa = reinterpret_cast<PerSource<std::int32_t, S>*>(b + n);
    fb = fa + (hops ? n : 0);
    masks = reinterpret_cast<unsigned*>(fb + (hops ? n : 0));
  }
};

/// Sets v's bit (atomically: several vertices mark one).
__device__ inline void mark(unsigned* mask, int v) { atomicOr(mask + v / 32, 1u << (v % 32)); }

/// Edge-list entries loaded before any is used, so that their L2 latencies overlap instead of
/// adding up along a vertex's edges (its in-edges' tails and weights, its out-edges' heads).
constexpr int kEdgeBatch = 4;

/// entries[k .. k + kEdgeBatch) of a list ending at `end`; -1 (vertices) or 0 past the end.
template <class V>
__device__ void load_edge_batch(V const* entries, int k, int end, V (&batch)[kEdgeBatch]) {
#pragma unroll
  for (int j = 0; j < kEdgeBatch; ++j) {
    batch[j] = k + j < end ? __ldg(entries + k + j) : V(std::is_integral_v<V> ? -1 : 0);
  }
}

/// Re-evaluates v for the group's sources first_source .. first_source + S - 1 over its in-edges,
/// from last round's distances; where some source improves, writes b[v] (and fb[v]) and marks v's
/// out-neighbours in `later`. Ties keep the earlier value, and among equal improvements the
/// first in-edge (ascending tails) wins, as on the CPU. Returns whether v improved.
template <class T, int S>
__device__ bool relax_vertex(RelaxParams<T> const& p, GroupState<T, S> const& st, unsigned* later, int v,
                             std::int64_t first_source, bool hops) {
  PerSource<T, S> best = st.a[v];
  PerSource<std::int32_t, S> first{};
  if (hops) first = st.fa[v];
  bool improved = false;
  int const end = static_cast<int>(__ldg(p.in_offsets + v + 1));
  for (int k = static_cast<int>(__ldg(p.in_offsets + v)); k < end; k += kEdgeBatch) {
    int tails[kEdgeBatch];
    T weights[kEdgeBatch];
    load_edge_batch(p.in_sources, k, end, tails);
    load_edge_batch(p.in_weights, k, end, weights);
#pragma unroll
    for (int j = 0; j < kEdgeBatch; ++j) {
      int const u = tails[j];
      if (u < 0) break;
      PerSource<T, S> const from = st.a[u];
      PerSource<std::int32_t, S> via{};
      if (hops) via = st.fa[u];
      int const source_lane = static_cast<int>(u - first_source);  // u is source `source_lane`, if in [0, S)
#pragma unroll
      for (int s = 0; s < S; ++s) {
        T const t = from.at[s] + weights[j];
        if (t < best.at[s]) {
          best.at[s] = t;
          improved = true;
          if (hops) first.at[s] = source_lane == s ? v : via.at[s];
        }
      }
    }
  }
  if (!improved) return false;
  st.b[v] = best;
  if (hops) st.fb[v] = first;
  int const out_end = static_cast<int>(__ldg(p.out_offsets + v + 1));
  for (int k = static_cast<int>(__ldg(p.out_offsets + v)); k < out_end; k += kEdgeBatch) {
    int heads[kEdgeBatch];
    load_edge_batch(p.out_targets, k, out_end, heads);
#pragma unroll
    for (int j = 0; j < kEdgeBatch; ++j) {
      if (heads[j] >= 0) mark(later, heads[j]);
    }
  }
  return true;
}

/// Each block takes groups first_group + blockIdx.x, + gridDim.x, ...; kInShared: its state is
/// in dynamic shared memory, else at scratch + blockIdx.x * block_bytes (S == 1 only). Sets
/// *unsettled when some source still improves after n rounds (a negative cycle). Launch bounds:
/// one block of 1024 threads per SM, so each thread may take 64 registers (without the second
/// bound ptxas held some instantiations to 32 registers, and spilled).
template <class T, int S, bool kInShared>
__global__ void __launch_bounds__(1024, 1) multi_source_relax_kernel(RelaxParams<T> p) {
  extern __shared__ __align__(16) unsigned char shared[];
  int const n = p.n, words = (n + 31) / 32;
  bool const hops = p.next != nullptr;
  GroupState<T, S> const st(kInShared ? shared : p.scratch + blockIdx.x * p.block_bytes, n, hops);
  T const inf = std::numeric_limits<T>::infinity();
  for (std::int64_t group = p.first_group + blockIdx.x; group < p.end_group; group += gridDim.x) {
    std::int64_t const first_source = group * S;
    int const sources = static_cast<int>(std::min<std::int64_t>(S, n - first_source));  // the last group's may be fewer
    for (int v = threadIdx.x; v < n; v += blockDim.x) {
      PerSource<T, S> d;
      PerSource<std::int32_t, S> f;
#pragma unroll
      for (int s = 0; s < S; ++s) {
        bool const self = v == first_source + s;  // (never, for a lane past the last source)
        d.at[s] = self ? T(0) : inf;
        f.at[s] = self ? v : -1;
      }
      st.a[v] = st.b[v] = d;
      if (hops) st.fa[v] = st.fb[v] = f;
    }
    for (int i = threadIdx.x; i < 2 * words; i += blockDim.x) st.masks[i] = 0u;
    unsigned* now = st.masks;            // may improve this round
    unsigned* later = st.masks + words;  // may improve next round
    __syncthreads();
    for (int s = 0; s < sources; ++s) {
      std::int64_t const source = first_source + s;
      for (std::int64_t k = p.out_offsets[source] + threadIdx.x; k < p.out_offsets[source + 1]; k += blockDim.x) {
        mark(now, p.out_targets[k]);
      }
    }
    __syncthreads();
    int changed = 1;
    for (int round = 0; changed && round < n; ++round) {
      bool improved = false;
      for_each_marked<false>(now, words, [&](int v) {
        improved = relax_vertex(p, st, later, v, first_source, hops) || improved;
      });
      changed = __syncthreads_or(improved);  // every thread is done reading a
      for_each_marked<true>(now, words, [&](int v) {
        st.a[v] = st.b[v];
        if (hops) st.fa[v] = st.fb[v];
      });
      __syncthreads();  // a is whole again, `now` is clear and `later` complete
      unsigned* const t = now;
      now = later;
      later = t;
    }
    if (changed && threadIdx.x == 0) atomicOr(p.unsettled, 1);
    for (int v = threadIdx.x; v < n; v += blockDim.x) {
      PerSource<T, S> const d = st.a[v];
      PerSource<std::int32_t, S> f{};
      if (hops) f = st.fa[v];
#pragma unroll
      for (int s = 0; s < S; ++s) {
        if (s >= sources) break;
        p.dist[(first_source + s) * p.ld + v] = d.at[s];
        if (hops) p.next[(first_source + s) * p.ldn + v] = f.at[s];
      }
    }
    __syncthreads();  // the next group reuses the state
  }
}

}  // namespace cudist::detail::cuda
