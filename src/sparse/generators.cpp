// Seeded generators of benchmark and test matrices. Every random draw comes from a counter-based
// stream (splitmix64 of seed and position), so a matrix depends on its arguments only, not on
// the number of OpenMP threads that built it.
#include "cudist/sparse/generators.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/detail/expects.hpp"
#include "cudist/sparse/triplets.hpp"
#include "sparse/detail/csr_checks.hpp"
#include "sparse/detail/dispatch.hpp"

namespace cudist::sparse {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// A reproducible random stream for one (seed, stream id) pair.
class Stream {
 public:
  Stream(std::uint64_t seed, std::uint64_t id) : state_(splitmix64(seed) ^ splitmix64(~id)) {}
  std::uint64_t next() { return splitmix64(state_++); }
  /// Uniform in [0, n).
  std::int64_t below(std::int64_t n) {
    return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n));
  }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// A non-zero integer in [-8, 8].
  double small_integer() {
    std::uint64_t const r = next();
    double const magnitude = static_cast<double>(1 + r % 8);
    return (r >> 32) & 1 ? magnitude : -magnitude;
  }

 private:
  std::uint64_t state_;
};

/// k distinct values of [0, n), sorted (k <= n / 2: draws, sorts, tops up until k are distinct).
std::vector<std::int64_t> distinct_sorted(Stream& rng, std::int64_t k, std::int64_t n) {
  std::vector<std::int64_t> picked;
  picked.reserve(k);
  while (static_cast<std::int64_t>(picked.size()) < k) {
    for (std::int64_t i = static_cast<std::int64_t>(picked.size()); i < k; ++i) {
      picked.push_back(rng.below(n));
    }
    std::sort(picked.begin(), picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  }
  return picked;
}

/// k distinct sorted values of [0, n) for any k <= n: dense rows pick the columns they leave out.
std::vector<std::int64_t> sample_columns(Stream& rng, std::int64_t k, std::int64_t n) {
  if (2 * k <= n) return distinct_sorted(rng, k, n);
  std::vector<std::int64_t> const skipped = distinct_sorted(rng, n - k, n);
  std::vector<std::int64_t> kept;
  kept.reserve(k);
  std::size_t s = 0;
  for (std::int64_t c = 0; c < n; ++c) {
    if (s < skipped.size() && skipped[s] == c) {
      ++s;
    } else {
      kept.push_back(c);
    }
  }
  return kept;
}

/// Fills a host CSR matrix whose row lengths are known: row r gets entries (col, value) from
/// fill_row(r, emit).
template <class FillRow>
CsrMatrix build_rows(std::int64_t rows, std::int64_t cols, std::vector<std::int64_t> const& lengths,
                     DType value_dtype, DType index_dtype, FillRow const& fill_row) {
  std::vector<std::int64_t> offsets(rows + 1, 0);
  std::partial_sum(lengths.begin(), lengths.end(), offsets.begin() + 1);
  CsrMatrix m =
      CsrMatrix::allocate(rows, cols, offsets[rows], value_dtype, index_dtype, Device::cpu());
  detail::with_csr_types(value_dtype, index_dtype, [&](auto value_tag, auto index_tag) {
    using T = typename decltype(value_tag)::type;
    using I = typename decltype(index_tag)::type;
    I* out_offsets = m.row_offsets().data_as<I>();
    I* out_cols = m.col_indices().data_as<I>();
    T* out_values = m.values().data_as<T>();
#pragma omp parallel for schedule(dynamic, 64)
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t k = offsets[r];
      out_offsets[r] = static_cast<I>(k);
      fill_row(r, [&](std::int64_t col, double value) {
        out_cols[k] = static_cast<I>(col);
        out_values[k++] = static_cast<T>(value);
      });
    }
    out_offsets[rows] = static_cast<I>(offsets[rows]);
  });
  return m;
}

}  // namespace

CsrMatrix uniform_random_csr(std::int64_t rows, std::int64_t cols, std::int64_t nnz_per_row,
                             std::uint64_t seed, DType value_dtype, DType index_dtype) {
  CUDIST_EXPECTS(nnz_per_row >= 0 && nnz_per_row <= cols,
                 "uniform_random_csr: nnz_per_row = " << nnz_per_row
                                                      << " must be in [0, cols = " << cols << "]");
  CUDIST_EXPECTS(rows >= 0 && rows <= INT64_MAX / (nnz_per_row > 0 ? nnz_per_row : 1),
                 "uniform_random_csr: rows = " << rows << " is out of range");
  detail::check_csr_dims("uniform_random_csr", rows, cols, rows * nnz_per_row, value_dtype,
                         index_dtype);
  std::vector<std::int64_t> const lengths(rows, nnz_per_row);
  return build_rows(rows, cols, lengths, value_dtype, index_dtype, [&](std::int64_t r, auto emit) {
    Stream rng(seed, static_cast<std::uint64_t>(r));
    for (std::int64_t c : sample_columns(rng, nnz_per_row, cols)) emit(c, rng.small_integer());
  });
}

