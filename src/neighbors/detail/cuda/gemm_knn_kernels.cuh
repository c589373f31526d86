// Kernels of the GEMM path of knn for inner product and cosine (gemm_knn.cu): bfloat16 copies of
// the rows and their bound terms; the filter that reads each chunk of the cuBLAS product once and
// keeps, per query row, every pair whose key may still be among the k best; and the exact pass
// that computes the kept pairs' keys as the SIMT path does and ranks them.
//
// The bound (expansion_bound.hpp's, with cuBLAS's summation in any order): v, the GEMM's value of
// the bfloat16 copies (float32 accumulation, rounded once to bfloat16 on output: half the bytes
// through memory), is within E |x| |y| of the SIMT path's float32 sum f, where E = the copies'
// rounding (0 for a side whose rows bfloat16 holds exactly, else 2^-9 each, and their product)
// + (d + 2) 2^-22 for float32 additions in any order (4 ulps each: truncating hardware) + d 2^-44
// for products below float32's normal range (2^-126 each at most, against |x| |y| >= 2^-80: rows
// with a smaller nonzero norm have NaN terms) + 2^-8 for the output's rounding (2^-9 of
// |v| <= (1 + E) |x| |y|) + gamma + 2^-17 for this file's float32 roundings. In key units
// (ascending: inner product -f, cosine 1 - f / (|x| |y|)), a pair's key lies in [lo, lo + 2 delta]
// with lo from v:
// inner product delta = E |x| |y| <= E |x| max|y|, the row's width; cosine delta = E + 2^-17 (the
// key's own roundings and the op's norms, which may differ from these by an ulp). After a row's
// first k pairs, tau = (k-th smallest lo) + 2 width bounds its k-th key from above: a pair with
// lo > tau cannot enter. Rows the bound does not cover (non-finite values, nonzero values below
// 2^-100, nonzero norms below 2^-40, norms near float32's range) have NaN terms: their pairs
// always pass.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "neighbors/detail/cuda/search_bounds.cuh"
#include "neighbors/detail/cuda/warp_entries.cuh"
#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail::cuda {

/// Entries a query row's list holds at most (a power of two; k <= kMaxGemmK).
constexpr int kMaxGemmListEntries = 1024;
constexpr std::int64_t kMaxGemmK = kMaxGemmListEntries / 4;

/// Per row of a bfloat16 copy (NaN terms where the bound does not cover the row), and over all.
struct Bf16RowTerms {
  float* norm;         // (rows) |row| rounded up
  float* inv_norm;     // (rows) 1 / |row|
  int* inexact;        // (rows + 1) 1 where bfloat16 rounds a value; entry [rows]: any row
  unsigned* max_norm;  // one float's bits: the largest norm that is not NaN (norms are >= 0)
};

/// One warp per row of float32 or bfloat16 (Source) rows: the copy (zero past d up to the padded
/// depth; none where `copy` is null: bfloat16 rows cuBLAS reads as they are), then its terms.
template <class Source>
struct Bf16RowsKernel {
  static constexpr int kThreads = 256;
  static constexpr int kRowsPerBlock = kThreads / 32;
  struct Params {
    Source const* src;
    std::int64_t rows, d, ld;
    int depth;  // d padded to a multiple of 8: 16-byte rows for cuBLAS
    __nv_bfloat16* copy;
    Bf16RowTerms terms;
  };

  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const row = block * kRowsPerBlock + tid / 32;
    int const lane = tid % 32;
    if (row >= p.rows) return;
    Source const* src = p.src + row * p.ld;
    double sum = 0;
    bool odd = false, inexact = false;
    for (std::int64_t k = lane; k < p.depth; k += 32) {
      float const v = k < p.d ? cudist::detail::cuda::load_float(src + k) : 0.0f;
      __nv_bfloat16 const b = __float2bfloat16_rn(v);
      if (p.copy != nullptr) p.copy[row * p.depth + k] = b;
      inexact |= __bfloat162float(b) != v;
      sum += static_cast<double>(v) * v;
      odd |= !isfinite(v) || (v != 0.0f && fabsf(v) < 0x1p-100f);
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(kFullWarp, sum, o);
    odd = __any_sync(kFullWarp, odd) || sum > 0x1p100 || (sum > 0 && sum < 0x1p-80);
    inexact = __any_sync(kFullWarp, inexact);
    if (lane != 0) return;
    double const norm = sqrt(sum * (1 + 0x1p-40));  // the double sum's rounding inside 2^-40
    float const nan = __int_as_float(0x7fffffff);
    p.terms.norm[row] = odd ? nan : __double2float_ru(norm);
    p.terms.inv_norm[row] = odd ? nan : static_cast<float>(1.0 / norm);
    p.terms.inexact[row] = inexact ? 1 : 0;
    if (inexact) atomicMax(p.terms.inexact + p.rows, 1);
    if (!odd) atomicMax(p.terms.max_norm, __float_as_uint(__double2float_ru(norm)));
  }
};

