// CsrMatrix and validate_csr on the backend this executable was built for: every structural
// defect is reported with the index and values involved, wherever the matrix lives; the shape
// checks run first and need no data.
#include "cudist/sparse/csr.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "cudist/core/error.hpp"
#include "cudist/sparse/spmv.hpp"
#include "sparse/sparse_fixtures.hpp"

namespace cudist {
namespace {

using sparse::CsrCheck;
using sparse::CsrView;
using test::SparseTypes;

class Csr : public ::testing::TestWithParam<SparseTypes> {
 protected:
  /// A 4 x 5 matrix with entries in rows 0, 1 and 3 (row 2 empty).
  static reference::Csr good() {
    reference::Csr a;
    a.rows = 4;
    a.cols = 5;
    a.offsets = {0, 2, 5, 5, 7};
    a.col_indices = {4, 0, 1, 1, 3, 0, 2};  // row 1 repeats column 1: allowed
    a.values = {1, 2, 3, 4, 5, 6, 7};
    return a;
  }

  /// validate_csr of `a` on the backend throws InvalidArgument containing `needle`, and so does
  /// make_spmv_plan; with CsrCheck::kShapeOnly neither looks at the structure.
  void expect_rejected(reference::Csr const& a, std::string const& needle) {
    Resources const res = test::backend_resources();
    sparse::CsrMatrix const m = test::to_backend(a, GetParam());
    try {
      sparse::validate_csr(res, m.view());
      ADD_FAILURE() << "accepted; expected an error mentioning '" << needle << "'";
    } catch (InvalidArgument const& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("validate_csr: "), std::string::npos) << e.what();
    }
    EXPECT_THROW(sparse::make_spmv_plan(res, m.view()), InvalidArgument);
    EXPECT_NO_THROW(sparse::validate_csr(res, m.view(), CsrCheck::kShapeOnly));
  }
};

TEST_P(Csr, AcceptsUnsortedRepeatedColumnsAndEmptyRows) {
  CUDIST_REQUIRE_BACKEND();
  sparse::CsrMatrix const m = test::to_backend(good(), GetParam());
  EXPECT_NO_THROW(sparse::validate_csr(test::backend_resources(), m.view()));
  EXPECT_EQ(m.rows(), 4);
  EXPECT_EQ(m.cols(), 5);
  EXPECT_EQ(m.nnz(), 7);
  EXPECT_EQ(m.device(), test::backend_device());
}

TEST_P(Csr, ReportsFirstOffsetNotZero) {
  CUDIST_REQUIRE_BACKEND();
  reference::Csr a = good();
  a.offsets[0] = 1;
  expect_rejected(a, "row_offsets[0] = 1 but must be 0");
}

TEST_P(Csr, ReportsLastOffsetNotNnz) {
  CUDIST_REQUIRE_BACKEND();
  reference::Csr a = good();
  a.offsets[4] = 6;
  expect_rejected(a, "row_offsets[4] = 6 but must equal nnz = 7");
}

TEST_P(Csr, ReportsTheFirstDecreasingOffset) {
  CUDIST_REQUIRE_BACKEND();
  reference::Csr a = good();
  a.offsets = {0, 5, 2, 1, 7};
  expect_rejected(a, "row_offsets[2] = 2 is less than row_offsets[1] = 5");
}

TEST_P(Csr, ReportsTheFirstColumnOutOfRange) {
  CUDIST_REQUIRE_BACKEND();
  reference::Csr a = good();
  a.col_indices[3] = 5;
  a.col_indices[5] = -1;
  expect_rejected(a, "col_indices[3] = 5 is outside [0, 5)");
  a.col_indices[3] = 1;
  expect_rejected(a, "col_indices[5] = -1 is outside [0, 5)");
}

TEST_P(Csr, FindsViolationsDeepInLargeMatrices) {
  CUDIST_REQUIRE_BACKEND();
  // Many threads scan these: the smallest violating index must win.
  reference::Csr a = test::random_ragged(20000, 300, 12, 3);
  a.col_indices[123456 % a.col_indices.size()] = 300;
  a.col_indices[a.col_indices.size() - 1] = 301;
  expect_rejected(a, "col_indices[" + std::to_string(123456 % a.col_indices.size()) + "] = 300");
}

TEST_P(Csr, ShapeChecksNeedNoData) {
  Resources const res = test::backend_resources();
  SparseTypes const t = GetParam();
  alignas(16) std::int64_t const fake[2] = {};  // never read: every call below fails first
  CsrView v{3, 3, 2, fake, fake, fake, t.index, t.value, Memory::kHost};
  auto expect_error = [&](CsrView const& bad, std::string const& needle) {
    try {
      sparse::validate_csr(res, bad);
      ADD_FAILURE() << "accepted; expected an error mentioning '" << needle << "'";
    } catch (InvalidArgument const& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  CsrView bad = v;
  bad.rows = -1;
  expect_error(bad, "negative shape");
  bad = v;
  bad.index_dtype = DType::kInt16;
  expect_error(bad, "index dtype is int16");
  bad = v;
  bad.value_dtype = DType::kFloat16;
  expect_error(bad, "value dtype is float16");
  bad = v;
  bad.values = nullptr;
  expect_error(bad, "values is null");
  bad = v;
  bad.row_offsets = nullptr;
  expect_error(bad, "row_offsets is null");
  bad = v;
  bad.rows = 0;
  expect_error(bad, "no rows but nnz = 2");
  if (t.index == DType::kInt32) {
    bad = v;
    bad.nnz = std::int64_t(3) << 30;
    expect_error(bad, "does not fit int32 indices");
  }
  bad = v;
  bad.col_indices = reinterpret_cast<char const*>(fake) + 1;
  expect_error(bad, "col_indices pointer is not aligned");
}

TEST_P(Csr, CopiesBetweenMemoriesAndKeepsEmptyMatricesValid) {
  CUDIST_REQUIRE_BACKEND();
  SparseTypes const t = GetParam();
  sparse::CsrMatrix const host = test::to_library(good(), t);
  sparse::CsrMatrix const there = sparse::CsrMatrix::copy_of(host.view(), test::backend_device());
  sparse::CsrMatrix const back = sparse::CsrMatrix::copy_of(there.view(), Device::cpu());
  reference::Csr const round = test::from_library(back);
  EXPECT_EQ(round.offsets, good().offsets);
  EXPECT_EQ(round.col_indices, good().col_indices);
  EXPECT_EQ(round.values, good().values);
  EXPECT_EQ(back.value_dtype(), t.value);
  EXPECT_EQ(back.index_dtype(), t.index);

  // A 0 x 7 matrix may come without offsets; its copy holds the single offset 0.
  CsrView empty{0, 7, 0, nullptr, nullptr, nullptr, t.index, t.value, Memory::kHost};
  sparse::CsrMatrix const e = sparse::CsrMatrix::copy_of(empty, test::backend_device());
  EXPECT_EQ(test::from_library(sparse::CsrMatrix::copy_of(e.view(), Device::cpu())).offsets,
            std::vector<std::int64_t>{0});
  EXPECT_NO_THROW(sparse::validate_csr(test::backend_resources(), e.view()));
  sparse::CsrMatrix const nothing;  // 0 x 0, no arrays: still a valid matrix
  EXPECT_EQ(nothing.view().rows, 0);
  EXPECT_NO_THROW(sparse::validate_csr(Resources(Device::cpu()), nothing.view()));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Csr, ::testing::ValuesIn(test::all_sparse_types()),
                         [](auto const& info) { return test::types_name(info.param); });

}  // namespace
}  // namespace cudist
