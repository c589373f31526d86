// hamming_bits cdist / pdist of packed bit rows (uint8). On a GPU with tensor cores, rows of whole
// 32-bit words run the single-bit MMA (AND + popcount, |a| + |b| - 2 |a & b|:
// packed_u8_mma_store.cu; full outputs of rows of whole 16-byte chunks up to 256 bytes stored from
// its registers, the rest through the SIMT engine's store), and rows that are not words the SIMT
// engine's XOR + popcount on bytes. All are exact integer counts, so the tests ask for the same
// bits from the MMA and from the same rows read one byte off a word boundary, and for the
// reference's counts, on ragged shapes around the 128 x 128 tile, the 32-byte MMA step and the
// 128-byte slab, on rows of no and all bits, in self, condensed and windowed outputs and into a
// strided view. Built once per backend; the CUDA binary also runs forced portable.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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

constexpr Metric kBits = Metric::kHammingBits;

TestMatrix bits(std::int64_t rows, std::int64_t bytes, std::uint64_t seed) {
  return test::random_integers(rows, bytes, DType::kUInt8, 0, 255, seed);
}

// d (bytes): one 16-byte chunk, ORB's 32, a step and a half, the deepest rows stored from the
// MMA's registers (256), past them (272: slabs), words but not whole chunks (36), a single word,
// eight slabs and a word; m and n around the 128-row tiles.
constexpr Shape kShapes[] = {{1, 1, 16},     {2, 31, 32},    {33, 129, 48},  {130, 300, 32},  {129, 257, 256},
                             {64, 200, 272}, {17, 140, 36}, {300, 7, 4},    {20, 131, 1028}};

TEST(PairwiseBits, AlignedRowsGiveTheSimtBitsAndTheReferenceCounts) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  for (Shape const s : kShapes) {
    SCOPED_TRACE(label(kBits, s));
    TestMatrix const x = bits(s.m, s.d, 100 + s.m + s.d), y = bits(s.n, s.d, 200 + s.n + s.d);
    Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
    Array const aligned = cdist(res, xb, yb, kBits);
    Array xu, yu;
    ConstMatrixView const xs = unaligned(x, xu), ys = unaligned(y, yu);
    EXPECT_TRUE(test::identical(aligned, cdist(res, xs, ys, kBits)));
    EXPECT_TRUE(test::matches(test::to_host(aligned), reference::cdist(x.values, y.values, kBits), kRounded));
    EXPECT_TRUE(test::identical(pdist(res, xb, kBits), pdist(res, xs, kBits)));
  }
}

// Rows of no bits and of all bits against random ones: counts 0 and 8 d, and every row's count
// through the expansion's row sums; the self-join's diagonal exactly 0, the condensed output.
TEST(PairwiseBits, EmptyAndFullRowsSelfAndCondensed) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  for (Shape const s : {Shape{257, 257, 256}, Shape{130, 130, 32}, Shape{3, 3, 48}}) {
    SCOPED_TRACE(label(kBits, s));
    TestMatrix x = bits(s.m, s.d, 300 + s.m);
    auto* const v = static_cast<std::uint8_t*>(x.array.data());
    for (std::int64_t c = 0; c < s.d; ++c) {
      v[c] = 0;
      v[s.d + c] = 0xff;
      x.values.v[static_cast<std::size_t>(c)] = 0;
      x.values.v[static_cast<std::size_t>(s.d + c)] = 255;
    }
    Array const xb = test::to_backend(x.array);
    Array const full = test::to_host(cdist(res, xb, xb, kBits));
    EXPECT_TRUE(test::matches(full, reference::cdist(x.values, x.values, kBits), kRounded));
    EXPECT_EQ(full.data_as<float>()[1], static_cast<float>(8 * s.d));  // no bits against all bits
    for (std::int64_t i = 0; i < s.m; ++i) EXPECT_EQ(full.data_as<float>()[i * s.m + i], 0.0f) << "row " << i;
    Array const condensed = test::to_host(pdist(res, xb, kBits));
    EXPECT_TRUE(test::matches(condensed, reference::pdist(x.values, kBits), kRounded));
  }
}

// Enough row tiles that each GPU block walks several column tiles (runs of 3), the next y tile
// copied while the current one is stored; ORB's 32-byte rows.
TEST(PairwiseBits, BlocksWalkingRunsOfTilesGiveTheSimtBits) {
  CUDIST_REQUIRE_BACKEND();
  if (!test::backend_device().is_cuda()) GTEST_SKIP() << "the GPU's tile runs";
  Shape const s{4205, 8903, 32};
  TestMatrix const x = bits(s.m, s.d, 51), y = bits(s.n, s.d, 52);
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  Array xu, yu;
  Resources const res = test::backend_resources();
  EXPECT_TRUE(test::identical(cdist(res, xb, yb, kBits), cdist(res, unaligned(x, xu), unaligned(y, yu), kBits)));
}

TEST(PairwiseBits, OutputWindowsEqualTheWholeCall) {
  CUDIST_REQUIRE_BACKEND();
  test::expect_windows_equal_the_whole_call(bits(300, 64, 41), bits(141, 64, 42), kBits);
}

// An output view whose rows are not 16-byte aligned takes every tile's per-entry stores; n = 256
// and 250.
TEST(PairwiseBits, IntoAnOutputViewWithAStride) {
  CUDIST_REQUIRE_BACKEND();
  for (std::int64_t const n : {256, 250}) {
    SCOPED_TRACE(n);
    test::expect_strided_output(bits(131, 32, 61), bits(n, 32, 62), kBits);
  }
}

}  // namespace
}  // namespace cudist