/// What the filter and the exact pass share.
struct GemmKnnState {
  Bf16RowTerms x, y;
  std::int64_t n;                // rows of y: y.inexact[n] says whether any rounds
  double e;                      // E without the copies' rounding
  bool cosine;                   // else inner product
  bool exclude_self, zero_diagonal;
  int k, capacity;               // list entries per row: a power of two >= 4 k
  // The lists of one block of query rows at a time: rows row0.. of x.
  std::int64_t row0;
  std::uint64_t* lists;          // (block rows, capacity) entries: (order of lo, column)
  int* counts;                   // (block rows) entries in each list; -1: the row overflowed
  float* taus;                   // (block rows) +inf until the row's first compaction
  // The rows whose kept pairs left their lists no room (ties in number, rows the bound does not
  // cover): the exact pass lists them here, and the caller redoes them by another path.
  std::int64_t* redo;            // (m)
  int* redo_count;
};

/// Margin of the cosine key's own roundings and of the op's norms against these (file comment).
constexpr float kCosineKeyMargin = 0x1p-17f;

/// A query row's constants of the filter.
struct GemmRowBound {
  float scale;   // inner product: E |x|; cosine: 1 / |x|
  float offset;  // cosine: 1 - E - margin (lo = offset - v / (|x| |y|)); inner product: unused
  float width;   // delta at most: tau = k-th lo + 2 width

  __device__ static GemmRowBound of(GemmKnnState const& s, std::int64_t i) {
    double const rounding = 0x1p-9 + 0x1p-18;
    double const ex = s.x.inexact[i] ? rounding : 0.0, ey = s.y.inexact[s.n] ? rounding : 0.0;
    double const e = s.e + ex + ey + ex * ey;
    if (s.cosine) {
      return {s.x.inv_norm[i], __double2float_rd(1.0 - e - kCosineKeyMargin), __double2float_ru(e + kCosineKeyMargin)};
    }
    float const scale = __double2float_ru(e * static_cast<double>(s.x.norm[i]));
    return {scale, 0.0f, __fmul_ru(scale, __uint_as_float(*s.y.max_norm))};
  }

  /// y's term of each column: cosine 1 / |y|, inner product |y|.
  __device__ static float const* column_terms(GemmKnnState const& s) { return s.cosine ? s.y.inv_norm : s.y.norm; }

  /// The lower bound of the key of the pair whose product is v, with its column's term.
  __device__ float lo(bool cosine, float v, float column_term) const {
    if (cosine) return __fmaf_rn(-v * scale, column_term, offset);
    return -__fmaf_rn(scale, column_term, v);
  }
};

