// merge_knn: the answers of knn over parts of a database, merged, are one knn call's answer over
// all of it, bit for bit (ties, NaN, similarities, padding), in one merge or a merge of merges;
// bad arguments name themselves.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/expect_error.hpp"
#include "neighbors_test_util.hpp"

namespace cudist {
namespace {

/// Rows [begin, end) of a host or device view.
ConstMatrixView rows_of(ConstMatrixView v, std::int64_t begin, std::int64_t end) {
  v.data = static_cast<char const*>(v.data) + begin * v.stride * static_cast<std::int64_t>(size_of(v.dtype));
  v.rows = end - begin;
  return v;
}

/// One part's answer on the host, its indices into the whole database.
test::HostKnn part_answer(Resources const& res, ConstMatrixView x, ConstMatrixView y, std::int64_t begin,
                          std::int64_t end, std::int64_t k, Metric metric, KnnOptions options) {
  options.rank_values = true;
  options.pad = true;
  test::HostKnn part = test::to_host(knn(res, x, rows_of(y, begin, end), k, metric, options));
  std::int64_t* const j = part.indices.data_as<std::int64_t>();
  for (std::int64_t e = 0; e < part.indices.size(); ++e) j[e] += j[e] >= 0 ? begin : 0;
  return part;
}

/// The parts merged into a new (m, width) host answer.
test::HostKnn merged(std::vector<test::HostKnn const*> const& parts, std::int64_t k, std::int64_t width, Metric metric,
                     KnnMergeOptions const& options) {
  std::vector<ConstMatrixView> d, i;
  for (test::HostKnn const* p : parts) {
    d.push_back(p->distances.view());
    i.push_back(p->indices.view());
  }
  std::int64_t const m = d.front().rows;
  test::HostKnn out{Array::allocate(m, width, d.front().dtype, Device::cpu()),
                    Array::allocate(m, width, DType::kInt64, Device::cpu())};
  merge_knn(d, i, k, metric, out.distances.view(), out.indices.view(), options);
  return out;
}

TEST(MergeKnn, PartsMergedAnswerAsOneCall) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = test::backend_resources();
  // Few distinct values (many equal keys), y's first rows repeated in its last part: ties
  // across parts, decided by index.
  Array const x = test::random_integers(37, 6, DType::kFloat32, -2, 2, 11).array;
  Array y = test::random_integers(90, 6, DType::kFloat32, -2, 2, 12).array;
  for (std::int64_t r = 0; r < 10; ++r) {
    for (std::int64_t c = 0; c < 6; ++c) y.data_as<float>()[(80 + r) * 6 + c] = y.data_as<float>()[r * 6 + c];
  }
  Array const yd = Array::copy_of(y.view(), res.device, res.stream);
  std::int64_t const k = 12;
  for (Metric const metric : {Metric::kEuclidean, Metric::kSqEuclidean, Metric::kCityblock, Metric::kInnerProduct,
                              Metric::kChebyshev}) {
    SCOPED_TRACE(metric_name(metric));
    KnnOptions options;
    test::HostKnn const whole = test::to_host(knn(res, x, yd.view(), k, metric, options));
    test::HostKnn const a = part_answer(res, x, yd.view(), 0, 7, k, metric, options);  // fewer rows than k
    test::HostKnn const b = part_answer(res, x, yd.view(), 7, 50, k, metric, options);
    test::HostKnn const c = part_answer(res, x, yd.view(), 50, 90, k, metric, options);
    KnnMergeOptions from_values;
    from_values.parts_rank_values = true;
    test::HostKnn const once = merged({&a, &b, &c}, k, k, metric, from_values);
    EXPECT_TRUE(test::identical_fields({{"indices", once.indices.view(), whole.indices.view()},
                                        {"distances", once.distances.view(), whole.distances.view()}}));
    KnnMergeOptions keep_values = from_values;
    keep_values.rank_values = true;
    test::HostKnn const first = merged({&c, &a}, k, k, metric, keep_values);  // any order of parts
    test::HostKnn const twice = merged({&first, &b}, k, k, metric, from_values);
    EXPECT_TRUE(test::identical_fields({{"indices", twice.indices.view(), whole.indices.view()},
                                        {"distances", twice.distances.view(), whole.distances.view()}}));
  }
}

TEST(MergeKnn, OrderNanSimilarityAndEmptySlots) {
  float const nan = std::numeric_limits<float>::quiet_NaN();
  // One row, two parts: -0 and +0 tie (index decides), NaN after +inf, -1 ends a part's list.
  std::vector<float> d1{0.0f, 2.0f, nan, 7.0f}, d2{-0.0f, std::numeric_limits<float>::infinity(), 5.0f};
  std::vector<std::int64_t> i1{9, 3, 4, -1}, i2{2, 8, 6};
  std::vector<ConstMatrixView> d{view(d1.data(), 1, 4), view(d2.data(), 1, 3)};
  std::vector<ConstMatrixView> i{view(i1.data(), 1, 4), view(i2.data(), 1, 3)};
  std::vector<float> out(8);
  std::vector<std::int64_t> at(8);
  merge_knn(d, i, 7, Metric::kCityblock, view(out.data(), 1, 8), view(at.data(), 1, 8));
  EXPECT_EQ(at, (std::vector<std::int64_t>{2, 9, 3, 6, 8, 4, -1, -1}));
  EXPECT_EQ(out[3], 5.0f);
  EXPECT_TRUE(std::isnan(out[5]) && std::isnan(out[6]) && std::isnan(out[7]));
  // Ranked lists (merged by their heads, not sorted): the same order.
  std::vector<float> d3{-0.0f, 5.0f, std::numeric_limits<float>::infinity()};
  std::vector<std::int64_t> i3{2, 6, 8};
  d[1] = view(d3.data(), 1, 3);
  i[1] = view(i3.data(), 1, 3);
  merge_knn(d, i, 7, Metric::kCityblock, view(out.data(), 1, 8), view(at.data(), 1, 8));
  EXPECT_EQ(at, (std::vector<std::int64_t>{2, 9, 3, 6, 8, 4, -1, -1}));
  // A similarity: larger first, NaN still last; k = 3 of the 6 candidates.
  merge_knn(d, i, 3, Metric::kInnerProduct, view(out.data(), 1, 4), view(at.data(), 1, 4));
  EXPECT_EQ(std::vector<std::int64_t>(at.begin(), at.begin() + 4), (std::vector<std::int64_t>{8, 6, 3, -1}));
  // The root of the squares where the parts hold euclidean's rank values.
  KnnMergeOptions values;
  values.parts_rank_values = true;
  merge_knn(d, i, 3, Metric::kEuclidean, view(out.data(), 1, 3), view(at.data(), 1, 3), values);
  EXPECT_EQ(out[2], std::sqrt(2.0f));
}

TEST(MergeKnn, BadArgumentsNameThemselves) {
  std::vector<float> d1(6, 1.0f), d2(4, 1.0f), out(6);
  std::vector<double> d64(6, 1.0);
  std::vector<std::int64_t> i1(6, 0), i2(4, 0), at(6);
  ConstMatrixView const a = view(d1.data(), 2, 3), ai = view(i1.data(), 2, 3);
  MatrixView const o = view(out.data(), 2, 3), oi = view(at.data(), 2, 3);
  using test::expect_error;
  expect_error([&] { merge_knn({}, {}, 1, Metric::kEuclidean, o, oi); }, "no parts");
  expect_error([&] { merge_knn({a}, {ai, ai}, 1, Metric::kEuclidean, o, oi); }, "1 parts of distances but 2");
  expect_error([&] { merge_knn({a}, {ai}, 0, Metric::kEuclidean, o, oi); }, "k = 0");
  expect_error([&] { merge_knn({a, view(d2.data(), 1, 4)}, {ai, view(i2.data(), 1, 4)}, 1, Metric::kEuclidean, o, oi); },
               "part_distances[1]");
  expect_error([&] { merge_knn({a, view(d64.data(), 2, 3)}, {ai, ai}, 1, Metric::kEuclidean, o, oi); },
               "part_distances[1]");
  expect_error([&] { merge_knn({a}, {ConstMatrixView(view(d1.data(), 2, 3))}, 1, Metric::kEuclidean, o, oi); },
               "part_indices[0]");
  expect_error([&] { merge_knn({a}, {ai}, 3, Metric::kEuclidean, o, view(at.data(), 2, 2)); }, "indices");
  expect_error([&] { merge_knn({a}, {ai}, 3, Metric::kEuclidean, view(out.data(), 2, 2), view(at.data(), 2, 2)); },
               "fewer than the 3 best");
  expect_error([&] { merge_knn({a}, {ai}, 1, Metric::kEuclidean, view(d1.data(), 2, 3), oi); }, "overlaps part 0");
  KnnMergeOptions values_out;
  values_out.rank_values = true;
  expect_error([&] { merge_knn({a}, {ai}, 1, Metric::kEuclidean, o, oi, values_out); }, "parts hold distances");
}

}  // namespace
}  // namespace cudist