CsrMatrix rmat_csr(int scale, std::int64_t edge_factor, std::uint64_t seed,
                   RmatParams const& params, DType value_dtype, DType index_dtype) {
  CUDIST_EXPECTS(scale >= 0 && scale <= 40, "rmat_csr: scale = " << scale << " must be in [0, 40]");
  CUDIST_EXPECTS(edge_factor >= 0, "rmat_csr: edge_factor = " << edge_factor << " is negative");
  double const d = 1.0 - params.a - params.b - params.c;
  CUDIST_EXPECTS(params.a >= 0 && params.b >= 0 && params.c >= 0 && d >= 0,
                 "rmat_csr: probabilities a = " << params.a << ", b = " << params.b << ", c = "
                                                << params.c << " must be >= 0 with a + b + c <= 1");
  std::int64_t const n = std::int64_t(1) << scale;
  std::int64_t const edges = edge_factor * n;
  detail::check_csr_dims("rmat_csr", n, n, edges, value_dtype, index_dtype);

  // Graph500's relabelling: a random permutation of the vertices (Fisher-Yates).
  std::vector<std::int64_t> label(n);
  std::iota(label.begin(), label.end(), 0);
  Stream shuffle(seed, ~std::uint64_t(0));
  for (std::int64_t i = n - 1; i > 0; --i) std::swap(label[i], label[shuffle.below(i + 1)]);

  Triplets t;
  t.rows = t.cols = n;
  t.row.resize(edges);
  t.col.resize(edges);
  t.value.resize(edges);
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < edges; ++e) {
    Stream rng(seed, static_cast<std::uint64_t>(e));
    std::int64_t src = 0, dst = 0;
    for (int level = 0; level < scale; ++level) {  // one quadrant of the adjacency matrix per bit
      double const u = rng.unit();
      bool const low_half = u >= params.a + params.b;              // quadrant c or d: source bit 1
      bool const right_half = u >= params.a + params.b + params.c  // quadrant d, or b
                              || (u >= params.a && u < params.a + params.b);
      src = 2 * src + (low_half ? 1 : 0);
      dst = 2 * dst + (right_half ? 1 : 0);
    }
    t.row[e] = label[src];
    t.col[e] = label[dst];
    t.value[e] = rng.small_integer();
  }
  return to_csr(t, value_dtype, index_dtype, Duplicates::kSum);
}

CsrMatrix poisson3d_csr(std::int64_t n, DType value_dtype, DType index_dtype) {
  CUDIST_EXPECTS(n >= 0 && n <= 2'000'000, "poisson3d_csr: n = " << n << " is out of range");
  std::int64_t const plane = n * n, rows = n * plane;
  detail::check_csr_dims("poisson3d_csr", rows, rows, 7 * rows, value_dtype, index_dtype);
  // Neighbour offsets in increasing column order: -z, -y, -x, self, +x, +y, +z.
  std::int64_t const step[7] = {-plane, -n, -1, 0, 1, n, plane};
  auto const inside = [n](std::int64_t r, int s) {
    std::int64_t const coord[3] = {r / (n * n), (r / n) % n, r % n};  // z, y, x
    int const axis = s < 3 ? s : 6 - s;  // -z/+z: 0, -y/+y: 1, -x/+x: 2
    if (s == 3) return true;
    return s < 3 ? coord[axis] > 0 : coord[axis] < n - 1;
  };
  std::vector<std::int64_t> lengths(rows);
#pragma omp parallel for
  for (std::int64_t r = 0; r < rows; ++r) {
    lengths[r] = 0;
    for (int s = 0; s < 7; ++s) lengths[r] += inside(r, s) ? 1 : 0;
  }
  return build_rows(rows, rows, lengths, value_dtype, index_dtype, [&](std::int64_t r, auto emit) {
    for (int s = 0; s < 7; ++s) {
      if (inside(r, s)) emit(r + step[s], s == 3 ? 6.0 : -1.0);
    }
  });
}

}  // namespace cudist::sparse
