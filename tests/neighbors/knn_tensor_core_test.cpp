// The tensor-core searches return what the fused SIMT-selection path returns, bit for bit: the
// float32 candidate search (bounded_search_kernel.cuh: squared L2, euclidean, inner product,
// cosine) on ragged shapes, tie-heavy integer data, data whose expansion cancels (offset rows),
// badly scaled data, NaN, Inf, huge and tiny rows, duplicates, rows one ulp apart, bfloat16 inputs
// and real SIFT descriptors; the uint8 search (exact_u8_l2_kernel.cuh) on full-range, tie-heavy
// and extreme bytes and the SIFT corpus. knn, self-joins, batches and match each.
// CUDIST_SIMT_SELECTION=1 selects the fused path for the comparison; a test checks that the
// default path is the tensor-core one for each metric, so that no comparison is of a path with
// itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "cudist/io/npy.hpp"
#include "cudist/neighbors/knn.hpp"
#include "common/reduced.hpp"
#include "neighbors/detail/plan.hpp"
#include "neighbors/neighbors_test_util.hpp"
#include "core/detail/cuda_runtime.hpp"
#if CUDIST_WITH_CUDA
#include "neighbors/detail/cuda/bounded_search.hpp"
#endif

namespace cudist {
namespace {

using test::on_both_paths;

struct Shape {
  std::int64_t m, n, d;
};
constexpr Shape kShapes[] = {{1, 1, 1},      {2, 31, 3},      {33, 129, 17},  {113, 203, 65},
                             {129, 1023, 9}, {300, 2500, 128}, {70, 700, 256}, {200, 3000, 100}};

/// The data families, by name: each makes (rows x d) float32 values from a seed.
struct Family {
  char const* name;
  std::function<test::TestMatrix(std::int64_t, std::int64_t, std::uint64_t)> make;
};

test::TestMatrix shifted(test::TestMatrix t, double scale, double offset) {
  for (std::int64_t i = 0; i < t.array.size(); ++i) {
    float& v = static_cast<float*>(t.array.data())[i];
    v = static_cast<float>(v * scale + offset);
    t.values.v[static_cast<std::size_t>(i)] = v;
  }
  return t;
}

std::vector<Family> families() {
  auto reals = [](std::int64_t r, std::int64_t d, std::uint64_t s) {
    return test::random_reals(r, d, DType::kFloat32, -1, 1, s);
  };
  return {
      {"reals", reals},
      {"integers", [](std::int64_t r, std::int64_t d, std::uint64_t s) {
         return test::random_integers(r, d, DType::kFloat32, -3, 3, s);  // ties everywhere
       }},
      {"offset 1e4", [=](std::int64_t r, std::int64_t d, std::uint64_t s) { return shifted(reals(r, d, s), 1, 1e4); }},
      {"around 1e-3", [=](std::int64_t r, std::int64_t d, std::uint64_t s) { return shifted(reals(r, d, s), 1e-3, 0); }},
      {"around 1e6", [=](std::int64_t r, std::int64_t d, std::uint64_t s) { return shifted(reals(r, d, s), 1e6, 0); }},
  };
}

/// Rows the bounds cannot cover and rows that tie exactly: NaN, Inf, 1e20, 3e-25, a subnormal,
/// and y rows equal to x rows.
void plant_specials(Array& x, Array& y) {
  std::int64_t const d = x.cols();
  auto* xv = static_cast<float*>(x.data());
  auto* yv = static_cast<float*>(y.data());
  auto row = [d](float* v, std::int64_t r) { return v + r * d; };
  if (x.rows() > 3) row(xv, 3)[0] = std::numeric_limits<float>::quiet_NaN();
  if (y.rows() > 5) row(yv, 5)[d - 1] = std::numeric_limits<float>::infinity();
  if (x.rows() > 4) row(xv, 4)[0] = 1e20f;
  if (y.rows() > 9) row(yv, 9)[0] = 1e20f;
  if (x.rows() > 6) {
    for (std::int64_t k = 0; k < d; ++k) row(xv, 6)[k] = 3e-25f * static_cast<float>(k % 3);
  }
  if (y.rows() > 10) row(yv, 10)[d / 2] = 1e-40f;  // subnormal
  if (x.rows() > 2 && y.rows() > 7) {
    for (std::int64_t k = 0; k < d; ++k) row(yv, 7)[k] = row(xv, 2)[k];
  }
  if (x.rows() > 8 && y.rows() > 8) {
    for (std::int64_t k = 0; k < d; ++k) row(yv, 8)[k] = row(xv, 8)[k];
  }
}

/// knn_batched of x against y on three problems of uneven sizes (a lone query row, a database
/// part of one row), padded, on both paths for each k: the same answers.
void expect_batches_as_the_simt_path(Resources const& res, Array const& x, Array const& y, Metric metric,
                                     std::initializer_list<std::int64_t> ks) {
  Batch const batch{{0, 1, 200, 500}, {0, 300, 301, 1700}};
  for (std::int64_t k : ks) {
    KnnOptions padded;
    padded.pad = true;
    auto const [fast, simt] = on_both_paths([&] { return knn_batched(res, x, y, batch, k, metric, padded); });
    EXPECT_TRUE(test::identical(fast, simt)) << "batch, metric " << static_cast<int>(metric) << ", k " << k;
  }
}

std::vector<std::int64_t> ks_for(std::int64_t n) {
  std::vector<std::int64_t> ks;
  for (std::int64_t k : {1, 2, 3, 10, 32}) {
    if (k <= n) ks.push_back(k);
  }
  return ks;
}

TEST(KnnTensorCores, SameAnswersAsTheSimtPath) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  test::CombinationSampler sample(7);  // under compute-sanitizer: every family, shape, metric and k
  for (Family const& family : families()) {
    for (Shape s : kShapes) {
      for (bool specials : {false, true}) {
        test::TestMatrix x = family.make(s.m, s.d, 100 + s.m + s.d);
        test::TestMatrix y = family.make(s.n, s.d, 200 + s.n + s.d);
        if (specials) plant_specials(x.array, y.array);
        Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
        for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean, Metric::kInnerProduct, Metric::kCosine}) {
          for (std::int64_t k : ks_for(s.n)) {
            if (!sample.keep()) continue;
            auto const [tensor, simt] = on_both_paths([&] { return knn(res, xb, yb, k, metric); });
            EXPECT_TRUE(test::identical(tensor, simt))
                << family.name << (specials ? " with special rows" : "") << ", " << s.m << " x " << s.n
                << " x " << s.d << ", k " << k << ", metric " << static_cast<int>(metric);
          }
        }
      }
    }
  }
}

