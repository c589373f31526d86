// SpMV / SpMM / min-plus SpMV split over several shards by rows of A (sparse/detail/
// split_spmv.hpp) equal the unsplit call exactly. Integer values keep every sum exact whatever
// order a kernel adds in (the merge-path kernel's order depends on its partition of A), so the
// comparison is bit for bit. The shards are copies of the backend under test; power-law rows
// (many empty), more shards than rows, both index and value dtypes, beta != 0, strided vectors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/compare.hpp"
#include "cudist/core/error.hpp"
#include "cudist/sparse/generators.hpp"
#include "sparse/detail/split_spmv.hpp"
#include "sparse/sparse_fixtures.hpp"

namespace cudist {
namespace {

using sparse::detail::SplitProduct;

/// A on the host with small integer values, so every product and sum is exact.
sparse::CsrMatrix integer_valued(sparse::CsrMatrix a) {
  std::vector<double> v(static_cast<std::size_t>(a.nnz()));
  for (std::size_t e = 0; e < v.size(); ++e) v[e] = static_cast<double>(static_cast<int>(e % 7) - 3);
  test::fill(a.values(), v);
  return a;
}

Array integer_matrix(std::int64_t rows, std::int64_t cols, DType dtype, int salt) {
  Array a = Array::allocate(rows, cols, dtype, Device::cpu());
  std::vector<double> v(static_cast<std::size_t>(rows * cols));
  for (std::size_t e = 0; e < v.size(); ++e) v[e] = static_cast<double>(static_cast<int>((e * 5 + salt) % 9) - 4);
  test::fill(a, v);
  return a;
}

TEST(SplitSpmv, EqualsTheUnsplitCall) {
  CUDIST_REQUIRE_BACKEND();
  Resources const one = test::backend_resources();
  for (test::SparseTypes types : test::all_sparse_types()) {
    for (int shape = 0; shape < 2; ++shape) {
      sparse::CsrMatrix const host =
          integer_valued(shape == 0 ? sparse::rmat_csr(7, 6, 11, {}, types.value, types.index)
                                    : sparse::uniform_random_csr(53, 40, 3, 12, types.value, types.index));
      sparse::CsrMatrix const a = sparse::CsrMatrix::copy_of(host.view(), one.device);
      Array const x = test::to_backend(integer_matrix(a.cols(), 1, types.value, 1));
      Array const xs = test::to_backend(integer_matrix(a.cols(), 3, types.value, 2));
      Array const y0 = test::to_backend(integer_matrix(a.rows(), 1, types.value, 3));
      Array const ys0 = test::to_backend(integer_matrix(a.rows(), 3, types.value, 4));
      for (std::size_t shards : {2u, 3u, 130u}) {  // 130 > rows: empty shards
        std::vector<Resources> const set(shards, one);
        std::string const label = test::types_name(types) + " shape " + std::to_string(shape) +
                                  " shards " + std::to_string(shards);
        for (double beta : {0.0, 2.0}) {
          Array want = Array::copy_of(y0, one.device), got = Array::copy_of(y0, one.device);
          sparse::spmv(one, a.view(), x, want.view(), 3.0, beta);
          sparse::detail::split_product("spmv", set, SplitProduct::kSpmv, a.view(), x, got.view(), 3.0, beta);
          EXPECT_TRUE(test::identical(got, want)) << label << " spmv beta " << beta;

          // y as a row vector (1, rows).
          MatrixView const row_want{want.data(), 1, a.rows(), a.rows(), want.dtype(), want.memory()};
          MatrixView const row_got{got.data(), 1, a.rows(), a.rows(), got.dtype(), got.memory()};
          sparse::spmv(one, a.view(), x, row_want, 1.0, beta);
          sparse::detail::split_product("spmv", set, SplitProduct::kSpmv, a.view(), x, row_got, 1.0, beta);
          EXPECT_TRUE(test::identical(got, want)) << label << " spmv, row vector, beta " << beta;

          Array wm = Array::copy_of(ys0, one.device), gm = Array::copy_of(ys0, one.device);
          sparse::spmm(one, a.view(), xs, wm.view(), 2.0, beta);
          sparse::detail::split_product("spmm", set, SplitProduct::kSpmm, a.view(), xs, gm.view(), 2.0, beta);
          EXPECT_TRUE(test::identical(gm, wm)) << label << " spmm beta " << beta;
        }
        Array want = Array::copy_of(y0, one.device), got = Array::copy_of(y0, one.device);
        sparse::spmv_min_plus(one, a.view(), x, want.view());
        sparse::detail::split_product("spmv_min_plus", set, SplitProduct::kSpmvMinPlus, a.view(), x,
                                      got.view(), 1, 0);
        EXPECT_TRUE(test::identical(got, want)) << label << " min-plus";
      }
    }
  }
}

TEST(SplitSpmv, RefusesWhatItDoesNotSplit) {
  CUDIST_REQUIRE_BACKEND();
  Resources const two(DeviceSet(std::vector<Device>{Device::cuda(0), Device::cuda(1)}));
  sparse::CsrMatrix const a = integer_valued(sparse::uniform_random_csr(5, 4, 2, 1));
  Array const x = integer_matrix(5, 1, DType::kFloat32, 0);
  Array y = integer_matrix(4, 1, DType::kFloat32, 0);
  try {
    sparse::spmv(two, a.view(), x, y.view(), 1.0, 0.0, sparse::Operation::kTranspose);
    FAIL() << "expected InvalidArgument";
  } catch (InvalidArgument const& e) {
    EXPECT_NE(std::string(e.what()).find("spmv: A^T is not split"), std::string::npos) << e.what();
  }
  EXPECT_THROW(sparse::make_spmv_plan(two, a.view()), InvalidArgument);
}

}  // namespace
}  // namespace cudist