/// Sorts row i's list (staged in `buf`, capacity entries) by lo and keeps the pairs that may
/// still enter: tau falls to the k-th lo + 2 width once k are known (and a self-join's (i, i),
/// whose key is set to 0, stays). Returns the kept count; every lane of the warp calls.
__device__ inline int compact_gemm_list(GemmKnnState const& s, std::int64_t i, std::uint64_t* list, std::uint64_t* buf,
                                        int count, float width, float& tau, int lane) {
  using Traits = KeyTraits<float>;
  for (int t = lane; t < s.capacity; t += 32) buf[t] = t < count ? list[t] : Traits::empty();
  warp_bitonic_sort(buf, s.capacity, lane);
  if (count >= s.k) {
    float const kth = Traits::key(buf[s.k - 1]);
    if (kth == kth) tau = fminf(tau, __fadd_ru(kth, __fmul_ru(2.0f, width)));
  }
  int kept = 0;
  for (int first = 0; first < count; first += 32) {
    int const t = first + lane;
    bool keep = false;
    if (t < count) {
      bool const diagonal = s.zero_diagonal && Traits::index(buf[t]) == i;
      keep = !(Traits::key(buf[t]) > tau) || diagonal;  // NaN lo: a row the bound does not cover
    }
    unsigned const mask = __ballot_sync(kFullWarp, keep);
    if (keep) list[kept + __popc(mask & ((1u << lane) - 1))] = buf[t];
    kept += __popc(mask);
  }
  __syncwarp();
  return kept;
}

/// The row kernels' shape: one warp per query row, four rows a block.
struct GemmKnnRowWarps {
  static constexpr int kThreads = 128;
  static constexpr int kWarps = kThreads / 32;
  using Traits = KeyTraits<float>;
  /// Dynamic shared memory of a block: a list's worth of entries a warp, for its compactions.
  static std::size_t shared_bytes(int capacity) { return std::size_t(kWarps) * capacity * sizeof(std::uint64_t); }
};

/// One warp per query row over one chunk of the product: the pairs whose lo does not exceed the
/// row's tau join its list; a full list is compacted first. kCosine: the op (GemmKnnState::cosine).
template <bool kCosine>
struct GemmKnnFilterKernel : GemmKnnRowWarps {
  struct Params {
    GemmKnnState s;
    __nv_bfloat16 const* values;  // (rows, cols) the chunk's product, row-major, row stride cols
    std::int64_t row0, rows;   // its query rows
    std::int64_t col0, cols;   // its columns: rows col0.. of y
  };

  /// Columns a lane tests per step: one 16-byte load of bfloat16 products.
  static constexpr int kColumns = 8;
  /// Steps a warp's lanes load at once, and the columns they cover (2 KB of products a warp).
  static constexpr int kSteps = 2, kGroup = 32 * kColumns * kSteps;

  /// Products of one step of a lane: kColumns bfloat16 values, as loaded (zeros past `end`).
  using Packed = uint4;
  /// Those values as floats (source_sums.cuh's widening of 16 bytes of bfloat16).
  using Products = cudist::detail::cuda::Widened16<__nv_bfloat16>;
  static_assert(Products::kCount == kColumns, "a step's columns are one 16-byte load");

  /// kColumns consecutive bfloat16 values from c: one 16-byte load where `vec`.
  __device__ static Packed load_packed(__nv_bfloat16 const* a, std::int64_t c, std::int64_t end, bool vec) {
    if (vec) return __ldcs(reinterpret_cast<Packed const*>(a + c));  // read once: evict first
    unsigned short h[kColumns];
#pragma unroll
    for (int t = 0; t < kColumns; ++t) h[t] = c + t < end ? __bfloat16_as_ushort(a[c + t]) : 0;
    return {h[0] | (unsigned(h[1]) << 16), h[2] | (unsigned(h[3]) << 16), h[4] | (unsigned(h[5]) << 16),
            h[6] | (unsigned(h[7]) << 16)};
  }