TEST(KnnTensorCores, ChunksPoolingTheirBarsAnswerAsTheSimtPath) {
  // Few row tiles against a long y: the columns split into up to 32 chunks of several tiles each,
  // which share their rows' bars while they run (bounded_search_kernel.cuh's share_bars). A bar
  // from another chunk must leave every key equal to it a candidate: the integer rows tie
  // everywhere, and y ends with copies of its first rows, so the same keys sit in the first and
  // the last chunk and only the index decides.
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  if (!res.device.is_cuda()) GTEST_SKIP() << "the pooled bars are the CUDA tensor-core search's";
  std::int64_t const n = test::reduced_run() ? 20000 : 60000, d = 24;
  for (Family const& family : families()) {
    if (std::string(family.name) != "reals" && std::string(family.name) != "integers") continue;
    for (std::int64_t m : {1, 100, 300}) {
      test::TestMatrix x = family.make(m, d, 31 + m);
      test::TestMatrix y = family.make(n, d, 37);
      auto* yv = static_cast<float*>(y.array.data());
      std::copy_n(yv, 500 * d, yv + (n - 500) * d);
      Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
      for (Metric metric : {Metric::kSqEuclidean, Metric::kInnerProduct, Metric::kCosine}) {
        for (std::int64_t k : {1, 2, 10, 32}) {
          auto const [tensor, simt] = on_both_paths([&] { return knn(res, xb, yb, k, metric); });
          EXPECT_TRUE(test::identical(tensor, simt))
              << family.name << ", " << m << " x " << n << ", k " << k << ", metric " << static_cast<int>(metric);
        }
      }
    }
  }
}

