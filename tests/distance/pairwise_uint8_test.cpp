// uint8 cdist / pdist of squared L2, euclidean and inner product. On a GPU with int8 tensor cores,
// rows of whole 32-bit words run the tensor-core contraction (packed_u8_mma_store.cu: full outputs
// of rows of whole 16-byte chunks up to 256 bytes stored from the MMA's registers, the rest through
// the SIMT engine's store); other rows, and older GPUs, the SIMT engine. Both are exact integer arithmetic, so the tests ask for the
// same bits from both (the same rows read one byte off a word boundary take the SIMT path) and
// for the float64 reference's values, on ragged shapes around the 128 x 128 tile, the 32-byte MMA
// step and the 128-byte slab, in full and condensed layouts and in output windows. Built once per
// backend; the CUDA binary also runs forced portable (SIMT on both sides).
#include <gtest/gtest.h>

#include <cstdint>

#include "common/reduced.hpp"
#include "distance/byte_rows.hpp"
#include "reference/pairwise_ref.hpp"

namespace cudist {
namespace {

using test::kRounded;
using test::label;
using test::Shape;
using test::TestMatrix;
using test::unaligned;
// d: one word, one MMA step and a word, a slab, a slab and a word, two slabs, two slabs and a
// word, eight slabs and a word (the slab loop); m and n around the 128-row tiles.
constexpr Shape kShapes[] = {{1, 1, 4},       {2, 31, 36},  {33, 129, 128}, {130, 300, 132},
                             {129, 257, 256}, {64, 200, 260}, {17, 140, 1028}, {300, 7, 8}};

constexpr Metric kMetrics[] = {Metric::kSqEuclidean, Metric::kEuclidean, Metric::kInnerProduct};

/// Values up to `hi`: products of the largest values keep every inner product below 2^24, where
/// float32 holds the exact integer.
TestMatrix data(std::int64_t rows, Shape s, Metric metric, std::uint64_t seed) {
  int const hi = metric == Metric::kInnerProduct && s.d > 128 ? 60 : 255;
  return test::random_integers(rows, s.d, DType::kUInt8, 0, hi, seed);
}

TEST(PairwiseUint8, WordRowsGiveTheSimtBitsAndTheReferenceValues) {
  CUDIST_REQUIRE_BACKEND();
  test::CombinationSampler sample(2);
  for (Shape const s : kShapes) {
    for (Metric metric : kMetrics) {
      if (!sample.keep()) continue;
      SCOPED_TRACE(label(metric, s));
      TestMatrix const x = data(s.m, s, metric, 100 + s.m + s.d), y = data(s.n, s, metric, 200 + s.n + s.d);
      Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
      Array const words = cdist(test::backend_resources(), xb, yb, metric);
      Array xu, yu;
      Array const simt = cdist(test::backend_resources(), unaligned(x, xu), unaligned(y, yu), metric);
      EXPECT_TRUE(test::identical(words, simt));
      EXPECT_TRUE(test::matches(test::to_host(words), reference::cdist(x.values, y.values, metric), kRounded));
    }
  }
}

// Enough row tiles that each GPU block walks several column tiles (about 8 blocks per SM are
// launched: 33 row tiles x 70 column tiles gives runs of 3), pipelining the next y tile while it
// stores the current one; the last run of a row is short, and condensed rows start mid-run. Rows of
// 36 bytes (words) and of 48 (16-byte chunks: the full layout stored from the MMA's registers).
TEST(PairwiseUint8, BlocksWalkingRunsOfTilesGiveTheSimtBits) {
  CUDIST_REQUIRE_BACKEND();
  if (!test::backend_device().is_cuda()) GTEST_SKIP() << "the GPU's tile runs";
  test::CombinationSampler sample(2);
  for (Shape const s : {Shape{4205, 8903, 36}, Shape{4205, 8903, 48}}) {
    for (Metric metric : kMetrics) {
      if (!sample.keep()) continue;
      SCOPED_TRACE(label(metric, s));
      TestMatrix const x = data(s.m, s, metric, 51), y = data(s.n, s, metric, 52);
      Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
      Array xu, yu;
      ConstMatrixView const xs = unaligned(x, xu), ys = unaligned(y, yu);
      Resources const res = test::backend_resources();
      EXPECT_TRUE(test::identical(cdist(res, xb, yb, metric), cdist(res, xs, ys, metric)));
      if (metric != Metric::kInnerProduct) {
        EXPECT_TRUE(test::identical(pdist(res, xb, metric), pdist(res, xs, metric)));
      }
    }
  }
}

TEST(PairwiseUint8, SelfDistancesAndCondensedOutput) {
  CUDIST_REQUIRE_BACKEND();
  for (Shape const s : {Shape{257, 257, 128}, Shape{130, 130, 36}, Shape{3, 3, 260}}) {
    for (Metric metric : kMetrics) {
      SCOPED_TRACE(label(metric, s));
      TestMatrix const x = data(s.m, s, metric, 300 + s.m);
      Array const xb = test::to_backend(x.array);
      Array const full = test::to_host(cdist(test::backend_resources(), xb, xb, metric));
      Array const condensed = test::to_host(pdist(test::backend_resources(), xb, metric));
      EXPECT_TRUE(test::matches(full, reference::cdist(x.values, x.values, metric), kRounded));
      EXPECT_TRUE(test::matches(condensed, reference::pdist(x.values, metric), kRounded));
      Array xu;
      EXPECT_TRUE(test::identical(condensed, test::to_host(pdist(test::backend_resources(), unaligned(x, xu), metric))));
    }
  }
}

TEST(PairwiseUint8, OutputWindowsEqualTheWholeCall) {
  CUDIST_REQUIRE_BACKEND();
  for (Shape const s : {Shape{300, 141, 132}, Shape{300, 141, 128}}) {
    TestMatrix const x = data(s.m, s, Metric::kEuclidean, 41), y = data(s.n, s, Metric::kEuclidean, 42);
    for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean}) {
      SCOPED_TRACE(label(metric, s));
      test::expect_windows_equal_the_whole_call(x, y, metric);
    }
  }
}

// An output view whose rows are not 16-byte aligned takes every tile's per-entry stores; n = 256
// and 250 (whole and ragged tiles).
TEST(PairwiseUint8, IntoAnOutputViewWithAStride) {
  CUDIST_REQUIRE_BACKEND();
  for (std::int64_t const n : {256, 250}) {
    Shape const s{131, n, 128};
    for (Metric metric : kMetrics) {
      SCOPED_TRACE(label(metric, s));
      test::expect_strided_output(data(s.m, s, metric, 61), data(s.n, s, metric, 62), metric);
    }
  }
}

}  // namespace
}  // namespace cudist