  /// A group's loads: step u of lane `lane` covers columns first + 256 u + 8 lane ...
  __device__ static void load_group(__nv_bfloat16 const* v, std::int64_t first, std::int64_t cols, bool vec, int lane,
                                    Packed (&out)[kSteps]) {
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      std::int64_t const c = first + 32 * kColumns * u + kColumns * lane;
      out[u] = c < cols ? load_packed(v, c, cols, vec) : Packed{0, 0, 0, 0};
    }
  }

  /// kColumns consecutive column terms from c (zeros past `end`): two 16-byte loads where `vec`.
  /// Every query row reads them: they stay in L1.
  __device__ static void load_terms(float const* a, std::int64_t c, std::int64_t end, bool vec, float (&out)[kColumns]) {
    if (vec) {
#pragma unroll
      for (int h = 0; h < kColumns / 4; ++h) {
        float4 const q = __ldg(reinterpret_cast<float4 const*>(a + c) + h);
        out[4 * h] = q.x, out[4 * h + 1] = q.y, out[4 * h + 2] = q.z, out[4 * h + 3] = q.w;
      }
      return;
    }
#pragma unroll
    for (int t = 0; t < kColumns; ++t) out[t] = c + t < end ? __ldg(a + c + t) : 0.0f;
  }

  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    extern __shared__ std::uint64_t staging[];  // capacity entries per warp (launch_rows)
    GemmKnnState const& s = p.s;
    int const warp = tid / 32, lane = tid % 32;
    std::int64_t const local = block * kWarps + warp;
    if (local >= p.rows) return;
    std::int64_t const i = p.row0 + local;
    std::int64_t const r = i - s.row0;  // the row's list
    int count = s.counts[r];
    if (count < 0) return;  // overflowed in an earlier chunk: redone by another path
    float tau = s.taus[r];
    GemmRowBound const bound = GemmRowBound::of(s, i);
    std::uint64_t* const list = s.lists + r * s.capacity;
    __nv_bfloat16 const* const v = p.values + local * p.cols;
    float const* const terms = GemmRowBound::column_terms(s) + p.col0;
    // The loop waits on HBM, not on its tests (ncu, K4: 0.6-0.74 TB/s with 1 KB a warp in flight
    // and nothing in flight during the tests): the next group's 2 KB a warp are loaded before
    // this group's tests. 16-byte loads where the rows allow (col0 is a multiple of 256).
    bool const vec = p.cols % kColumns == 0;
    int const cols = static_cast<int>(p.cols);  // at most 16384 (gemm_knn_chunks)
    std::int64_t const to_diagonal = i - p.col0;  // the self-join's diagonal, if in this chunk
    int const diagonal = to_diagonal >= 0 && to_diagonal < cols ? static_cast<int>(to_diagonal) : -(1 << 30);
    Packed next[kSteps];
    load_group(v, 0, cols, vec, lane, next);
    for (int first = 0; first < cols; first += kGroup) {
      Packed group[kSteps];
#pragma unroll
      for (int u = 0; u < kSteps; ++u) group[u] = next[u];
      if (first + kGroup < cols) load_group(v, first + kGroup, cols, vec, lane, next);
      // Most groups hold no candidate once tau has fallen: each step costs a conversion, one or
      // two multiply-adds and a min per column, and the exact tests run only where a step's
      // smallest lo passes, or it holds the chunk's ragged end or the diagonal.
      bool maybe[kSteps], any = false;
#pragma unroll
      for (int u = 0; u < kSteps; ++u) {
        int const c = first + 32 * kColumns * u + kColumns * lane;
        maybe[u] = c < cols && (c + kColumns > cols || static_cast<unsigned>(diagonal - c) < kColumns ||
                                !(smallest_lo(bound, terms, group[u], c, vec, cols) > tau));
        any |= maybe[u];
      }
      if (!__any_sync(kFullWarp, any)) continue;
      // The rare path, its code once: the steps in turn, their exact tests against the tau that
      // the appends before them may have lowered.
#pragma unroll 1
      for (int u = 0; u < kSteps; ++u) {
        Packed q = group[0];
        bool m = maybe[0];
#pragma unroll
        for (int w = 1; w < kSteps; ++w) {
          if (u == w) q = group[w], m = maybe[w];
        }
        int const c = first + 32 * kColumns * u + kColumns * lane;
        float lo[kColumns];
        unsigned const bits = m ? candidates(p, bound, terms, q, c, vec, i, tau, lo) : 0u;
        if (!__any_sync(kFullWarp, bits != 0)) continue;
        if (!append(s, i, list, staging + warp * s.capacity, bound, p.col0 + c, lo, bits, count, tau, lane)) {
          if (lane == 0) s.counts[r] = -1;  // the kept pairs leave no room: ties, NaN rows
          return;
        }
      }
    }
    if (lane == 0) {
      s.counts[r] = count;
      s.taus[r] = tau;
    }
  }

  /// The smallest lo of a lane's step of columns c .. c + 7, NaN where any is NaN: no column of the
  /// step can be a candidate when it exceeds tau. Each lo as candidates() computes it.
  __device__ static float smallest_lo(GemmRowBound const& bound, float const* terms, Packed const& q, int c, bool vec,
                                      int cols) {
    float term[kColumns];
    load_terms(terms, c, cols, vec, term);
    Products const products(q);
    float smallest = __int_as_float(0x7f800000);
#pragma unroll
    for (int t = 0; t < kColumns; ++t) {
      smallest = min_or_nan(smallest, bound.lo(kCosine, products.v[t], term[t]));
    }
    return smallest;
  }

  __device__ static float min_or_nan(float a, float b) {
#if __CUDA_ARCH__ >= 800
    float m;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(m) : "f"(a), "f"(b));
    return m;