TEST(KnnTensorCores, LongSelfJoinsPoolingTheirBarsAnswerAsTheSimtPath) {
  // A self-join of many chunks per row tile, run chunk 0 of every row tile first: the bars the
  // first chunks pool come from rows' own (i, i) pairs (key 0, or left out) as well as others,
  // and duplicate rows tie everywhere.
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  if (!res.device.is_cuda()) GTEST_SKIP() << "the pooled bars are the CUDA tensor-core search's";
  std::int64_t const m = test::reduced_run() ? 9000 : 20000;
  test::TestMatrix x = test::random_integers(m, 12, DType::kFloat32, -2, 2, 41);
  Array const xb = test::to_backend(x.array);
  for (Metric metric : {Metric::kSqEuclidean, Metric::kCosine}) {
    for (SelfJoin self : {SelfJoin::kIncludeSelf, SelfJoin::kExcludeSelf}) {
      for (std::int64_t k : {3, 10}) {
        auto const [tensor, simt] = on_both_paths([&] { return self_knn(res, xb, k, metric, self); });
        EXPECT_TRUE(test::identical(tensor, simt))
            << m << " rows, k " << k << ", metric " << static_cast<int>(metric)
            << (self == SelfJoin::kExcludeSelf ? ", self excluded" : "");
      }
    }
  }
}

TEST(KnnTensorCores, ChunksStartingFromEarlierChunksAnswersAsTheSimtPath) {
  // More blocks than the GPU runs at once, chunk 0 of every row tile first: a top-k chunk that
  // starts after an earlier chunk of its row tile finished begins from that chunk's answers
  // (take_answers), and the merge must take an entry both hold once. Integer rows in [-2, 2] tie
  // everywhere, y ends with copies of its first rows (equal keys in the first and last chunks),
  // the last row tile is partial, and k = 33 and 64 read the answers in two rounds of a warp.
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  if (!res.device.is_cuda()) GTEST_SKIP() << "the chained chunks are the CUDA tensor-core search's";
  std::int64_t const m = test::reduced_run() ? 128 * 40 + 37 : 128 * 300 + 37, n = test::reduced_run() ? 12000 : 40000;
  test::TestMatrix x = test::random_integers(m, 8, DType::kFloat32, -2, 2, 51);
  test::TestMatrix y = test::random_integers(n, 8, DType::kFloat32, -2, 2, 53);
  auto* yv = static_cast<float*>(y.array.data());
  std::copy_n(yv, 300 * 8, yv + (n - 300) * 8);
  Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
  for (Metric metric : {Metric::kSqEuclidean, Metric::kInnerProduct}) {
    for (std::int64_t k : {3, 10, 33, 64}) {
      auto const [tensor, simt] = on_both_paths([&] { return knn(res, xb, yb, k, metric); });
      EXPECT_TRUE(test::identical(tensor, simt)) << m << " x " << n << ", k " << k << ", metric " << static_cast<int>(metric);
    }
  }
}

