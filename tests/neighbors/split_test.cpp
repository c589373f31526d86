// knn, match and radius split over several shards (src/neighbors/split_select.cpp) give exactly
// the unsplit call's answer: same values, same indices, same order, bit for bit. The shards are
// copies of the backend under test (the public API takes GPUs only; the split layer takes any
// Resources), so one GPU or the CPU exercises the whole split-and-merge path: ties, NaN and inf
// rows, k larger than a shard, empty shards (more shards than rows of y), padding, every metric.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/backend.hpp"
#include "common/compare.hpp"
#include "common/data.hpp"
#include "common/progress_count.hpp"
#include "common/reduced.hpp"
#include "core/detail/split.hpp"
#include "cudist/core/error.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/detail/plan.hpp"
#include "neighbors/detail/split_select.hpp"
#include "neighbors/neighbors_test_util.hpp"

namespace cudist {
namespace {

using neighbors::detail::split_knn;
using neighbors::detail::split_match;
using neighbors::detail::split_radius;

std::vector<Resources> shards_of(std::size_t n) {
  return std::vector<Resources>(n, test::backend_resources());
}

/// Rows of NaN and inf in a host float32/float64 matrix: row 1 all NaN, row 3 one inf, when present.
void poison(Array& a) {
  if (a.dtype() != DType::kFloat32 && a.dtype() != DType::kFloat64) return;
  for (std::int64_t j = 0; j < a.cols(); ++j) {
    if (a.rows() > 1) test::store(a, 1 * a.cols() + j, std::numeric_limits<double>::quiet_NaN());
  }
  if (a.rows() > 3) test::store(a, 3 * a.cols(), std::numeric_limits<double>::infinity());
}

void expect_knn_split_exact(Array const& x, Array const& y, std::int64_t k, Metric metric,
                            KnnOptions const& options, std::size_t shards, std::string const& label) {
  Array const xb = test::to_backend(x), yb = test::to_backend(y);
  KnnResult const want = knn(test::backend_resources(), xb, yb, k, metric, options);
  KnnResult const got = split_knn("knn", shards_of(shards), xb, yb, k, metric, options);
  EXPECT_TRUE(test::identical(got, want)) << label;
  // Merged straight into host outputs whose rows are wider than k.
  Array d_out = Array::allocate(x.rows(), k + 2, want.distances.dtype(), Device::cpu());
  Array i_out = Array::allocate(x.rows(), k + 2, DType::kInt64, Device::cpu());
  MatrixView const d_view{d_out.data(), x.rows(), k, k + 2, d_out.dtype(), Memory::kHost};
  MatrixView const i_view{i_out.data(), x.rows(), k, k + 2, DType::kInt64, Memory::kHost};
  split_knn("knn", shards_of(shards), xb, yb, k, metric, options, d_view, i_view);
  EXPECT_TRUE(test::identical(ConstMatrixView(d_view), want.distances.view())) << label << ", into host views";
  EXPECT_TRUE(test::identical(ConstMatrixView(i_view), want.indices.view())) << label << ", into host views";
}

std::string label_of(Metric metric, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k,
                     std::size_t shards) {
  return std::string(metric_name(metric)) + " " + std::string(dtype_name(dtype)) + " m=" +
         std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
         " shards=" + std::to_string(shards);
}

TEST(SplitRows, CoverInOrderWithBalancedSizes) {
  for (std::int64_t n : {0, 1, 2, 7, 100, 101}) {
    for (std::size_t parts : {1u, 2u, 3u, 8u}) {
      auto const ranges = detail::split_rows(n, parts);
      ASSERT_EQ(ranges.size(), parts);
      std::int64_t at = 0;
      for (auto const& r : ranges) {
        EXPECT_EQ(r.begin, at);
        EXPECT_GE(r.size(), n / static_cast<std::int64_t>(parts));
        EXPECT_LE(r.size(), n / static_cast<std::int64_t>(parts) + 1);
        at = r.end;
      }
      EXPECT_EQ(at, n);
    }
  }
}

TEST(RunParts, FirstFailureIsRethrownAfterEveryPartFinished) {
  CUDIST_REQUIRE_BACKEND();
  std::vector<int> ran(4, 0);
  try {
    detail::run_parts("test", shards_of(4), [&](std::size_t s) {
      ran[s] = 1;
      if (s == 1) throw OutOfMemory("part 1 ran out of memory");
    });
    FAIL() << "expected the part's error";
  } catch (OutOfMemory const& e) {
    EXPECT_NE(std::string(e.what()).find("part 1"), std::string::npos);
  }
  EXPECT_EQ(ran[0] + ran[1], 2);
}

TEST(RunParts, NestedAndSimultaneousCallsAllRun) {
  // GPU shards' parts run on host threads kept for the process; a part that runs parts itself,
  // and a call from another thread while they are busy, get threads of their own instead of
  // waiting for the busy ones (which would never come back to them).
  CUDIST_REQUIRE_BACKEND();
  std::vector<Resources> const shards = shards_of(2);
  std::atomic<int> ran{0};
  auto const inner = [&](std::size_t) { ++ran; };
  auto const outer = [&](std::size_t) {
    detail::run_parts("test", shards, inner);
    ++ran;
  };
  constexpr int kCalls = 50;
  std::thread other([&] {
    for (int i = 0; i < kCalls; ++i) detail::run_parts("test", shards, outer);
  });
  for (int i = 0; i < kCalls; ++i) detail::run_parts("test", shards, outer);
  other.join();
  EXPECT_EQ(ran.load(), 2 * kCalls * 2 * (2 + 1));
}

// Integer data (full of ties) and reals with NaN / inf rows, for every metric the knn tests cover,
// split 2 and 7 ways (7 > rows of y in the smallest case: empty shards).
TEST(SplitKnn, EqualsTheUnsplitCallForEveryMetric) {
  CUDIST_REQUIRE_BACKEND();
  Metric const metrics[] = {Metric::kEuclidean, Metric::kSqEuclidean, Metric::kCityblock,
                            Metric::kChebyshev, Metric::kMinkowski, Metric::kCosine,
                            Metric::kCorrelation, Metric::kCanberra, Metric::kBraycurtis,
                            Metric::kJensenShannon, Metric::kSEuclidean, Metric::kMahalanobis,
                            Metric::kHamming, Metric::kJaccard, Metric::kDice, Metric::kYule,
                            Metric::kInnerProduct};
  test::CombinationSampler sample(5);
  std::uint64_t seed = 7;
  for (Metric metric : metrics) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      for (std::size_t shards : {2u, 7u}) {
        if (!sample.keep()) continue;
        std::int64_t const m = 33, n = 5 + 29 * static_cast<std::int64_t>(shards), d = 13;
        test::TestMatrix x = test::metric_data(metric, m, d, dtype, ++seed);
        test::TestMatrix y = test::metric_data(metric, n, d, dtype, ++seed);
        poison(x.array);
        poison(y.array);
        KnnOptions options;
        options.params = test::metric_params(metric, d, seed);
        for (std::int64_t k : {3, 40}) {  // 40: more than most shards hold
          expect_knn_split_exact(x.array, y.array, k, metric, options, shards,
                                 label_of(metric, dtype, m, n, k, shards));
        }
      }
    }
  }
}

