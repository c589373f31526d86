// Helpers of the neighbours tests: running knn on the backend under test and bringing the answer
// to the host, inputs in each metric's domain, batches from their problems' sizes, and the real
// descriptor files.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/backend.hpp"
#include "common/compare.hpp"
#include "common/data.hpp"
#include "cudist/io/npy.hpp"
#include "cudist/neighbors/knn.hpp"

namespace cudist::test {

struct HostKnn {
  Array distances;
  Array indices;
};

inline HostKnn to_host(KnnResult const& r) { return {to_host(r.distances), to_host(r.indices)}; }

/// f() on the default path, then again with CUDIST_SIMT_SELECTION=1 (the SIMT engine's fused or
/// sorted selection): the GPU paths that must return the same answers.
template <class F>
auto on_both_paths(F&& f) {
  auto fast = f();
  setenv("CUDIST_SIMT_SELECTION", "1", 1);
  struct Unset {
    ~Unset() { unsetenv("CUDIST_SIMT_SELECTION"); }
  } unset;
  auto simt = f();
  return std::make_pair(std::move(fast), std::move(simt));
}

/// Each named pair of arrays identical (test::identical); the failure names the first that is not.
inline ::testing::AssertionResult identical_fields(
    std::initializer_list<std::tuple<char const*, ConstMatrixView, ConstMatrixView>> fields) {
  for (auto const& [name, got, want] : fields) {
    if (::testing::AssertionResult r = identical(got, want); !r) return r << " (" << name << ")";
  }
  return ::testing::AssertionSuccess();
}

/// Two answers identical in every field, wherever each is (test::identical).
inline ::testing::AssertionResult identical(KnnResult const& got, KnnResult const& want) {
  return identical_fields({{"indices", got.indices, want.indices},
                           {"distances", got.distances, want.distances}});
}

inline ::testing::AssertionResult identical(MatchResult const& got, MatchResult const& want) {
  return identical_fields({{"pairs", got.pairs, want.pairs},
                           {"distances", got.distances, want.distances},
                           {"offsets", got.offsets, want.offsets}});
}

inline ::testing::AssertionResult identical(RadiusResult const& got, RadiusResult const& want) {
  return identical_fields({{"offsets", got.offsets, want.offsets},
                           {"indices", got.indices, want.indices},
                           {"distances", got.distances, want.distances}});
}

inline HostKnn run_knn(TestMatrix const& x, TestMatrix const& y, std::int64_t k, Metric metric,
                       KnnOptions const& options = {}) {
  Array const xb = to_backend(x.array), yb = to_backend(y.array);
  return to_host(knn(backend_resources(), xb, yb, k, metric, options));
}

/// Data in each metric's domain: 0/1 for the boolean metrics, small integers for hamming and
/// jaccard, positive reals for jensenshannon, reals in [-1, 1) otherwise.
inline TestMatrix metric_data(Metric metric, std::int64_t rows, std::int64_t d, DType dtype,
                              std::uint64_t seed) {
  switch (metric) {
    case Metric::kJensenShannon: return random_reals(rows, d, dtype, 0.0, 1.0, seed);
    case Metric::kHamming:
    case Metric::kJaccard: return random_integers(rows, d, dtype, 0, 2, seed);
    case Metric::kDice:
    case Metric::kKulczynski1:
    case Metric::kRogersTanimoto:
    case Metric::kRussellRao:
    case Metric::kSokalMichener:
    case Metric::kSokalSneath:
    case Metric::kYule: return random_integers(rows, d, dtype, 0, 1, seed);
    default: return random_reals(rows, d, dtype, -1.0, 1.0, seed);
  }
}

/// Explicit V / VI for seuclidean and mahalanobis (the reference does not estimate them), p = 3
/// for minkowski.
inline MetricParams metric_params(Metric metric, std::int64_t d, std::uint64_t seed) {
  MetricParams p;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  if (metric == Metric::kSEuclidean) {
    for (std::int64_t k = 0; k < d; ++k) p.V.push_back(u(rng));
  }
  if (metric == Metric::kMahalanobis) {  // diagonally dominant, so positive definite
    p.VI.assign(static_cast<std::size_t>(d * d), 0.0);
    for (std::int64_t i = 0; i < d; ++i) {
      for (std::int64_t j = i; j < d; ++j) {
        double const v = i == j ? static_cast<double>(d) + u(rng) : u(rng) - 1.25;
        p.VI[i * d + j] = p.VI[j * d + i] = v;
      }
    }
  }
  if (metric == Metric::kMinkowski) p.p = 3.0;
  return p;
}

/// Rows [begin, end) of a reference matrix.
/// The batch of problems whose x and y have these numbers of rows, in order.
inline Batch batch_of(std::vector<std::int64_t> const& rows_x, std::vector<std::int64_t> const& rows_y) {
  Batch batch{{0}, {0}};
  for (std::size_t b = 0; b < rows_x.size(); ++b) {
    batch.x_offsets.push_back(batch.x_offsets.back() + rows_x[b]);
    batch.y_offsets.push_back(batch.y_offsets.back() + rows_y[b]);
  }
  return batch;
}

/// The first `rows` rows (all by default) of a uint8 descriptor file of the test data, with their
/// float64 values.
inline TestMatrix descriptor_rows(char const* file, std::int64_t rows = std::numeric_limits<std::int64_t>::max()) {
  Array const all = io::read_npy(data_path(std::string("descriptors/") + file));
  rows = rows < all.rows() ? rows : all.rows();
  TestMatrix t{Array::copy_of(ConstMatrixView(all.data(), rows, all.cols(), all.cols(), DType::kUInt8, Memory::kHost),
                              Device::cpu()),
               {rows, all.cols(), {}}};
  for (std::int64_t e = 0; e < rows * all.cols(); ++e) t.values.v.push_back(all.data_as<std::uint8_t>()[e]);
  return t;
}

inline reference::Matrix rows_of(reference::Matrix const& m, std::int64_t begin, std::int64_t end) {
  reference::Matrix out{end - begin, m.cols, {}};
  for (std::int64_t e = begin * m.cols; e < end * m.cols; ++e) out.v.push_back(m.v[e]);
  return out;
}

/// Columns [begin, end) of a reference matrix.
inline reference::Matrix columns_of(reference::Matrix const& m, std::int64_t begin, std::int64_t end) {
  reference::Matrix out{m.rows, end - begin, {}};
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t c = begin; c < end; ++c) out.v.push_back(m(i, c));
  return out;
}

inline std::string label(Metric metric, DType dtype, std::int64_t m, std::int64_t n, std::int64_t d,
                         std::int64_t k) {
  return std::string(metric_name(metric)) + " " + std::string(dtype_name(dtype)) + " m=" +
         std::to_string(m) + " n=" + std::to_string(n) + " d=" + std::to_string(d) +
         " k=" + std::to_string(k);
}

}  // namespace cudist::test
