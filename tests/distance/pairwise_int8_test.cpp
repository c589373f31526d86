// int8 cdist / pdist (quantised embeddings). Squared L2, euclidean, cityblock, chebyshev and inner
// product run on the exact integer path (int32 arithmetic, rounded once to float32): on a GPU with
// int8 tensor cores, squared L2, euclidean and inner product of rows of whole 32-bit words run the
// s8 MMA contraction (packed_u8_mma_store.cu), other rows the SIMT engine. Every other metric
// reads a float32 copy of the same values. So the tests ask for the float64 reference's values to
// one float32 rounding for the first group, on ragged shapes and at the largest depth whose sums
// int32 holds, for the SIMT bits from word rows, and for the float32 copy's bits for the second
// group. Built once per backend.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "common/expect_error.hpp"
#include "distance/byte_rows.hpp"
#include "reference/pairwise_ref.hpp"

namespace cudist {
namespace {

using test::kRounded;
using test::label;
using test::Shape;
using test::TestMatrix;
using test::unaligned;
// d: one byte, a word, ragged, a slab, a slab and a byte, eight slabs and a word; m and n around
// the 64- and 128-row tiles.
constexpr Shape kShapes[] = {{1, 1, 1}, {2, 31, 4}, {33, 129, 37}, {130, 65, 128}, {64, 200, 129}, {17, 140, 1028}};

constexpr Metric kExactMetrics[] = {Metric::kSqEuclidean, Metric::kEuclidean, Metric::kCityblock,
                                    Metric::kChebyshev, Metric::kInnerProduct};

TestMatrix bytes(std::int64_t rows, std::int64_t d, std::uint64_t seed) {
  return test::random_integers(rows, d, DType::kInt8, -128, 127, seed);
}

TEST(PairwiseInt8, IntegerOpsGiveTheReferenceValues) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  for (Shape const s : kShapes) {
    TestMatrix const x = bytes(s.m, s.d, 10 + s.m + s.d), y = bytes(s.n, s.d, 20 + s.n + s.d);
    Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
    for (Metric metric : kExactMetrics) {
      SCOPED_TRACE(label(metric, s));
      Array const got = test::to_host(cdist(res, xb, yb, metric));
      EXPECT_EQ(got.dtype(), DType::kFloat32);
      EXPECT_TRUE(test::matches(got, reference::cdist(x.values, y.values, metric), kRounded));
      if (metric == Metric::kInnerProduct) continue;  // a similarity: no pdist
      EXPECT_TRUE(test::matches(test::to_host(pdist(res, xb, metric)), reference::pdist(x.values, metric), kRounded));
      Array const self = test::to_host(cdist(res, xb, xb, metric));
      for (std::int64_t i = 0; i < s.m; ++i) EXPECT_EQ(self.data_as<float>()[i * s.m + i], 0.0f) << "row " << i;
    }
  }
}

// Rows of whole words (aligned) against the same rows one byte off (SIMT): the same bits, and
// the reference's values; d of one word, one MMA step and a word, a slab, a slab and a word, past
// two slabs; m and n around the 128-row tiles; full, self and condensed layouts.
TEST(PairwiseInt8, WordRowsGiveTheSimtBits) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  for (Shape const s : {Shape{1, 1, 4}, Shape{2, 31, 36}, Shape{33, 129, 128}, Shape{130, 300, 132}, Shape{129, 257, 260}}) {
    TestMatrix const x = bytes(s.m, s.d, 40 + s.m + s.d), y = bytes(s.n, s.d, 50 + s.n + s.d);
    Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
    Array xu, yu;
    ConstMatrixView const xs = unaligned(x, xu), ys = unaligned(y, yu);
    for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean, Metric::kInnerProduct}) {
      SCOPED_TRACE(label(metric, s));
      Array const words = cdist(res, xb, yb, metric);
      EXPECT_TRUE(test::identical(words, cdist(res, xs, ys, metric)));
      EXPECT_TRUE(test::matches(test::to_host(words), reference::cdist(x.values, y.values, metric), kRounded));
      if (metric == Metric::kInnerProduct) continue;
      EXPECT_TRUE(test::identical(pdist(res, xb, metric), pdist(res, xs, metric)));
      Array const self = test::to_host(cdist(res, xb, xb, metric));
      EXPECT_TRUE(test::identical(self, test::to_host(cdist(res, xs, xs, metric))));
    }
  }
}

// 255^2 x 33025 < 2^31: the deepest rows whose squared differences int32 sums exactly. Rows of
// -128 against rows of 127 reach that sum (33024 bytes: whole words, the tensor cores' expansion
// on a GPU); one column more is summed in float32, within the float32 sum's bound d 2^-24
// (docs/accuracy.md).
TEST(PairwiseInt8, TheDeepestExactRowsOfExtremeValues) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  for (std::int64_t d : {33024, 33025, 33026}) {
    TestMatrix x = test::random_integers(2, d, DType::kInt8, -128, -128, 1);
    TestMatrix const y = test::random_integers(3, d, DType::kInt8, 127, 127, 2);
    x.values.v[0] = test::store(x.array, 0, 127);  // row 0 differs from y's rows by 255 but once
    Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
    test::Tolerance const tol = d <= 33025 ? kRounded : test::Tolerance{static_cast<double>(d) * 0x1p-24, 0};
    for (Metric metric : {Metric::kSqEuclidean, Metric::kCityblock, Metric::kChebyshev, Metric::kInnerProduct}) {
      SCOPED_TRACE(std::string(metric_name(metric)) + " d=" + std::to_string(d));
      EXPECT_TRUE(test::matches(test::to_host(cdist(res, xb, yb, metric)), reference::cdist(x.values, y.values, metric),
                                tol));
    }
  }
}

TEST(PairwiseInt8, OtherMetricsEqualTheirFloat32Copies) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  Shape const s{70, 45, 37};
  TestMatrix const x = bytes(s.m, s.d, 31), y = bytes(s.n, s.d, 32);
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  Array const xf = test::to_backend(test::float32_copy(x)), yf = test::to_backend(test::float32_copy(y));
  MetricParams p3;
  p3.p = 3;
  for (Metric metric : {Metric::kCosine, Metric::kCorrelation, Metric::kCanberra, Metric::kBraycurtis,
                        Metric::kMinkowski, Metric::kSEuclidean, Metric::kHamming, Metric::kJaccard}) {
    SCOPED_TRACE(label(metric, s));
    MetricParams const params = metric == Metric::kMinkowski ? p3 : MetricParams{};
    EXPECT_TRUE(test::identical(cdist(res, xb, yb, metric, params), cdist(res, xf, yf, metric, params)));
    EXPECT_TRUE(test::identical(pdist(res, xb, metric, params), pdist(res, xf, metric, params)));
  }
}

TEST(PairwiseInt8, BitMetricsAndMixedDtypesAreRefused) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  Array const x = test::to_backend(bytes(4, 8, 1).array);
  Array const u = test::to_backend(test::random_integers(4, 8, DType::kUInt8, 0, 255, 2).array);
  test::expect_error([&] { cdist(res, x, x, Metric::kHammingBits); }, "hamming_bits needs uint8");
  test::expect_error([&] { cdist(res, x, u, Metric::kEuclidean); }, "x is int8 but y is uint8");
}

}  // namespace
}  // namespace cudist