TEST(KnnTensorCores, DatabaseStreamedFromHostMemoryAnswersAsFromTheDevice) {
  // A float32 y of kStreamedDatabaseBytes or more in host memory is copied a part at a time while
  // the search runs on the parts before (streamed_database.hpp): from pageable memory (through the
  // stages, each part there when its copy returns; also one byte off its floats, as
  // dask.distributed hands blocks over) and from page-locked memory (copied
  // asynchronously, ordered by events), against the same rows on the device, bit for bit; and
  // the SIMT path, which takes such a y whole. Integer rows tie everywhere, y ends with copies of
  // its first rows (equal keys in the first and last parts), special rows, a partial last tile,
  // rows of 100 values (the rounded rows pad them to 112).
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  if (!res.device.is_cuda()) GTEST_SKIP() << "the streamed database is the CUDA search's";
  std::int64_t const m = 2 * 128 + 49, d = 100;
  std::int64_t const n = static_cast<std::int64_t>(neighbors::detail::kStreamedDatabaseBytes / (d * sizeof(float))) + 1234;
  for (Family const& family : families()) {
    if (std::string(family.name) != "reals" && std::string(family.name) != "integers") continue;
    if (test::reduced_run() && std::string(family.name) == "reals") continue;
    test::TestMatrix x = family.make(m, d, 61);
    test::TestMatrix y = family.make(n, d, 67);
    auto* yv = static_cast<float*>(y.array.data());
    std::copy_n(yv, 300 * d, yv + (n - 300) * d);
    plant_specials(x.array, y.array);
    Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
    std::size_t const bytes = y.array.bytes();
    cudist::detail::PinnedHandle const pinned(cudist::detail::cuda_host_alloc(bytes, "test"),
                                              cudist::detail::cuda_host_free);
    std::memcpy(pinned.get(), y.array.data(), bytes);
    ConstMatrixView const y_pinned(pinned.get(), n, d, d, DType::kFloat32, Memory::kHost);
    std::vector<unsigned char> shifted;
    ConstMatrixView const y_shifted = test::one_byte_off(y.array, shifted);
    for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean, Metric::kInnerProduct}) {
      ASSERT_TRUE(neighbors::detail::streams_database(res, y.array.view(), metric, {}));
      for (std::int64_t k : {1, 2, 10, 32}) {
        if (test::reduced_run() && (k == 1 || k == 32)) continue;
        std::string const label = std::string(family.name) + ", " + std::string(metric_name(metric)) + ", k " + std::to_string(k);
        KnnResult const want = knn(res, xb, yb, k, metric);
        EXPECT_TRUE(test::identical(knn(res, xb, y.array, k, metric), want)) << label << ", pageable";
        EXPECT_TRUE(test::identical(knn(res, xb, y_pinned, k, metric), want)) << label << ", page-locked";
        EXPECT_TRUE(test::identical(knn(res, xb, y_shifted, k, metric), want)) << label << ", one byte off its floats";
        if (k != 10) continue;
        auto const [tensor, simt] = on_both_paths([&] { return knn(res, xb, y.array, k, metric); });
        EXPECT_TRUE(test::identical(simt, want)) << label << ", the SIMT path";
      }
    }
  }
}

TEST(KnnTensorCores, SelfJoinsAndBatchesAsTheSimtPath) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  for (Shape s : {Shape{300, 0, 128}, Shape{129, 0, 33}, Shape{1000, 0, 64}}) {
    test::TestMatrix x = test::random_integers(s.m, s.d, DType::kFloat32, -2, 2, 7 + s.m);
    Array const xb = test::to_backend(x.array);
    for (SelfJoin self : {SelfJoin::kIncludeSelf, SelfJoin::kExcludeSelf}) {
      for (std::int64_t k : {1, 2, 5, 17}) {
        auto const [tensor, simt] = on_both_paths([&] { return self_knn(res, xb, k, Metric::kEuclidean, self); });
        EXPECT_TRUE(test::identical(tensor, simt)) << s.m << " x " << s.d << ", k " << k;
      }
    }
  }
  test::TestMatrix x = test::random_reals(500, 40, DType::kFloat32, -1, 1, 3);
  test::TestMatrix y = test::random_reals(1700, 40, DType::kFloat32, -1, 1, 4);
  expect_batches_as_the_simt_path(res, test::to_backend(x.array), test::to_backend(y.array), Metric::kSqEuclidean,
                                  {1, 2, 3, 10});
}

