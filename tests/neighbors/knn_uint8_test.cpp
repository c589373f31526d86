// knn of uint8 (and int8) rows under squared / plain L2 against the float64 reference, exactly: on
// the GPU these run the int8 tensor-core contraction (u8 or s8; rows of d % 4 == 0 up to 256
// bytes; sm_80+) or the SIMT engine (other d, older GPUs), whose integer arithmetic is exact either way, so the
// neighbours (with the tie rule) and the distances must equal the reference's. Ragged shapes
// around the 128 x 128 tile, the 32-byte MMA step and the 128-byte slab; many exact ties; k from
// 1 to n; the real SIFT descriptors. Built once per backend (knn_uint8_test_cpu, _cuda).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/reduced.hpp"
#include "cudist/neighbors/knn.hpp"
#include "neighbors/knn_compare.hpp"
#include "neighbors/neighbors_test_util.hpp"
#include "reference/knn_ref.hpp"

namespace cudist {
namespace {

using test::KnnExpectation;
using test::knn_matches;

KnnExpectation exact_l2(reference::Matrix const& d) {
  KnnExpectation e(d);
  e.exact = true;      // integer squares; euclidean keeps their order
  e.tol = {1e-6, 0};   // euclidean: float32 square roots
  return e;
}

TEST(KnnUint8, L2MatchesTheReferenceOnRaggedShapes) {
  CUDIST_REQUIRE_BACKEND();
  struct Shape {
    std::int64_t m, n, d;
  };
  // d: one word, one MMA step and a word, a full slab, a slab and a word, two slabs (the largest
  // packed rows), and rows that are not whole words (the SIMT path).
  Shape const shapes[] = {{1, 1, 4},     {1, 1, 1},      {2, 31, 36},  {33, 129, 128}, {130, 300, 132},
                          {129, 1023, 256}, {300, 257, 100}, {5, 700, 8}, {77, 640, 7}};
  test::CombinationSampler sample(5);
  for (Shape const s : shapes) {
    for (DType dtype : {DType::kUInt8, DType::kInt8}) {
      for (int hi : {2, 255}) {  // [0, 2] or [-1, 1]: most distances tie, the index rule decides
        int const lo = dtype == DType::kInt8 ? -(hi + 1) / 2 : 0;  // int8: [-1, 1] or [-128, 127]
        int const top = lo + hi;
        auto const x = test::random_integers(s.m, s.d, dtype, lo, top, 700 + s.m + s.d + hi);
        auto const y = test::random_integers(s.n, s.d, dtype, lo, top, 800 + s.n + s.d + hi);
        for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean}) {
          reference::Matrix const d = reference::cdist(x.values, y.values, metric);
          for (std::int64_t k : {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{10},
                                 std::int64_t{64}, std::int64_t{65}, s.n}) {
            if (k > s.n || !sample.keep()) continue;
            auto const got = test::run_knn(x, y, k, metric);
            EXPECT_TRUE(knn_matches(got.distances, got.indices, exact_l2(d)))
                << test::label(metric, dtype, s.m, s.n, s.d, k) << " values " << lo << ".." << top;
          }
        }
      }
    }
  }
}

TEST(KnnUint8, SiftSelfJoinAndMatchingAreExact) {
  CUDIST_REQUIRE_BACKEND();
  // A slice of the SIFT corpus (K3's data) with its first 100 rows repeated at the end: exact
  // duplicates, so zero distances tie between the point and its copy.
  std::int64_t const rows = test::reduced_run() ? 700 : 2100;
  test::TestMatrix corpus = test::descriptor_rows("opencv_images_sift_u8.npy", rows - 100);
  std::vector<std::uint8_t> bytes(corpus.array.data_as<std::uint8_t>(),
                                  corpus.array.data_as<std::uint8_t>() + corpus.array.rows() * 128);
  bytes.insert(bytes.end(), bytes.begin(), bytes.begin() + 100 * 128);
  corpus.values.v.insert(corpus.values.v.end(), corpus.values.v.begin(), corpus.values.v.begin() + 100 * 128);
  corpus.values.rows += 100;
  Array const x = Array::copy_of(ConstMatrixView(bytes.data(), corpus.values.rows, 128, 128, DType::kUInt8,
                                                 Memory::kHost),
                                 test::backend_device());
  reference::Matrix const d = reference::cdist(corpus.values, corpus.values, Metric::kSqEuclidean);
  for (SelfJoin self : {SelfJoin::kIncludeSelf, SelfJoin::kExcludeSelf}) {
    for (std::int64_t k : {2, 10}) {
      auto const got = test::to_host(self_knn(test::backend_resources(), x, k, Metric::kSqEuclidean, self));
      KnnExpectation e = exact_l2(d);
      e.exclude_self = self == SelfJoin::kExcludeSelf;
      EXPECT_TRUE(knn_matches(got.distances, got.indices, e))
          << (e.exclude_self ? "excluding" : "including") << " self, k=" << k;
    }
  }

  auto const a = test::descriptor_rows("box_a_sift_u8.npy", 604), b = test::descriptor_rows("box_b_sift_u8.npy", 969);
  reference::Matrix const ab = reference::cdist(a.values, b.values, Metric::kEuclidean);
  for (std::int64_t k : {1, 2, 10, 64}) {
    auto const got = test::run_knn(a, b, k, Metric::kEuclidean);
    EXPECT_TRUE(knn_matches(got.distances, got.indices, exact_l2(ab))) << "box a -> box b, k=" << k;
  }
}

