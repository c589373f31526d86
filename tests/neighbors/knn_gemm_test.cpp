// The GEMM path of inner-product and cosine knn (src/neighbors/detail/cuda/gemm_knn.hpp: cuBLAS,
// a bounded filter, exact keys) returns what the SIMT path returns, bit for bit: k beyond the
// on-chip limit, rows deeper than the tensor-core search takes, float32 / bfloat16 inputs, data
// full of exact ties (whose lists may overflow: the sorted path then answers), rows offset from
// the origin (cosines near 1), values spread over 2^-80 .. 1 (products that underflow), NaN and
// zero rows, self-joins with and without the points themselves. CUDIST_SIMT_SELECTION=1 selects
// the SIMT path for the comparison; a test checks that the default path is the GEMM one, so that
// no comparison is of a path with itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

#include "cudist/neighbors/knn.hpp"
#include "common/reduced.hpp"
#include "neighbors/detail/plan.hpp"
#include "neighbors/neighbors_test_util.hpp"
#if CUDIST_WITH_CUDA
#include "neighbors/detail/cuda/gemm_knn.hpp"
#include "neighbors/detail/cuda/select_policy.hpp"
#endif

namespace cudist {
namespace {

using test::on_both_paths;

struct Case {
  std::int64_t m, n, d, k;
};
// k above the on-chip 64 on shallow and deep rows; small k on rows deeper than 256; columns not
// a multiple of 4 (the filter's scalar loads); two blocks of query rows (more than 16384) and
// two chunks of y (8200-row blocks: 4864-column chunks, then 137).
constexpr Case kCases[] = {{1, 300, 8, 65},      {37, 3000, 64, 100}, {300, 2000, 300, 256}, {129, 5000, 40, 130},
                           {200, 3000, 520, 10}, {1, 701, 300, 1},    {70, 1499, 770, 64},   {16400, 5001, 8, 65}};

test::TestMatrix offset(test::TestMatrix t, double by) {
  for (std::int64_t i = 0; i < t.array.size(); ++i) {
    float& v = static_cast<float*>(t.array.data())[i];
    v = static_cast<float>(v + by);
    t.values.v[static_cast<std::size_t>(i)] = v;
  }
  return t;
}

/// Values spread over 2^-80 .. 1 within each row: products below float32's normal range where
/// two small ones meet (the bound's flushed products), norms well inside it.
test::TestMatrix wide_range(test::TestMatrix t, std::uint64_t seed) {
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::int64_t i = 0; i < t.array.size(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    float& v = static_cast<float*>(t.array.data())[i];
    v = std::ldexp(v, -static_cast<int>((state >> 33) % 81));
    t.values.v[static_cast<std::size_t>(i)] = v;
  }
  return t;
}

TEST(KnnGemm, TakesTheGemmPathBeyondTheTensorCoreSearch) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  if (!res.device.is_cuda()) GTEST_SKIP() << "the GEMM path runs on the CUDA backend";
#if CUDIST_WITH_CUDA
  for (Case c : {Case{37, 3000, 64, 100}, Case{200, 3000, 520, 10}}) {
    Array const x = test::to_backend(test::random_reals(c.m, c.d, DType::kBFloat16, -1, 1, 1).array);
    Array const y = test::to_backend(test::random_reals(c.n, c.d, DType::kBFloat16, -1, 1, 2).array);
    for (Metric metric : {Metric::kInnerProduct, Metric::kCosine}) {
      // As knn plans (bfloat16 rows that need no preparation kept: inner product's), and widened.
      for (bool keep_bfloat16 : {true, false}) {
        auto const planned = neighbors::detail::plan_select("knn", res, x.view(), y.view(),
                                                            neighbors::detail::whole(x.view(), y.view()), metric, {},
                                                            false, false, keep_bfloat16);
        bool const kept = keep_bfloat16 && metric == Metric::kInnerProduct;
        EXPECT_EQ(planned.problem.pairwise.x.dtype, kept ? DType::kBFloat16 : DType::kFloat32);
        EXPECT_EQ(planned.problem.pairwise.y.dtype, kept ? DType::kBFloat16 : DType::kFloat32);
        EXPECT_TRUE(
            neighbors::detail::cuda::gemm_knn_applies(planned.problem, c.k, neighbors::detail::cuda::kMaxOnChipK8))
            << "metric " << static_cast<int>(metric) << ", d " << c.d << ", k " << c.k
            << (keep_bfloat16 ? ", bfloat16 kept" : "") << " (is libcublas.so.13 on the library path?)";
      }
    }
  }
#endif
}

TEST(KnnGemm, SameAnswersAsTheSimtPath) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  // Under compute-sanitizer a third of the (case, family) pairs, every case and family among them
  // (racecheck did not finish them all in 330 s: the SIMT path's answers are the slow half).
  test::CombinationSampler sample(3);
  for (Case c : kCases) {
    if (test::reduced_run() && c.m * c.n > 10'000'000) continue;  // under compute-sanitizer
    for (int family = 0; family < 5; ++family) {
      if (!sample.keep()) continue;
      DType const dtype = family == 1 ? DType::kBFloat16 : DType::kFloat32;
      auto make = [&](std::int64_t rows, std::uint64_t seed) {
        if (family == 2) return test::random_integers(rows, c.d, dtype, -2, 2, seed);  // ties everywhere
        test::TestMatrix t = test::random_reals(rows, c.d, dtype, -1, 1, seed);
        if (family == 4) return wide_range(std::move(t), seed);
        return family == 3 ? offset(std::move(t), 1e4) : t;
      };
      test::TestMatrix x = make(c.m, 10 + c.m + c.d), y = make(c.n, 20 + c.n + c.d);
      if (family == 0 && c.m > 3 && c.n > 9) {  // a NaN query, a zero query, an Inf row of y
        static_cast<float*>(x.array.data())[2 * c.d] = std::numeric_limits<float>::quiet_NaN();
        for (std::int64_t q = 0; q < c.d; ++q) static_cast<float*>(x.array.data())[3 * c.d + q] = 0.0f;
        static_cast<float*>(y.array.data())[9 * c.d + 1] = std::numeric_limits<float>::infinity();
      }
      Array const xb = test::to_backend(x.array), yb = test::to_backend(y.array);
      for (Metric metric : {Metric::kInnerProduct, Metric::kCosine}) {
        auto const [gemm, simt] = on_both_paths([&] { return knn(res, xb, yb, c.k, metric); });
        EXPECT_TRUE(test::identical(gemm, simt)) << "family " << family << ", " << c.m << " x " << c.n << " x " << c.d
                                                 << ", k " << c.k << ", metric " << static_cast<int>(metric);
      }
    }
  }
}