TEST(KnnTensorCores, MatchingRealDescriptorsAsTheSimtPath) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  Array const sift = io::read_npy(std::string(CUDIST_TEST_DATA_DIR) + "/descriptors/opencv_images_sift_u8.npy");
  std::int64_t const rows = std::min<std::int64_t>(sift.rows(), 6000), d = sift.cols();
  Array descriptors = Array::allocate(rows, d, DType::kFloat32, Device::cpu());
  for (std::int64_t i = 0; i < rows * d; ++i) {
    static_cast<float*>(descriptors.data())[i] = static_cast<std::uint8_t const*>(sift.data())[i];
  }
  Array const all = test::to_backend(descriptors);
  auto const* base = static_cast<float const*>(all.data());
  ConstMatrixView const queries(base, 2000, d, d, DType::kFloat32, Memory::kDevice);
  ConstMatrixView const train(base + 2000 * d, rows - 2000, d, d, DType::kFloat32, Memory::kDevice);
  for (Metric metric : {Metric::kEuclidean, Metric::kCosine}) {
    for (double ratio : {0.75, 1.0}) {
      for (bool mutual : {false, true}) {  // mutual: a second tensor-core pass against the observer
        MatchOptions o;
        o.ratio = ratio;
        o.mutual = mutual;
        auto const [tensor, simt] = on_both_paths([&] { return match(res, queries, train, metric, o); });
        EXPECT_TRUE(test::identical(tensor, simt))
            << "metric " << static_cast<int>(metric) << ", ratio " << ratio << (mutual ? ", mutual" : "");
      }
    }
  }
  for (Metric metric : {Metric::kEuclidean, Metric::kInnerProduct, Metric::kCosine}) {
    auto const [tensor, simt] = on_both_paths([&] { return knn(res, queries, train, 10, metric); });
    EXPECT_TRUE(test::identical(tensor, simt)) << "knn k 10, metric " << static_cast<int>(metric);
  }
}

// ---- inner product and cosine: the dot products' bound (search_bounds.cuh's DotBound) ----

TEST(KnnTensorCores, EveryMetricItServesTakesTheSearch) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  if (!res.device.is_cuda() || std::getenv("CUDIST_FORCE_PORTABLE") != nullptr) {
    GTEST_SKIP() << "the tensor-core search runs on the CUDA backend of sm_80 and later";
  }
#if CUDIST_WITH_CUDA
  for (DType dtype : {DType::kFloat32, DType::kBFloat16, DType::kFloat16}) {
    Array const x = test::to_backend(test::random_reals(300, 128, dtype, -1, 1, 1).array);
    Array const y = test::to_backend(test::random_reals(900, 128, dtype, -1, 1, 2).array);
    for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean, Metric::kInnerProduct, Metric::kCosine}) {
      for (std::int64_t k : {1, 2, 10, 32}) {
        auto const planned = neighbors::detail::plan_select("knn", res, x.view(), y.view(),
                                                            neighbors::detail::whole(x.view(), y.view()), metric, {},
                                                            false, false);
        EXPECT_TRUE(neighbors::detail::cuda::bounded_search_applies(planned.problem, k, false))
            << dtype_name(dtype) << ", metric " << static_cast<int>(metric) << ", k " << k;
      }
    }
  }
#endif
}