// Problems of a batch whose columns start anywhere in y, at odd columns too: on Hopper the search
// copies a tile's column terms from where its problem's columns start (column_terms.cuh).
TEST(KnnUint8, BatchedProblemsStartingAtAnyColumnAreExact) {
  CUDIST_REQUIRE_BACKEND();
  std::vector<std::int64_t> const rows_x = {5, 140, 0, 9, 130};
  std::vector<std::int64_t> const rows_y = {11, 130, 257, 13, 129};  // from columns 0, 11, 141, 398, 411
  Batch const batch = test::batch_of(rows_x, rows_y);
  for (int hi : {2, 255}) {
    auto const x = test::random_integers(batch.x_offsets.back(), 32, DType::kUInt8, 0, hi, 91 + hi);
    auto const y = test::random_integers(batch.y_offsets.back(), 32, DType::kUInt8, 0, hi, 92 + hi);
    Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
    for (std::int64_t k : {1, 2, 3, 10}) {
      auto const got = test::to_host(knn_batched(test::backend_resources(), xb, yb, batch, k, Metric::kSqEuclidean));
      for (std::size_t b = 0; b < rows_x.size(); ++b) {
        reference::Matrix const d =
            reference::cdist(test::rows_of(x.values, batch.x_offsets[b], batch.x_offsets[b + 1]),
                             test::rows_of(y.values, batch.y_offsets[b], batch.y_offsets[b + 1]), Metric::kSqEuclidean);
        KnnExpectation e = exact_l2(d);
        e.row_offset = batch.x_offsets[b];
        EXPECT_TRUE(knn_matches(got.distances, got.indices, e)) << "problem " << b << ", k " << k << ", values 0.." << hi;
      }
    }
  }
}

TEST(KnnUint8, ChunksStartingFromEarlierChunksAnswerAsTheSimtPath) {
  // More blocks than the GPU runs at once, chunk 0 of every row tile first: a top-k chunk that
  // starts after an earlier chunk of its row tile finished begins from that chunk's answers
  // (chunk_chain.cuh), and the merge must take an entry both hold once. Values in [0, 2] tie
  // everywhere, y ends with copies of its first rows (equal keys in the first and last chunks),
  // the last row tile is partial, and k = 64 reads the answers in two rounds of a warp.
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  if (!res.device.is_cuda()) GTEST_SKIP() << "the chained chunks are the CUDA tensor-core search's";
  std::int64_t const m = test::reduced_run() ? 128 * 40 + 37 : 128 * 300 + 37, n = test::reduced_run() ? 6000 : 20000;
  for (DType dtype : {DType::kUInt8, DType::kInt8}) {
    int const lo = dtype == DType::kInt8 ? -1 : 0;
    test::TestMatrix x = test::random_integers(m, 32, dtype, lo, lo + 2, 61);
    test::TestMatrix y = test::random_integers(n, 32, dtype, lo, lo + 2, 67);
    auto* yv = static_cast<std::uint8_t*>(y.array.data());
    std::copy_n(yv, 300 * 32, yv + (n - 300) * 32);
    Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
    for (std::int64_t k : {3, 10, 64}) {
      auto const [tensor, simt] = test::on_both_paths([&] { return knn(res, xb, yb, k, Metric::kSqEuclidean); });
      EXPECT_TRUE(test::identical(tensor, simt)) << m << " x " << n << ", k " << k << ", dtype " << static_cast<int>(dtype);
    }
  }
}

}  // namespace
}  // namespace cudist