// Host rows of y whose parts exceed each shard's memory budget: every shard streams its part
// in chunks (database_chunks.hpp), ranking on the keys, and the merged answer is still the
// unsplit call's, bit for bit: knn, a self-join, and match with the mutual check (whose second
// pass takes x as the database).
TEST(SplitKnn, PartsBeyondTheShardsBudgetStreamInChunks) {
  CUDIST_REQUIRE_BACKEND();
  test::ProgressCount const chunks;  // the chunked path reports one per chunk
  std::vector<Resources> shards = shards_of(3);
  for (Resources& shard : shards) shard.memory_budget = 4096;  // a part of y is ~24 KB
  test::TestMatrix const x = test::random_integers(37, 9, DType::kFloat32, -3, 3, 61);
  test::TestMatrix const y = test::random_integers(1000, 9, DType::kFloat32, -3, 3, 62);
  for (Metric metric : {Metric::kEuclidean, Metric::kCityblock, Metric::kInnerProduct}) {
    for (std::int64_t k : {1, 5, 40}) {
      KnnResult const want = knn(test::backend_resources(), x.array, y.array, k, metric);
      KnnResult const got = split_knn("knn", shards, x.array, y.array, k, metric, {});
      EXPECT_TRUE(test::identical(got, want)) << metric_name(metric) << " k=" << k;
    }
  }
  KnnResult const self_want = self_knn(test::backend_resources(), y.array, 4, Metric::kEuclidean);
  KnnResult const self_got = neighbors::detail::split_self_knn("self_knn", shards, y.array, 4, Metric::kEuclidean, {}, true);
  EXPECT_TRUE(test::identical(self_got, self_want)) << "self-join";
  MatchOptions mutual;
  mutual.mutual = true;
  mutual.ratio = 1.0;
  MatchResult const match_want = match(test::backend_resources(), x.array, y.array, Metric::kEuclidean, mutual);
  MatchResult const match_got = split_match("match", shards, x.array, y.array, Metric::kEuclidean, mutual);
  EXPECT_TRUE(test::identical(match_got, match_want)) << "match, mutual";
  EXPECT_GT(chunks.seen(), 9 * 3) << "the shards streamed their parts";  // >= 5 chunks a part
}