/// y: x's rows, every other one moved by one ulp in each value (near-duplicates), then the rest of
/// `extra` random rows.
test::TestMatrix near_duplicates(test::TestMatrix const& x, std::int64_t extra, std::uint64_t seed) {
  std::int64_t const m = x.array.rows(), d = x.array.cols();
  test::TestMatrix y = test::random_reals(m + extra, d, DType::kFloat32, -1, 1, seed);
  auto const* xv = static_cast<float const*>(x.array.data());
  auto* yv = static_cast<float*>(y.array.data());
  for (std::int64_t i = 0; i < m * d; ++i) {
    float const v = (i / d) % 2 == 0 ? xv[i] : std::nextafter(xv[i], 2.0f);
    yv[i] = v;
    y.values.v[static_cast<std::size_t>(i)] = v;
  }
  return y;
}

TEST(KnnTensorCores, DotProductsSelfJoinsNearDuplicatesAndHalvesAsTheSimtPath) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  // Integers in -2..2: exact ties, duplicate rows and zero rows (cosine's NaN keys) everywhere.
  for (Shape s : {Shape{300, 0, 128}, Shape{129, 0, 33}, Shape{1000, 0, 8}}) {
    Array const xb = test::to_backend(test::random_integers(s.m, s.d, DType::kFloat32, -2, 2, 11 + s.m).array);
    for (Metric metric : {Metric::kInnerProduct, Metric::kCosine}) {
      for (SelfJoin self : {SelfJoin::kIncludeSelf, SelfJoin::kExcludeSelf}) {
        for (std::int64_t k : {1, 2, 5, 17}) {
          auto const [tensor, simt] = on_both_paths([&] { return self_knn(res, xb, k, metric, self); });
          EXPECT_TRUE(test::identical(tensor, simt)) << s.m << " x " << s.d << ", metric " << static_cast<int>(metric)
                                                     << ", k " << k << (self == SelfJoin::kExcludeSelf ? ", excluding self" : "");
        }
      }
    }
  }
  test::TestMatrix const x = test::random_reals(200, 64, DType::kFloat32, -1, 1, 21);
  Array const xb = test::to_backend(x.array), yb = test::to_backend(near_duplicates(x, 1800, 22).array);
  for (Metric metric : {Metric::kInnerProduct, Metric::kCosine, Metric::kSqEuclidean}) {
    for (std::int64_t k : {1, 2, 3, 10}) {
      auto const [tensor, simt] = on_both_paths([&] { return knn(res, xb, yb, k, metric); });
      EXPECT_TRUE(test::identical(tensor, simt)) << "near-duplicates, metric " << static_cast<int>(metric) << ", k " << k;
    }
  }
  for (DType dtype : {DType::kBFloat16, DType::kFloat16}) {
    Array const hx = test::to_backend(test::random_reals(500, 96, dtype, -1, 1, 31).array);
    Array const hy = test::to_backend(test::random_reals(3000, 96, dtype, -1, 1, 32).array);
    for (Metric metric : {Metric::kInnerProduct, Metric::kCosine, Metric::kEuclidean}) {
      for (std::int64_t k : {1, 2, 10, 32}) {
        auto const [tensor, simt] = on_both_paths([&] { return knn(res, hx, hy, k, metric); });
        EXPECT_TRUE(test::identical(tensor, simt)) << dtype_name(dtype) << ", metric " << static_cast<int>(metric) << ", k " << k;
      }
    }
  }
  test::TestMatrix bx = test::random_reals(500, 40, DType::kFloat32, -1, 1, 3);
  test::TestMatrix by = test::random_reals(1700, 40, DType::kFloat32, -1, 1, 4);
  Array const bxb = test::to_backend(bx.array), byb = test::to_backend(by.array);
  for (Metric metric : {Metric::kInnerProduct, Metric::kCosine}) {
    expect_batches_as_the_simt_path(res, bxb, byb, metric, {1, 3, 10});
  }
}

// ---- uint8 rows: the int8 MMA's exact keys (rows of 16..256 bytes in multiples of 16; other
// depths keep the fused path on both sides) ----

constexpr Shape kByteShapes[] = {{1, 1, 16},    {2, 31, 32},    {33, 129, 48},  {113, 203, 128},
                                 {129, 1023, 16}, {300, 2500, 128}, {70, 700, 256}, {200, 3000, 100}};

