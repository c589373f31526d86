// Every invalid argument of semiring_product throws InvalidArgument with a message that names it.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "common/backend.hpp"
#include "common/expect_error.hpp"
#include "cudist/core/error.hpp"
#include "cudist/semiring/semiring.hpp"

namespace cudist::test {
namespace {

class SemiringErrors : public ::testing::Test {
 protected:
  void SetUp() override { CUDIST_REQUIRE_BACKEND(); }
  Array host(std::int64_t r, std::int64_t c, DType t = DType::kFloat32) {
    return Array::allocate(r, c, t, Device::cpu());
  }
  void product(ConstMatrixView a, ConstMatrixView b, MatrixView c, Semiring s = Semiring::kMinPlus,
               SemiringOptions const& o = {}) {
    semiring_product(backend_resources(), a, b, c, s, o);
  }
};

TEST_F(SemiringErrors, MismatchedShapesNameTheArgument) {
  Array a = host(4, 5), b = host(6, 3), c = host(4, 3), b_ok = host(5, 3), c_bad = host(3, 4);
  expect_error([&] { product(a, b, c.view()); }, "a has 5 columns but b has 6 rows");
  expect_error([&] { product(a, b_ok, c_bad.view()); }, "c is (3, 4) but must be (4, 3)");
}

TEST_F(SemiringErrors, DtypesMustBeSupportedAndAgree) {
  Array a8 = host(4, 5, DType::kUInt8), b8 = host(5, 3, DType::kUInt8), c8 = host(4, 3, DType::kUInt8);
  expect_error([&] { product(a8, b8, c8.view()); }, "a is uint8");
  Array a = host(4, 5), b64 = host(5, 3, DType::kFloat64), b = host(5, 3), ci = host(4, 3, DType::kInt32);
  expect_error([&] { product(a, b64, host(4, 3).view()); }, "b is float64 but must be float32");
  expect_error([&] { product(a, b, ci.view()); }, "c is int32 but must be float32");
}

TEST_F(SemiringErrors, WitnessMustBeInt32OfCsShapeAndNotForPlusTimes) {
  Array a = host(4, 5), b = host(5, 3), c = host(4, 3);
  Array wf = host(4, 3), ws = host(3, 4, DType::kInt32), w = host(4, 3, DType::kInt32);
  SemiringOptions o;
  o.witness = wf.view();
  expect_error([&] { product(a, b, c.view(), Semiring::kMinPlus, o); }, "witness is float32 but must be int32");
  o.witness = ws.view();
  expect_error([&] { product(a, b, c.view(), Semiring::kMinPlus, o); }, "witness is (3, 4)");
  o.witness = w.view();
  expect_error([&] { product(a, b, c.view(), Semiring::kPlusTimes, o); }, "plus-times");
}

TEST_F(SemiringErrors, OutputMustNotOverlapInputs) {
  Array buf = host(8, 8);
  ConstMatrixView const a(buf.data(), 4, 4, 8, DType::kFloat32);
  MatrixView const c(buf.data_as<float>() + 1, 4, 4, 8, DType::kFloat32);  // shifted by one: overlaps a
  Array b = host(4, 4);
  expect_error([&] { product(a, b, c); }, "c overlaps an input");
  expect_error([&] { product(b, a, c); }, "c overlaps an input");
}

TEST_F(SemiringErrors, MalformedViews) {
  Array a = host(4, 5), b = host(5, 3), c = host(4, 3);
  ConstMatrixView const short_stride(a.data(), 4, 5, 3, DType::kFloat32);
  expect_error([&] { product(short_stride, b, c.view()); }, "a has row stride 3 < its 5 columns");
  ConstMatrixView const null_b(nullptr, 5, 3, 3, DType::kFloat32);
  expect_error([&] { product(a, null_b, c.view()); }, "b is a null pointer");
  expect_error([&] { product(a, b, c.view(), static_cast<Semiring>(17)); }, "not a Semiring");
}

}  // namespace
}  // namespace cudist::test
