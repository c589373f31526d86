// Every bad argument to cdist / pdist is a clear InvalidArgument naming it, never a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/compare.hpp"
#include "cudist/core/error.hpp"
#include "cudist/distance/pairwise.hpp"

namespace cudist {
namespace {

/// Asserts that f throws ExceptionT whose message contains every fragment.
template <class ExceptionT = InvalidArgument>
void expect_error(std::function<void()> const& f, std::vector<std::string> const& fragments) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << fragments.front() << "'";
  } catch (ExceptionT const& e) {
    for (auto const& frag : fragments)
      EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << "message: " << e.what();
  }
}

class PairwiseErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test::backend_device().is_cuda() && cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  }
  std::vector<float> a = std::vector<float>(64 * 8, 1.0f), b = std::vector<float>(64 * 8, 2.0f);
  std::vector<float> out = std::vector<float>(64 * 64);
  Resources res = test::backend_resources();
};

TEST_F(PairwiseErrors, ShapesAndDtypes) {
  expect_error([&] { cdist(res, view(a.data(), 4, 8), view(b.data(), 4, 6), Metric::kEuclidean); },
               {"cdist", "x has 8 columns but y has 6"});
  std::vector<double> bd(32);
  expect_error([&] { cdist(res, view(a.data(), 4, 8), view(bd.data(), 4, 8), Metric::kEuclidean); },
               {"x is float32 but y is float64"});
  expect_error([&] { cdist(res, view(a.data(), 4, 8), view(b.data(), 4, 8), view(out.data(), 4, 5), Metric::kEuclidean); },
               {"out is (4, 5) but must be (4, 4)"});
  std::vector<double> od(16);
  expect_error([&] { cdist(res, view(a.data(), 4, 8), view(b.data(), 4, 8), view(od.data(), 4, 4), Metric::kEuclidean); },
               {"out is float64 but must be float32"});
  expect_error([&] { pdist(res, view(a.data(), 4, 8), view(out.data(), 1, 5), Metric::kEuclidean); },
               {"pdist", "must be (1, 6)"});
  std::vector<std::int32_t> ints(32);
  expect_error([&] { cdist(res, view(ints.data(), 4, 8), view(ints.data(), 4, 8), Metric::kEuclidean); },
               {"int32 is not supported"});
}

TEST_F(PairwiseErrors, LayoutAndPointers) {
  expect_error([&] { cdist(res, view(a.data(), 4, 8, 6), view(b.data(), 4, 8), Metric::kEuclidean); },
               {"x has row stride 6 < its 8 columns"});
  expect_error([&] { cdist(res, view(static_cast<float const*>(nullptr), 4, 8), view(b.data(), 4, 8), Metric::kEuclidean); },
               {"x is a null pointer"});
  expect_error([&] { cdist(res, view(a.data(), -1, 8), view(b.data(), 4, 8), Metric::kEuclidean); },
               {"negative shape"});
}

TEST_F(PairwiseErrors, RowsOffTheirElementsOnlyWhereCopiedFromHostMemory) {
  // Rows one byte past an element boundary (dask.distributed hands NumPy blocks over at any
  // offset): refused where the backend reads them where they lie (the CPU, device memory); taken
  // from host memory by a GPU, which copies them to the device byte for byte first.
  Array const host = Array::copy_of(view(a.data(), 4, 8), Device::cpu());
  std::vector<unsigned char> bytes;
  ConstMatrixView const x = test::one_byte_off(host, bytes);
  ConstMatrixView const y = view(b.data(), 4, 8);
  if (!res.device.is_cuda()) {
    expect_error([&] { cdist(res, x, y, Metric::kEuclidean); }, {"cdist: x pointer is not aligned"});
    expect_error([&] { pdist(res, x, Metric::kEuclidean); }, {"pdist: x pointer is not aligned"});
    return;
  }
  EXPECT_TRUE(test::identical(test::to_host(cdist(res, x, y, Metric::kEuclidean)),
                              test::to_host(cdist(res, view(a.data(), 4, 8), y, Metric::kEuclidean))));
  EXPECT_TRUE(test::identical(test::to_host(cdist(res, y, x, Metric::kEuclidean)),
                              test::to_host(cdist(res, y, view(a.data(), 4, 8), Metric::kEuclidean))));
  EXPECT_TRUE(test::identical(test::to_host(pdist(res, x, Metric::kEuclidean)),
                              test::to_host(pdist(res, view(a.data(), 4, 8), Metric::kEuclidean))));
  Array const on_device = Array::copy_of(view(bytes.data(), 1, static_cast<std::int64_t>(bytes.size())), res.device);
  ConstMatrixView const xd(static_cast<unsigned char const*>(on_device.data()) + 1, 4, 8, 8, DType::kFloat32);
  expect_error([&] { cdist(res, xd, y, Metric::kEuclidean); }, {"cdist: x pointer is not aligned"});
}

TEST_F(PairwiseErrors, MetricParameters) {
  auto const x = view(a.data(), 4, 8);
  auto const y = view(b.data(), 4, 8);
  MetricParams p;
  p.p = 0;
  expect_error([&] { cdist(res, x, y, Metric::kMinkowski, p); }, {"minkowski p = 0", "p must be > 0"});
  p.p = -2;
  expect_error([&] { cdist(res, x, y, Metric::kMinkowski, p); }, {"p must be > 0"});
  MetricParams w;
  w.w = {1, 1, 1};
  expect_error([&] { cdist(res, x, y, Metric::kEuclidean, w); }, {"w has 3 entries", "8 columns"});
  w.w.assign(8, 1.0);
  w.w[2] = -1;
  expect_error([&] { cdist(res, x, y, Metric::kCityblock, w); }, {"w[2] = -1"});
  MetricParams v;
  v.V.assign(8, 1.0);
  v.V[5] = 0;
  expect_error([&] { cdist(res, x, y, Metric::kSEuclidean, v); }, {"V[5] = 0", "singular"});
  expect_error([&] { cdist(res, x, y, Metric::kEuclidean, v); }, {"takes no parameter V"});
  // Identical rows: the estimated covariance is singular.
  expect_error([&] { cdist(res, view(a.data(), 20, 8), view(a.data(), 20, 8), Metric::kMahalanobis); },
               {"covariance of x and y is singular"});
  MetricParams vi;
  vi.VI.assign(64, 0.0);
  for (int k = 0; k < 8; ++k) vi.VI[k * 9] = k == 3 ? -1.0 : 1.0;
  expect_error([&] { cdist(res, x, y, Metric::kMahalanobis, vi); }, {"VI is not symmetric positive definite"});
  vi.VI.resize(10);
  expect_error([&] { cdist(res, x, y, Metric::kMahalanobis, vi); }, {"VI has 10 entries"});
  expect_error([&] { cdist(res, x, y, Metric::kHammingBits); }, {"hamming_bits needs uint8"});
  expect_error([&] { metric_from_name("euclidian"); }, {"unknown metric 'euclidian'", "euclidean"});
}

TEST(PairwiseNames, RoundTripAndAliases) {
  for (Metric m : all_metrics()) EXPECT_EQ(metric_from_name(metric_name(m)), m);
  EXPECT_EQ(metric_from_name("l2"), Metric::kEuclidean);
  EXPECT_EQ(metric_from_name("manhattan"), Metric::kCityblock);
  EXPECT_EQ(all_metrics().size(), 23u);
}

}  // namespace
}  // namespace cudist