// Many queries against a database every shard holds: the queries are split (each shard writes
// its rows of the answer, no merge), and the answer is the unsplit call's bit for bit, with NaN
// and inf rows among the queries, ties (integer values), padding, host outputs with a row stride,
// and a shard budget too small for y, which turns the split back to y's parts.
TEST(SplitKnn, ManyQueriesSplitTheQueries) {
  CUDIST_REQUIRE_BACKEND();
  std::int64_t const m = 2 * 2048 + 77, n = 301, d = 7;
  test::TestMatrix x = test::random_integers(m, d, DType::kFloat32, -4, 4, 71);
  test::TestMatrix const y = test::random_integers(n, d, DType::kFloat32, -4, 4, 72);
  poison(x.array);
  std::vector<Resources> shards = shards_of(2);
  EXPECT_TRUE(neighbors::detail::splits_queries(shards, x.array, y.array, Metric::kEuclidean));
  EXPECT_FALSE(neighbors::detail::splits_queries(shards_of(3), x.array, y.array, Metric::kEuclidean))
      << "fewer than 2048 queries a shard";
  for (Metric metric : {Metric::kEuclidean, Metric::kCityblock, Metric::kInnerProduct}) {
    for (std::int64_t k : {1, 6}) {
      KnnResult const want = knn(test::backend_resources(), x.array, y.array, k, metric);
      std::int64_t const stride = k + 3;
      Array d_out = Array::allocate(m, stride, distance_output_dtype(DType::kFloat32), Device::cpu());
      Array i_out = Array::allocate(m, stride, DType::kInt64, Device::cpu());
      MatrixView const d_view{d_out.data(), m, k, stride, d_out.dtype(), Memory::kHost};
      MatrixView const i_view{i_out.data(), m, k, stride, DType::kInt64, Memory::kHost};
      neighbors::detail::split_knn_queries("knn", shards, x.array, y.array, k, metric, {}, d_view, i_view);
      Array d_got = Array::allocate(m, k, d_out.dtype(), Device::cpu());
      Array i_got = Array::allocate(m, k, DType::kInt64, Device::cpu());
      copy(d_view, d_got.view());
      copy(i_view, i_got.view());
      EXPECT_TRUE(test::identical(KnnResult{std::move(d_got), std::move(i_got)}, want))
          << metric_name(metric) << " k=" << k;
    }
  }
  KnnOptions pad;
  pad.pad = true;
  test::TestMatrix const few = test::random_integers(4, d, DType::kFloat32, -4, 4, 73);
  KnnResult const padded_want = knn(test::backend_resources(), x.array, few.array, 9, Metric::kEuclidean, pad);
  Array d_pad = Array::allocate(m, 9, DType::kFloat32, Device::cpu());
  Array i_pad = Array::allocate(m, 9, DType::kInt64, Device::cpu());
  neighbors::detail::split_knn_queries("knn", shards, x.array, few.array, 9, Metric::kEuclidean, pad,
                                       d_pad.view(), i_pad.view());
  EXPECT_TRUE(test::identical(KnnResult{std::move(d_pad), std::move(i_pad)}, padded_want)) << "padded";
  // Outputs in the backend's memory: on a GPU, each shard writes its rows there itself (shards on
  // one GPU count as peer-linked), and they are complete when the call returns.
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  Array d_dev = Array::allocate(m, 6, DType::kFloat32, test::backend_device());
  Array i_dev = Array::allocate(m, 6, DType::kInt64, test::backend_device());
  neighbors::detail::split_knn_queries("knn", shards, xb, yb, 6, Metric::kEuclidean, {}, d_dev.view(), i_dev.view());
  KnnResult const on_backend{Array::copy_of(d_dev.view(), Device::cpu()), Array::copy_of(i_dev.view(), Device::cpu())};
  EXPECT_TRUE(test::identical(on_backend, knn(test::backend_resources(), x.array, y.array, 6, Metric::kEuclidean)))
      << "outputs in the backend's memory";
  for (Resources& shard : shards) shard.memory_budget = 4096;  // y is ~8 KB, with its copies more
  EXPECT_FALSE(neighbors::detail::splits_queries(shards, x.array, y.array, Metric::kEuclidean));
}

