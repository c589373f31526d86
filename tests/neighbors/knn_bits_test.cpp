// knn and match of packed bit rows (uint8) under hamming_bits against the float64 reference,
// exactly: on the GPU, rows of whole 16-byte chunks up to 256 bytes, 16-byte aligned, run the
// single-bit tensor-core search (AND + popcount, |a| + |b| - 2 |a & b|: exact_u8_l2_kernel.cuh),
// other rows the SIMT engine's XOR + popcount; both count exactly, so the neighbours (with the tie
// rule) and the distances must equal the reference's, and the two GPU paths must agree bit for
// bit. Ragged shapes around the 128 x 128 tile, rows of few bits (most distances tie), k from 1
// to n, the real ORB descriptors. Built once per backend, with knn_uint8_test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "common/reduced.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/knn_compare.hpp"
#include "neighbors/neighbors_test_util.hpp"
#include "reference/knn_ref.hpp"

namespace cudist {
namespace {

using test::KnnExpectation;
using test::knn_matches;

constexpr Metric kBits = Metric::kHammingBits;

KnnExpectation exact_counts(reference::Matrix const& d) {
  KnnExpectation e(d);
  e.exact = true;
  e.tol = {0, 0};
  return e;
}

/// Bytes in [0, hi]: hi = 1 leaves one bit a byte (most distances tie), 255 every bit.
test::TestMatrix bit_rows(std::int64_t rows, std::int64_t bytes, int hi, std::uint64_t seed) {
  return test::random_integers(rows, bytes, DType::kUInt8, 0, hi, seed);
}

TEST(KnnBits, HammingMatchesTheReferenceOnRaggedShapes) {
  CUDIST_REQUIRE_BACKEND();
  struct Shape {
    std::int64_t m, n, d;
  };
  // d (bytes): one 16-byte chunk, ORB's 32, a step and a half, the deepest rows of the tensor-core
  // search (256); words but not whole chunks (36), past the deepest (272), not words (5).
  Shape const shapes[] = {{1, 1, 16},     {2, 31, 32},    {33, 129, 48},  {130, 300, 32}, {129, 1023, 256},
                          {77, 640, 36}, {40, 200, 272}, {30, 150, 5}};
  test::CombinationSampler sample(4);
  for (Shape const s : shapes) {
    for (int hi : {1, 255}) {
      auto const x = bit_rows(s.m, s.d, hi, 900 + s.m + s.d + hi);
      auto const y = bit_rows(s.n, s.d, hi, 950 + s.n + s.d + hi);
      reference::Matrix const d = reference::cdist(x.values, y.values, kBits);
      for (std::int64_t k : {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{10},
                             std::int64_t{64}, std::int64_t{65}, s.n}) {
        if (k > s.n || !sample.keep()) continue;
        auto const got = test::run_knn(x, y, k, kBits);
        EXPECT_TRUE(knn_matches(got.distances, got.indices, exact_counts(d)))
            << test::label(kBits, DType::kUInt8, s.m, s.n, s.d, k) << " values 0.." << hi;
      }
    }
  }
}

// The real ORB descriptors of the box scene: knn across the images, and the self-join with and
// without each point itself.
TEST(KnnBits, OrbDescriptorsAreExact) {
  CUDIST_REQUIRE_BACKEND();
  auto const a = test::descriptor_rows("box_a_orb.npy"), b = test::descriptor_rows("box_b_orb.npy");
  reference::Matrix const ab = reference::cdist(a.values, b.values, kBits);
  for (std::int64_t k : {1, 2, 10, 64}) {
    auto const got = test::run_knn(a, b, k, kBits);
    EXPECT_TRUE(knn_matches(got.distances, got.indices, exact_counts(ab))) << "box a -> box b, k=" << k;
  }
  reference::Matrix const bb = reference::cdist(b.values, b.values, kBits);
  Array const bd = test::to_backend(b.array);
  for (SelfJoin self : {SelfJoin::kIncludeSelf, SelfJoin::kExcludeSelf}) {
    auto const got = test::to_host(self_knn(test::backend_resources(), bd, 10, kBits, self));
    KnnExpectation e = exact_counts(bb);
    e.exclude_self = self == SelfJoin::kExcludeSelf;
    EXPECT_TRUE(knn_matches(got.distances, got.indices, e)) << (e.exclude_self ? "excluding" : "including") << " self";
  }
}

// Many blocks with chained chunks (top-k), the best two, and match with the mutual check: the
// tensor-core search and the SIMT engine give the same bits. Rows of few bits tie everywhere and
// y ends with copies of its first rows (equal keys in the first and last chunks).
TEST(KnnBits, TensorCoreSearchAnswersAsTheSimtPath) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  if (!res.device.is_cuda()) GTEST_SKIP() << "the GPU's two paths";
  std::int64_t const m = test::reduced_run() ? 128 * 40 + 37 : 128 * 300 + 37, n = test::reduced_run() ? 6000 : 20000;
  test::TestMatrix const x = bit_rows(m, 32, 1, 71);
  test::TestMatrix y = bit_rows(n, 32, 1, 73);
  auto* const yv = static_cast<std::uint8_t*>(y.array.data());
  std::copy_n(yv, 300 * 32, yv + (n - 300) * 32);
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  for (std::int64_t k : {1, 2, 10, 64}) {
    auto const [tensor, simt] = test::on_both_paths([&] { return knn(res, xb, yb, k, kBits); });
    EXPECT_TRUE(test::identical(tensor, simt)) << m << " x " << n << ", k " << k;
  }
  MatchOptions mutual;
  mutual.mutual = true;
  for (MatchOptions const& o : {MatchOptions{}, mutual}) {
    auto const [tensor, simt] = test::on_both_paths([&] { return match(res, xb, yb, kBits, o); });
    EXPECT_TRUE(test::identical(tensor, simt)) << (o.mutual ? "mutual" : "ratio only");
  }
}

}  // namespace
}  // namespace cudist