/// Rows at the extremes: all 255 against all 0 (the largest key, 65025 d), and duplicates.
void plant_byte_extremes(Array& x, Array& y) {
  std::int64_t const d = x.cols();
  auto* xv = static_cast<std::uint8_t*>(x.data());
  auto* yv = static_cast<std::uint8_t*>(y.data());
  if (x.rows() > 1) std::fill(xv + d, xv + 2 * d, std::uint8_t{255});
  if (y.rows() > 3) std::fill(yv + 3 * d, yv + 4 * d, std::uint8_t{0});
  if (y.rows() > 4) std::fill(yv + 4 * d, yv + 5 * d, std::uint8_t{255});
  if (x.rows() > 2 && y.rows() > 6) std::copy(xv + 2 * d, xv + 3 * d, yv + 6 * d);
}

TEST(KnnTensorCores, BytesSameAnswersAsTheFusedPath) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  test::CombinationSampler sample(7);
  for (auto [lo, hi] : {std::pair{0, 255}, std::pair{0, 2}, std::pair{7, 7}}) {  // full range, ties, all equal
    for (Shape s : kByteShapes) {
      for (bool extremes : {false, true}) {
        test::TestMatrix x = test::random_integers(s.m, s.d, DType::kUInt8, lo, hi, 300 + s.m + s.d);
        test::TestMatrix y = test::random_integers(s.n, s.d, DType::kUInt8, lo, hi, 400 + s.n + s.d);
        if (extremes) plant_byte_extremes(x.array, y.array);
        Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
        for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean}) {
          for (std::int64_t k : ks_for(s.n)) {
            if (!sample.keep()) continue;
            auto const [tensor, fused] = on_both_paths([&] { return knn(res, xb, yb, k, metric); });
            EXPECT_TRUE(test::identical(tensor, fused))
                << "bytes " << lo << ".." << hi << (extremes ? " with extremes" : "") << ", " << s.m << " x " << s.n
                << " x " << s.d << ", k " << k << ", metric " << static_cast<int>(metric);
          }
        }
      }
    }
  }
}

// int8 rows take the same searches with the signed MMA (and the fused path's signed dp4a / MMA
// forms): their answers must be those of the float32 copies of the same values, which the float
// path computes exactly (integer sums below 2^24) and ranks by the same (key, index) rule. An
// independent check: the forced-SIMT side of on_both_paths would run the new signed code too.
TEST(KnnTensorCores, Int8RowsAnswerAsTheirFloat32Copies) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  test::CombinationSampler sample(5);
  for (auto [lo, hi] : {std::pair{-128, 127}, std::pair{-1, 1}, std::pair{-7, -7}}) {  // full range, ties, all equal
    for (Shape s : kByteShapes) {
      test::TestMatrix x = test::random_integers(s.m, s.d, DType::kInt8, lo, hi, 500 + s.m + s.d);
      test::TestMatrix y = test::random_integers(s.n, s.d, DType::kInt8, lo, hi, 600 + s.n + s.d);
      if (lo < hi && s.m > 1 && s.n > 4) {  // a row of -128 against rows of 127 and -128: the largest key, and 0
        for (std::int64_t c = 0; c < s.d; ++c) {
          x.values.v[s.d + c] = test::store(x.array, s.d + c, -128);
          y.values.v[3 * s.d + c] = test::store(y.array, 3 * s.d + c, 127);
          y.values.v[4 * s.d + c] = test::store(y.array, 4 * s.d + c, -128);
        }
      }
      Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
      Array const xf = test::to_backend(test::float32_copy(x)), yf = test::to_backend(test::float32_copy(y));
      for (Metric metric : {Metric::kSqEuclidean, Metric::kEuclidean}) {
        for (std::int64_t k : ks_for(s.n)) {
          if (!sample.keep()) continue;
          KnnResult const bytes = knn(res, xb, yb, k, metric), floats = knn(res, xf, yf, k, metric);
          EXPECT_TRUE(test::identical(bytes.distances, floats.distances) && test::identical(bytes.indices, floats.indices))
              << "int8 " << lo << ".." << hi << ", " << s.m << " x " << s.n << " x " << s.d << ", k " << k
              << ", metric " << static_cast<int>(metric);
        }
      }
      if (s.n > 1) {  // the self-join and the ratio test (the best-two consumer)
        KnnResult const self = self_knn(res, xb, 1, Metric::kSqEuclidean), self_f = self_knn(res, xf, 1, Metric::kSqEuclidean);
        EXPECT_TRUE(test::identical(self.indices, self_f.indices)) << s.m << " x " << s.d;
        MatchResult const m = match(res, xb, yb, Metric::kEuclidean, {}), mf = match(res, xf, yf, Metric::kEuclidean, {});
        EXPECT_TRUE(test::identical(m.pairs, mf.pairs) && test::identical(m.distances, mf.distances)) << s.m << " x " << s.d;
      }
    }
  }
}