TEST(SplitKnn, QueriesSplitAgainstADatabaseStreamedFromHostMemory) {
  // y in host memory large enough that each shard's search streams it (plan.hpp,
  // streams_database): every shard copies all of it while it searches, concurrently (two shards
  // on one GPU, or every GPU), instead of the parts' upload and exchange. The same answers as one
  // device's call, into host views and through the API on every GPU, also from rows one byte off
  // their floats (copied byte for byte like any host rows of a GPU call).
  CUDIST_REQUIRE_BACKEND();
  if (!test::backend_device().is_cuda()) GTEST_SKIP() << "the streamed database is the CUDA search's";
  std::int64_t const m = 2 * 2048 + 77, d = 64;
  std::int64_t const n = static_cast<std::int64_t>(neighbors::detail::kStreamedDatabaseBytes / (d * sizeof(float))) + 555;
  test::TestMatrix const x = test::random_integers(m, d, DType::kFloat32, -3, 3, 81);
  test::TestMatrix const y = test::random_integers(n, d, DType::kFloat32, -3, 3, 82);
  std::vector<Resources> const shards = shards_of(2);
  ASSERT_TRUE(neighbors::detail::streams_database(shards[0], y.array.view(), Metric::kEuclidean, {}));
  ASSERT_TRUE(neighbors::detail::splits_queries(shards, x.array, y.array, Metric::kEuclidean));
  for (Metric metric : {Metric::kEuclidean, Metric::kInnerProduct}) {
    KnnResult const want = knn(test::backend_resources(), x.array, y.array, 10, metric);
    Array d_got = Array::allocate(m, 10, DType::kFloat32, Device::cpu());
    Array i_got = Array::allocate(m, 10, DType::kInt64, Device::cpu());
    neighbors::detail::split_knn_queries("knn", shards, x.array, y.array, 10, metric, {}, d_got.view(), i_got.view());
    EXPECT_TRUE(test::identical(KnnResult{std::move(d_got), std::move(i_got)}, want)) << metric_name(metric);
    EXPECT_TRUE(test::identical(knn(test::all_backend_devices(), x.array, y.array, 10, metric), want))
        << metric_name(metric) << ", every GPU";
    std::vector<unsigned char> x_bytes, y_bytes;
    EXPECT_TRUE(test::identical(knn(test::all_backend_devices(), test::one_byte_off(x.array, x_bytes),
                                    test::one_byte_off(y.array, y_bytes), 10, metric),
                                want))
        << metric_name(metric) << ", every GPU, rows one byte off their floats";
  }
}