TEST(KnnGemm, BFloat16RowsAsTheSimtPath) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  // knn hands inner product's bfloat16 rows to the GEMM path unconverted (plan_select's
  // keep_bfloat16): read in place where the depth is a multiple of 8 (64, 40), copied where it is
  // not (770). Integer rows tie everywhere, so lists overflow: their rows are gathered as bfloat16
  // and redone by the SIMT path, which widens them; a self-join's overflow sends the whole call
  // there, widened too.
  for (Case c : {Case{37, 3000, 64, 100}, Case{70, 1499, 770, 64}, Case{129, 5000, 40, 130}}) {
    for (bool ties : {false, true}) {
      auto make = [&](std::int64_t rows, std::uint64_t seed) {
        return ties ? test::random_integers(rows, c.d, DType::kBFloat16, -2, 2, seed)
                    : test::random_reals(rows, c.d, DType::kBFloat16, -1, 1, seed);
      };
      Array const xb = test::to_backend(make(c.m, 30 + c.d).array), yb = test::to_backend(make(c.n, 40 + c.d).array);
      auto const [gemm, simt] = on_both_paths([&] { return knn(res, xb, yb, c.k, Metric::kInnerProduct); });
      EXPECT_TRUE(test::identical(gemm, simt)) << c.m << " x " << c.n << " x " << c.d << ", k " << c.k
                                               << (ties ? ", ties" : "");
      for (SelfJoin self : {SelfJoin::kIncludeSelf, SelfJoin::kExcludeSelf}) {
        auto const [gemm_self, simt_self] =
            on_both_paths([&] { return self_knn(res, yb, c.k, Metric::kInnerProduct, self); });
        EXPECT_TRUE(test::identical(gemm_self, simt_self))
            << "self-join " << c.n << " x " << c.d << ", k " << c.k << (ties ? ", ties" : "")
            << (self == SelfJoin::kExcludeSelf ? ", excluding self" : "");
      }
    }
  }
}

TEST(KnnGemm, SelfJoinsAsTheSimtPath) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  for (Case c : {Case{400, 0, 300, 10}, Case{300, 0, 48, 100}}) {
    for (bool ties : {false, true}) {
      test::TestMatrix const x = ties ? test::random_integers(c.m, c.d, DType::kFloat32, -1, 1, 5)
                                      : test::random_reals(c.m, c.d, DType::kFloat32, -1, 1, 5);
      Array const xb = test::to_backend(x.array);
      for (Metric metric : {Metric::kInnerProduct, Metric::kCosine}) {
        for (SelfJoin self : {SelfJoin::kIncludeSelf, SelfJoin::kExcludeSelf}) {
          auto const [gemm, simt] = on_both_paths([&] { return self_knn(res, xb, c.k, metric, self); });
          EXPECT_TRUE(test::identical(gemm, simt))
              << c.m << " x " << c.d << ", k " << c.k << (ties ? ", ties" : "") << ", metric "
              << static_cast<int>(metric) << (self == SelfJoin::kExcludeSelf ? ", excluding self" : "");
        }
      }
    }
  }
}

}  // namespace
}  // namespace cudist