#else
    return a != a || b != b ? __int_as_float(0x7fffffff) : fminf(a, b);
#endif
  }

  /// The candidates among a lane's step of columns c .. c + 7 (bit t: column c + t), and their
  /// lo. The tests per column are a conversion, one or two multiply-adds and a compare; the
  /// chunk's ragged end and the diagonal, a few steps of a row, are fixed up after them.
  __device__ static unsigned candidates(Params const& p, GemmRowBound const& bound, float const* terms,
                                        Packed const& q, int c, bool vec, std::int64_t i, float tau,
                                        float (&lo)[kColumns]) {
    GemmKnnState const& s = p.s;
    float term[kColumns];
    load_terms(terms, c, p.cols, vec, term);
    Products const products(q);
    unsigned bits = 0;
#pragma unroll
    for (int t = 0; t < kColumns; ++t) {
      lo[t] = bound.lo(kCosine, products.v[t], term[t]);
      bits |= static_cast<unsigned>(!(lo[t] > tau)) << t;  // NaN lo: a row the bound does not cover
    }
    if (c + kColumns > p.cols) bits &= (1u << (p.cols - c)) - 1;
    std::int64_t const diagonal = i - (p.col0 + c);
    if (diagonal >= 0 && diagonal < kColumns && diagonal < p.cols - c) {  // its key is set later
      unsigned const bit = 1u << diagonal;
      bool const keep = s.zero_diagonal || ((bits & bit) != 0 && !s.exclude_self);
      bits = keep ? bits | bit : bits & ~bit;
    }
    return bits;
  }

  /// Appends the lanes' candidates (bit t: column j0 + t) to row i's list, in column order; when
  /// they do not fit, compacts it first and keeps those still below the new tau. False when the
  /// kept pairs leave no room. Every lane calls.
  __device__ static bool append(GemmKnnState const& s, std::int64_t i, std::uint64_t* list, std::uint64_t* staging,
                                GemmRowBound const& bound, std::int64_t j0, float const (&lo)[kColumns], unsigned bits,
                                int& count, float& tau, int lane) {
    int total = warp_sum(__popc(bits));
    if (count + total > s.capacity) {
      count = compact_gemm_list(s, i, list, staging, count, bound.width, tau, lane);
#pragma unroll
      for (int t = 0; t < kColumns; ++t) {
        bool const diagonal = s.zero_diagonal && j0 + t == i;
        if (((bits >> t) & 1u) && lo[t] > tau && !diagonal) bits &= ~(1u << t);
      }
      total = warp_sum(__popc(bits));
      if (count + total > s.capacity) return false;
    }
    int at = count + exclusive_prefix(__popc(bits), lane);
#pragma unroll
    for (int t = 0; t < kColumns; ++t) {
      if ((bits >> t) & 1u) list[at++] = Traits::entry(lo[t], static_cast<std::uint32_t>(j0 + t));
    }
    count += total;
    return true;
  }

  __device__ static int warp_sum(int v) {
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(kFullWarp, v, o);
    return v;
  }

  __device__ static int exclusive_prefix(int v, int lane) {
    int inclusive = v;
#pragma unroll
    for (int delta = 1; delta < 32; delta *= 2) {
      int const u = __shfl_up_sync(kFullWarp, inclusive, delta);
      if (lane >= delta) inclusive += u;
    }
    return inclusive - v;
  }
};