TEST(SplitKnn, TiesKeepTheSmallerIndexAcrossShards) {
  CUDIST_REQUIRE_BACKEND();
  // Every row of y equal: every distance ties, so the answer is indices 0..k-1 from several shards.
  test::TestMatrix const x = test::random_integers(9, 4, DType::kFloat32, 0, 3, 1);
  Array y = Array::allocate(20, 4, DType::kFloat32, Device::cpu());
  for (std::int64_t e = 0; e < y.size(); ++e) y.data_as<float>()[e] = 2.0f;
  for (std::size_t shards : {2u, 3u, 5u}) {
    expect_knn_split_exact(x.array, y, 12, Metric::kEuclidean, {}, shards, "all tied");
    expect_knn_split_exact(x.array, y, 12, Metric::kInnerProduct, {}, shards, "all tied, similarity");
  }
  test::TestMatrix const xi = test::random_integers(40, 6, DType::kUInt8, 0, 3, 2);
  test::TestMatrix const yi = test::random_integers(61, 6, DType::kUInt8, 0, 3, 3);
  for (Metric metric : {Metric::kEuclidean, Metric::kSqEuclidean, Metric::kCityblock}) {
    expect_knn_split_exact(xi.array, yi.array, 10, metric, {}, 4, label_of(metric, DType::kUInt8, 40, 61, 10, 4));
  }
  test::TestMatrix const xb = test::random_integers(30, 8, DType::kUInt8, 0, 255, 4);
  test::TestMatrix const yb = test::random_integers(45, 8, DType::kUInt8, 0, 255, 5);
  expect_knn_split_exact(xb.array, yb.array, 7, Metric::kHammingBits, {}, 3, "hamming_bits");
}

TEST(SplitKnn, PaddingAndEmptyInputs) {
  CUDIST_REQUIRE_BACKEND();
  test::TestMatrix const x = test::random_reals(6, 3, DType::kFloat32, -1, 1, 8);
  test::TestMatrix const y = test::random_reals(4, 3, DType::kFloat32, -1, 1, 9);
  KnnOptions pad;
  pad.pad = true;
  expect_knn_split_exact(x.array, y.array, 9, Metric::kEuclidean, pad, 3, "k > n, padded");
  test::TestMatrix const none = test::random_reals(0, 3, DType::kFloat32, -1, 1, 10);
  expect_knn_split_exact(none.array, y.array, 2, Metric::kEuclidean, {}, 2, "no queries");
  expect_knn_split_exact(x.array, none.array, 2, Metric::kEuclidean, pad, 2, "no database rows");
}

// Self-joins: knn(x, x) keeps each point at the self-join's value (exact 0 for a distance where
// finite, though cosine or correlation of x against a copy of itself need not give 0), and
// self_knn(kExcludeSelf) drops it; both split over the rows of x.
TEST(SplitSelfKnn, EqualsTheUnsplitSelfJoin) {
  CUDIST_REQUIRE_BACKEND();
  test::CombinationSampler sample(3);
  std::uint64_t seed = 60;
  for (Metric metric : {Metric::kEuclidean, Metric::kCosine, Metric::kCorrelation,
                        Metric::kInnerProduct, Metric::kCityblock}) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      for (std::size_t shards : {2u, 60u}) {  // 60 > rows: empty parts
        if (!sample.keep()) continue;
        test::TestMatrix x = test::random_reals(47, 9, dtype, -1, 1, ++seed);
        poison(x.array);
        for (std::int64_t r = 10; r < 20; ++r) {  // duplicate rows: ties at distance 0 with others
          for (std::int64_t j = 0; j < 9; ++j) test::store(x.array, r * 9 + j, test::value_at(x.array, j + 9 * 5));
        }
        Array const xb = test::to_backend(x.array);
        std::string const label = label_of(metric, dtype, 47, 47, 0, shards);
        KnnOptions pad;
        pad.pad = true;
        for (std::int64_t k : {12, 50}) {  // 50 > rows: padded
          KnnResult const want = knn(test::backend_resources(), xb, xb, k, metric, pad);
          KnnResult const got = neighbors::detail::split_self_knn("knn", shards_of(shards), xb, k,
                                                                  metric, pad, false);
          EXPECT_TRUE(test::identical(got, want)) << label << " k=" << k;
          for (SelfJoin self : {SelfJoin::kExcludeSelf, SelfJoin::kIncludeSelf}) {
            KnnResult const w = self_knn(test::backend_resources(), xb, k, metric, self, pad);
            KnnResult const g = neighbors::detail::split_self_knn(
                "self_knn", shards_of(shards), xb, k, metric, pad, self == SelfJoin::kExcludeSelf);
            std::string const which = self == SelfJoin::kExcludeSelf ? " excluding self" : " including self";
            EXPECT_TRUE(test::identical(g, w)) << label << " k=" << k << which;
          }
        }
      }
    }
  }
}