TEST(KnnTensorCores, BytesSelfJoinsBatchesAndSiftAsTheFusedPath) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  for (Shape s : {Shape{300, 0, 128}, Shape{129, 0, 32}, Shape{1000, 0, 64}}) {
    test::TestMatrix x = test::random_integers(s.m, s.d, DType::kUInt8, 0, 3, 9 + s.m);
    Array const xb = test::to_backend(x.array);
    for (SelfJoin self : {SelfJoin::kIncludeSelf, SelfJoin::kExcludeSelf}) {
      for (std::int64_t k : {1, 2, 5, 17}) {
        auto const [tensor, fused] = on_both_paths([&] { return self_knn(res, xb, k, Metric::kSqEuclidean, self); });
        EXPECT_TRUE(test::identical(tensor, fused)) << s.m << " x " << s.d << ", k " << k;
      }
    }
  }
  test::TestMatrix x = test::random_integers(500, 48, DType::kUInt8, 0, 255, 5);
  test::TestMatrix y = test::random_integers(1700, 48, DType::kUInt8, 0, 255, 6);
  expect_batches_as_the_simt_path(res, test::to_backend(x.array), test::to_backend(y.array), Metric::kEuclidean,
                                  {1, 2, 3, 10});

  Array const sift = test::to_backend(
      io::read_npy(std::string(CUDIST_TEST_DATA_DIR) + "/descriptors/opencv_images_sift_u8.npy"));
  std::int64_t const rows = std::min<std::int64_t>(sift.rows(), test::reduced_run() ? 1000 : 12000), d = sift.cols();
  auto const* base = static_cast<std::uint8_t const*>(sift.data());
  ConstMatrixView const corpus(base, rows, d, d, DType::kUInt8, Memory::kDevice);
  for (std::int64_t k : {2, 10}) {
    auto const [tensor, fused] =
        on_both_paths([&] { return self_knn(res, corpus, k, Metric::kEuclidean, SelfJoin::kExcludeSelf); });
    EXPECT_TRUE(test::identical(tensor, fused)) << "SIFT self-join, k " << k;
  }
  ConstMatrixView const queries(base, rows / 3, d, d, DType::kUInt8, Memory::kDevice);
  ConstMatrixView const train(base + rows / 3 * d, rows - rows / 3, d, d, DType::kUInt8, Memory::kDevice);
  for (bool mutual : {false, true}) {
    MatchOptions o;
    o.ratio = 0.75;
    o.mutual = mutual;
    auto const [tensor, fused] = on_both_paths([&] { return match(res, queries, train, Metric::kEuclidean, o); });
    EXPECT_TRUE(test::identical(tensor, fused)) << "SIFT match" << (mutual ? ", mutual" : "");
  }
}

}  // namespace
}  // namespace cudist