/// One warp per query row: the kept pairs' exact keys (the SIMT path's float32 sums), ranked by
/// (key, column) as the sorted path ranks them, the first k written. The sums read float32 rows,
/// or (E bfloat16) the path's bfloat16 copies where these hold every value exactly.
template <class E>
struct GemmKnnExactKernel : GemmKnnRowWarps {
  using Rows = cudist::detail::cuda::SourceSumsOf<E>;
  /// The compaction lists, then each warp's slice of y rows (SourceSums::warp_sums).
  static std::size_t shared_bytes(int capacity) {
    return GemmKnnRowWarps::shared_bytes(capacity) + std::size_t(kWarps) * Rows::kWarpSliceBytes;
  }
  struct Params {
    GemmKnnState s;             // its block of query rows: s.row0 ..
    std::int64_t block_rows;
    DotBound::Rank rank;
    Rows rows;
    RankSpec spec;
    float* distances;
    std::int64_t ld_distances;
    std::int64_t* indices;
    std::int64_t ld_indices;
  };

  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    extern __shared__ std::uint64_t staging[];  // capacity entries per warp (launch_rows)
    GemmKnnState const& s = p.s;
    int const warp = tid / 32, lane = tid % 32;
    std::int64_t const r = block * kWarps + warp, i = s.row0 + r;
    if (r >= p.block_rows) return;
    int const count = s.counts[r];
    if (count < 0) {  // overflowed: listed for the caller, which redoes it
      if (lane == 0) s.redo[atomicAdd(s.redo_count, 1)] = i;
      return;
    }
    float const tau = s.taus[r];
    std::uint64_t const* const list = s.lists + r * s.capacity;
    std::uint64_t* const buf = staging + warp * s.capacity;
    uint4* const slice = reinterpret_cast<uint4*>(staging + kWarps * s.capacity) + warp * Rows::kWarpSliceBytes / 16;
    for (int first = 0; first < s.capacity; first += 32) {
      int const t = first + lane;
      std::int64_t j = -1;  // the lane's pair, if kept
      if (t < count) {
        std::uint64_t const entry = list[t];
        auto const column = static_cast<std::uint32_t>(entry & 0xffffffffu);
        bool const diagonal = column == i && s.zero_diagonal;
        if (!(Traits::key(entry) > tau) || diagonal) j = column;
      }
      float acc = 0.0f;
      if (first < count && p.rows.vec) {  // warp-uniform
        acc = p.rows.warp_sums(i, j, slice, lane, cudist::detail::cuda::ProductStep{});
      } else if (j >= 0) {
        acc = p.rows.sum(i, j, cudist::detail::cuda::ProductStep{});
      }
      buf[t] = j >= 0 ? Traits::entry(DotBound::key_of_sum(p.rank, acc, i, j, s.zero_diagonal), static_cast<std::uint32_t>(j))
                      : Traits::empty();
    }
    warp_bitonic_sort(buf, s.capacity, lane);
    for (int r = lane; r < s.k; r += 32) {
      p.distances[i * p.ld_distances + r] = distance_of<float>(Traits::key(buf[r]), p.spec);
      p.indices[i * p.ld_indices + r] = Traits::index(buf[r]);
    }
  }
};

}  // namespace cudist::neighbors::detail::cuda