// Batches: whole problems per shard (some problems without queries or candidates, more shards
// than problems); a batched self-join (x is y, same offsets) keeps its zero diagonal.
TEST(SplitBatched, EqualsTheUnsplitCall) {
  CUDIST_REQUIRE_BACKEND();
  test::TestMatrix x = test::random_integers(60, 5, DType::kFloat32, 0, 3, 70);
  test::TestMatrix y = test::random_integers(75, 5, DType::kFloat32, 0, 3, 71);
  poison(x.array);
  Batch const batch{{0, 10, 10, 31, 45, 60}, {0, 20, 33, 33, 50, 75}};
  Batch const self_batch{{0, 10, 10, 31, 45, 60}, {0, 10, 10, 31, 45, 60}};
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  KnnOptions pad;
  pad.pad = true;
  MatchOptions mutual;
  mutual.mutual = true;
  mutual.ratio = 0.9;
  for (std::size_t shards : {2u, 3u, 9u}) {
    std::string const label = "shards=" + std::to_string(shards);
    KnnResult const want = knn_batched(test::backend_resources(), xb, yb, batch, 4, Metric::kEuclidean, pad);
    KnnResult const got = neighbors::detail::split_knn_batched("knn_batched", shards_of(shards), xb, yb,
                                                               batch, 4, Metric::kEuclidean, pad);
    EXPECT_TRUE(test::identical(got, want)) << label;
    KnnResult const self_want = knn_batched(test::backend_resources(), xb, xb, self_batch, 3, Metric::kCosine, pad);
    KnnResult const self_got = neighbors::detail::split_knn_batched(
        "knn_batched", shards_of(shards), xb, xb, self_batch, 3, Metric::kCosine, pad);
    EXPECT_TRUE(test::identical(self_got, self_want)) << label << " (self-join)";
    MatchResult const m_want = match_batched(test::backend_resources(), xb, yb, batch, Metric::kCityblock, mutual);
    MatchResult const m_got = neighbors::detail::split_match_batched("match_batched", shards_of(shards), xb, yb,
                                                                     batch, Metric::kCityblock, mutual);
    EXPECT_TRUE(test::identical(m_got, m_want)) << label;
  }
}

TEST(SplitMatch, EqualsTheUnsplitCall) {
  CUDIST_REQUIRE_BACKEND();
  std::uint64_t seed = 40;
  for (bool mutual : {false, true}) {
    for (double ratio : {0.8, 1.0}) {
      for (std::size_t shards : {2u, 3u, 6u}) {
        // Integers in a small range: many exact ties between best, second best and reverse best.
        test::TestMatrix x = test::random_integers(57, 5, DType::kFloat32, 0, 4, ++seed);
        test::TestMatrix y = test::random_integers(43, 5, DType::kFloat32, 0, 4, ++seed);
        poison(x.array);
        poison(y.array);
        MatchOptions options;
        options.ratio = ratio;
        options.mutual = mutual;
        options.max_distance = mutual ? 4.0 : std::numeric_limits<double>::infinity();
        for (Metric metric : {Metric::kEuclidean, Metric::kCityblock}) {
          Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
          MatchResult const want = match(test::backend_resources(), xb, yb, metric, options);
          MatchResult const got = split_match("match", shards_of(shards), xb, yb, metric, options);
          std::string const label = std::string(metric_name(metric)) + " mutual=" +
                                    std::to_string(mutual) + " ratio=" + std::to_string(ratio) +
                                    " shards=" + std::to_string(shards);
          EXPECT_TRUE(test::identical(got, want)) << label;
        }
      }
    }
  }
}

TEST(SplitRadius, EqualsTheUnsplitCall) {
  CUDIST_REQUIRE_BACKEND();
  std::uint64_t seed = 80;
  for (std::size_t shards : {2u, 3u, 50u}) {
    test::TestMatrix x = test::random_integers(31, 4, DType::kFloat32, 0, 3, ++seed);
    test::TestMatrix y = test::random_integers(47, 4, DType::kFloat32, 0, 3, ++seed);
    poison(x.array);
    poison(y.array);
    for (Metric metric : {Metric::kEuclidean, Metric::kInnerProduct, Metric::kChebyshev}) {
      Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
      RadiusResult const want = radius(test::backend_resources(), xb, yb, 2.0, metric);
      RadiusResult const got = split_radius("radius", shards_of(shards), xb, yb, 2.0, metric, {});
      std::string const label = std::string(metric_name(metric)) + " shards=" + std::to_string(shards);
      EXPECT_TRUE(test::identical(got, want)) << label;
    }
  }
}

// The public API: "cuda:all" (every GPU present: a real split on a machine with several; the CPU
// without a GPU, which is no set) gives the single-device answer, inputs in host and in device
// memory (which each other GPU copies from the first).
TEST(DeviceSetApi, AllDevicesGiveTheSingleDeviceAnswer) {
  CUDIST_REQUIRE_BACKEND();
  Resources const one = test::backend_resources();
  Resources const all = test::all_backend_devices();
  test::TestMatrix const x = test::random_reals(50, 16, DType::kFloat32, -1, 1, 90);
  test::TestMatrix const y = test::random_reals(301, 16, DType::kFloat32, -1, 1, 91);
  for (bool on_device : {false, true}) {
    Array const xb = on_device ? test::to_backend(x.array) : x.array;
    Array const yb = on_device ? test::to_backend(y.array) : y.array;
    KnnResult const want = knn(one, xb, yb, 10, Metric::kEuclidean);
    KnnResult const got = knn(all, xb, yb, 10, Metric::kEuclidean);
    EXPECT_TRUE(test::identical(got, want)) << "knn";
    KnnResult const self_want = self_knn(one, yb, 7, Metric::kCosine);
    KnnResult const self_got = self_knn(all, yb, 7, Metric::kCosine);
    EXPECT_TRUE(test::identical(self_got, self_want)) << "self_knn";
    MatchOptions mutual;
    mutual.mutual = true;
    mutual.ratio = 0.9;
    MatchResult const m_want = match(one, xb, yb, Metric::kEuclidean, mutual);
    MatchResult const m_got = match(all, xb, yb, Metric::kEuclidean, mutual);
    EXPECT_TRUE(test::identical_fields({{"pairs", m_got.pairs, m_want.pairs},
                                        {"distances", m_got.distances, m_want.distances}}))
        << "match";
    RadiusResult const r_want = radius(one, xb, yb, 4.5, Metric::kEuclidean);
    RadiusResult const r_got = radius(all, xb, yb, 4.5, Metric::kEuclidean);
    EXPECT_TRUE(test::identical(r_got, r_want)) << "radius";
  }
}

TEST(DeviceSetApi, EstimatedParametersAndMissingGpusAreClearErrors) {
  CUDIST_REQUIRE_BACKEND();
  Resources const two(DeviceSet(std::vector<Device>{Device::cuda(0), Device::cuda(1)}));
  test::TestMatrix const x = test::random_reals(6, 3, DType::kFloat32, -1, 1, 95);
  Array const& a = x.array;
  auto message_of = [](auto&& call) {
    try {
      call();
    } catch (Error const& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  MetricParams none;
  std::string const estimate = message_of([&] {
    test::TestMatrix const y = test::random_reals(5, 3, DType::kFloat32, -1, 1, 96);
    knn(two, a, y.array, 2, Metric::kSEuclidean, KnnOptions{none, false});
  });
  EXPECT_NE(estimate.find("needs V"), std::string::npos) << estimate;
  if (cuda_device_count() < 2) {  // a set naming a GPU that is not there
    test::TestMatrix const y = test::random_reals(5, 3, DType::kFloat32, -1, 1, 97);
    EXPECT_THROW(knn(two, a, y.array, 2, Metric::kEuclidean), DeviceUnavailable);
  }
}

}  // namespace
}  // namespace cudist
