// semiring_product against the independent reference (reference/semiring_ref.hpp) on the backend
// this executable is built for: every semiring and dtype on ragged shapes, witnesses, the
// accumulate form, identity laws, infinities, saturation and the DPX exact-range boundaries.
// Integer-valued data keeps every result exact, so everything compares with ==.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/reduced.hpp"
#include "cudist/core/error.hpp"
#include "cudist/semiring/semiring.hpp"
#include "reference/semiring_ref.hpp"
#include "semiring/semiring_data.hpp"

namespace cudist::test {
namespace {

struct Shape {
  std::int64_t m, d, n;
};

// Not multiples of any tile (128 x 128 x 16 on the GPU, 4/8 x 16 x 64 on the CPU), both sides of
// them, and depth 1 and 2 (a single partial k-slab).
constexpr Shape kRaggedShapes[] = {{1, 1, 1},     {2, 3, 1},       {1, 33, 2},     {31, 2, 33},
                                   {33, 31, 1},   {113, 127, 129}, {129, 203, 113}, {127, 129, 203},
                                   {203, 1, 127}, {2, 129, 31}};

constexpr Semiring kSelective[] = {Semiring::kMinPlus, Semiring::kMaxPlus, Semiring::kMinMax,
                                   Semiring::kMaxMin, Semiring::kOrAnd};

std::string context(Semiring s, DType dtype, Shape sh) {
  return std::string(semiring_name(s)) + " " + std::string(dtype_name(dtype)) + " m=" +
         std::to_string(sh.m) + " d=" + std::to_string(sh.d) + " n=" + std::to_string(sh.n) +
         " backend=" + CUDIST_TEST_BACKEND;
}

/// Inputs that exercise `s` exactly: small integers, and for the selective semirings a share of
/// "no edge" entries (the semiring's zero); or-and gets mostly zeros so results are not all 1.
SemiringMatrix operand(Semiring s, DType dtype, std::int64_t rows, std::int64_t cols,
                       std::uint64_t seed) {
  switch (s) {
    case Semiring::kOrAnd: return integer_matrix(rows, cols, dtype, 1, 3, seed, 0.85, 0);
    case Semiring::kPlusTimes: return integer_matrix(rows, cols, dtype, -4, 4, seed);
    default: return integer_matrix(rows, cols, dtype, -8, 8, seed, 0.15, semiring_zero(s, dtype));
  }
}

struct Result {
  Array c;        // host
  Array witness;  // host; empty when not requested
};

/// Runs the backend on copies of the inputs; c0 / w0 seed the accumulate form.
Result run(SemiringMatrix const& a, SemiringMatrix const& b, Semiring s, bool witness,
           SemiringMatrix const* c0 = nullptr, Array const* w0 = nullptr) {
  Device const dev = backend_device();
  Array const ad = Array::copy_of(a.array, dev), bd = Array::copy_of(b.array, dev);
  Array c = c0 != nullptr ? Array::copy_of(c0->array, dev)
                          : Array::allocate(a.values.rows, b.values.cols, a.array.dtype(), dev);
  Array w;
  SemiringOptions options;
  options.accumulate = c0 != nullptr;
  if (witness) {
    w = w0 != nullptr ? Array::copy_of(*w0, dev)
                      : Array::allocate(a.values.rows, b.values.cols, DType::kInt32, dev);
    options.witness = w.view();
  }
  semiring_product(backend_resources(), ad, bd, c.view(), s, options);
  return {to_host(c), witness ? to_host(w) : Array{}};
}

/// Every witness k achieves its entry: a[i][k] (x) b[k][j] == c[i][j]; -1 only at the zero.
::testing::AssertionResult witnesses_achieve(Result const& r, SemiringMatrix const& a,
                                             SemiringMatrix const& b, Semiring s, DType dtype) {
  double const zero = semiring_zero(s, dtype);
  for (std::int64_t i = 0; i < r.c.rows(); ++i) {
    for (std::int64_t j = 0; j < r.c.cols(); ++j) {
      std::int32_t const k = r.witness.data_as<std::int32_t>()[i * r.c.cols() + j];
      double const c = value_at(r.c, i * r.c.cols() + j);
      bool const ok = k < 0 ? c == zero
                            : k < a.values.cols &&
                                  reference::semiring_term(a.values, b.values, i, k, j, s, dtype) == c;
      if (!ok) {
        return ::testing::AssertionFailure() << "(" << i << ", " << j << "): witness " << k
                                             << " does not achieve " << c;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(SemiringProduct, EverySemiringAndDtypeOnRaggedShapesIsEquivalentToRef) {
  CUDIST_REQUIRE_BACKEND();
  test::CombinationSampler sample(3);  // reduced runs: a third of the combinations
  for (Semiring s : all_semirings()) {
    for (DType dtype : kSemiringDtypes) {
      for (Shape sh : kRaggedShapes) {
        if (!sample.keep()) continue;
        SCOPED_TRACE(context(s, dtype, sh));
        std::uint64_t const seed = 7919 * sh.m + 31 * sh.n + sh.d + 1000 * static_cast<int>(s);
        SemiringMatrix const a = operand(s, dtype, sh.m, sh.d, seed);
        SemiringMatrix const b = operand(s, dtype, sh.d, sh.n, seed + 1);
        Result const r = run(a, b, s, false);
        EXPECT_TRUE(matches(r.c, reference::semiring_product(a.values, b.values, s, dtype).c));
      }
    }
  }
}

TEST(SemiringProduct, WitnessIsTheSmallestKThatAchievesEachEntry) {
  CUDIST_REQUIRE_BACKEND();
  for (Semiring s : kSelective) {
    for (DType dtype : kSemiringDtypes) {
      for (Shape sh : {Shape{1, 1, 1}, Shape{33, 31, 2}, Shape{113, 127, 129}, Shape{129, 203, 113}}) {
        SCOPED_TRACE(context(s, dtype, sh));
        std::uint64_t const seed = 104729 + 7919 * sh.m + sh.d;
        SemiringMatrix const a = operand(s, dtype, sh.m, sh.d, seed);
        SemiringMatrix const b = operand(s, dtype, sh.d, sh.n, seed + 1);
        Result const r = run(a, b, s, true);
        auto const want = reference::semiring_product(a.values, b.values, s, dtype);
        EXPECT_TRUE(matches(r.c, want.c));
        EXPECT_TRUE(equals(r.witness, want.witness));
        EXPECT_TRUE(witnesses_achieve(r, a, b, s, dtype));
      }
    }
  }
}

TEST(SemiringProduct, AccumulateFormCombinesWithC) {
  CUDIST_REQUIRE_BACKEND();
  Shape const sh{129, 33, 131};
  for (Semiring s : all_semirings()) {
    for (DType dtype : kSemiringDtypes) {
      SCOPED_TRACE(context(s, dtype, sh));
      SemiringMatrix const a = operand(s, dtype, sh.m, sh.d, 11);
      SemiringMatrix const b = operand(s, dtype, sh.d, sh.n, 12);
      SemiringMatrix const c0 = operand(s, dtype, sh.m, sh.n, 13);
      Result const r = run(a, b, s, false, &c0);
      EXPECT_TRUE(matches(r.c, reference::semiring_product(a.values, b.values, s, dtype, &c0.values).c));
    }
  }
}

TEST(SemiringProduct, AccumulateFormKeepsTheWitnessWhereCIsNotImproved) {
  CUDIST_REQUIRE_BACKEND();
  Shape const sh{127, 65, 130};
  for (Semiring s : kSelective) {
    for (DType dtype : kSemiringDtypes) {
      SCOPED_TRACE(context(s, dtype, sh));
      SemiringMatrix const a = operand(s, dtype, sh.m, sh.d, 21);
      SemiringMatrix const b = operand(s, dtype, sh.d, sh.n, 22);
      SemiringMatrix const c0 = operand(s, dtype, sh.m, sh.n, 23);
      SemiringMatrix const w0 = integer_matrix(sh.m, sh.n, DType::kInt32, 1000, 2000, 24);
      std::vector<std::int32_t> w0v(w0.values.v.begin(), w0.values.v.end());
      Result const r = run(a, b, s, true, &c0, &w0.array);
      auto const want = reference::semiring_product(a.values, b.values, s, dtype, &c0.values, &w0v);
      EXPECT_TRUE(matches(r.c, want.c));
      EXPECT_TRUE(equals(r.witness, want.witness));
    }
  }
}

TEST(SemiringProduct, IdentityMatrixIsANeutralFactor) {
  CUDIST_REQUIRE_BACKEND();
  for (Semiring s : all_semirings()) {
    for (DType dtype : kSemiringDtypes) {
      SCOPED_TRACE(context(s, dtype, {37, 37, 37}));
      // or-and results are 0 or 1, so its A must be too.
      SemiringMatrix const a = s == Semiring::kOrAnd ? integer_matrix(37, 37, dtype, 1, 1, 31, 0.5, 0)
                                                     : operand(s, dtype, 37, 37, 31);
      SemiringMatrix const id = diagonal_matrix(37, dtype, semiring_one(s, dtype), semiring_zero(s, dtype));
      EXPECT_TRUE(matches(run(a, id, s, false).c, a.values)) << "A (x) I";
      EXPECT_TRUE(matches(run(id, a, s, false).c, a.values)) << "I (x) A";
    }
  }
}

TEST(SemiringProduct, RowsWithoutEdgesStayInfinite) {
  CUDIST_REQUIRE_BACKEND();
  for (Semiring s : {Semiring::kMinPlus, Semiring::kMaxPlus, Semiring::kMinMax, Semiring::kMaxMin}) {
    for (DType dtype : kSemiringDtypes) {
      SCOPED_TRACE(context(s, dtype, {40, 50, 60}));
      double const zero = semiring_zero(s, dtype);
      SemiringMatrix a = operand(s, dtype, 40, 50, 41);
      for (std::int64_t k = 0; k < 50; ++k) {  // row 7 of A: no edges at all
        set_value(a.array, 7 * 50 + k, zero);
        a.values.v[static_cast<std::size_t>(7 * 50 + k)] = zero;
      }
      SemiringMatrix const b = integer_matrix(50, 60, dtype, -8, 8, 42, 1.0, zero);  // all zero
      Result const r = run(a, b, s, true);
      for (std::int64_t e = 0; e < r.c.size(); ++e) {
        ASSERT_EQ(value_at(r.c, e), zero) << "entry " << e;
        ASSERT_EQ(r.witness.data_as<std::int32_t>()[e], -1) << "entry " << e;
      }
      Result const r2 = run(a, operand(s, dtype, 50, 60, 43), s, false);
      for (std::int64_t j = 0; j < 60; ++j) ASSERT_EQ(value_at(r2.c, 7 * 60 + j), zero) << "column " << j;
    }
  }
}

TEST(SemiringProduct, IntegerSumsSaturateInsteadOfWrapping) {
  CUDIST_REQUIRE_BACKEND();
  struct Case {
    DType dtype;
    double big;  // finite, and big + big is beyond the dtype
  };
  for (Case c : {Case{DType::kInt16, 20000}, Case{DType::kInt32, 1.5e9}}) {
    for (Semiring s : all_semirings()) {
      SCOPED_TRACE(context(s, c.dtype, {65, 70, 75}));
      // Large finite values of both signs, and the semiring's zero and one. Integer plus-times
      // accumulates in int64, so its int32 products stay far enough below 2^63 for 70 terms.
      double const big = s == Semiring::kPlusTimes && c.dtype == DType::kInt32 ? 1e6 : c.big;
      SemiringMatrix const a = integer_matrix(65, 70, c.dtype, -big, big, 51, 0.1, semiring_zero(s, c.dtype));
      SemiringMatrix const b = integer_matrix(70, 75, c.dtype, -big, big, 52, 0.1, semiring_one(s, c.dtype));
      Result const r = run(a, b, s, s != Semiring::kPlusTimes);
      auto const want = reference::semiring_product(a.values, b.values, s, c.dtype);
      EXPECT_TRUE(matches(r.c, want.c));
      if (s != Semiring::kPlusTimes) {
        EXPECT_TRUE(equals(r.witness, want.witness));
      }
    }
    // Every term overflows: min-plus gives +infinity, max-plus -infinity; never a wrapped value.
    SemiringMatrix const pos = integer_matrix(20, 30, c.dtype, c.big, c.big, 53);
    SemiringMatrix const neg = integer_matrix(30, 20, c.dtype, -c.big, -c.big, 54);
    Result const up = run(pos, integer_matrix(30, 20, c.dtype, c.big, c.big, 55), Semiring::kMinPlus, false);
    Result const down = run(integer_matrix(20, 30, c.dtype, -c.big, -c.big, 56), neg, Semiring::kMaxPlus, false);
    for (std::int64_t e = 0; e < up.c.size(); ++e) {
      ASSERT_EQ(value_at(up.c, e), semiring_zero(Semiring::kMinPlus, c.dtype));
      ASSERT_EQ(value_at(down.c, e), semiring_zero(Semiring::kMaxPlus, c.dtype));
    }
  }
}

TEST(SemiringProduct, ExactAtBothSidesOfTheDpxRange) {
  CUDIST_REQUIRE_BACKEND();
  // The GPU's DPX loop is exact for finite entries within +-2^28 (int32) / +-4096 (int16) and
  // hands larger inputs to the saturating loop; both sides must give the reference's answer.
  struct Case {
    DType dtype;
    double limit;
  };
  for (Case c : {Case{DType::kInt32, 268435456.0}, Case{DType::kInt16, 4096.0}}) {
    for (Semiring s : {Semiring::kMinPlus, Semiring::kMaxPlus}) {
      for (double hi : {c.limit, c.limit + 1}) {
        SCOPED_TRACE(context(s, c.dtype, {131, 97, 259}) + " max |entry| " + std::to_string(hi));
        SemiringMatrix const a = integer_matrix(131, 97, c.dtype, -hi, hi, 61, 0.2, semiring_zero(s, c.dtype));
        SemiringMatrix const b = integer_matrix(97, 259, c.dtype, -c.limit, c.limit, 62, 0.2, semiring_zero(s, c.dtype));
        Result const r = run(a, b, s, false);
        EXPECT_TRUE(matches(r.c, reference::semiring_product(a.values, b.values, s, c.dtype).c));
      }
    }
  }
}

TEST(SemiringProduct, RealValuedPlusTimesMatchesWithinRounding) {
  CUDIST_REQUIRE_BACKEND();
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    std::int64_t const m = 70, d = 300, n = 90;
    SemiringMatrix a = integer_matrix(m, d, dtype, -1000, 1000, 71);
    SemiringMatrix b = integer_matrix(d, n, dtype, -1000, 1000, 72);
    for (SemiringMatrix* x : {&a, &b}) {  // reals in [-1, 1], as stored
      for (std::int64_t e = 0; e < x->array.size(); ++e) {
        set_value(x->array, e, x->values.v[static_cast<std::size_t>(e)] / 1024.0 + 1.0 / 3.0);
        x->values.v[static_cast<std::size_t>(e)] = value_at(x->array, e);
      }
    }
    Result const r = run(a, b, Semiring::kPlusTimes, false);
    auto const want = reference::semiring_product(a.values, b.values, Semiring::kPlusTimes, DType::kFloat64);
    double const tol = dtype == DType::kFloat32 ? 1e-4 : 1e-12;  // |terms| <= 1.8, d = 300
    for (std::int64_t e = 0; e < r.c.size(); ++e)
      ASSERT_NEAR(value_at(r.c, e), want.c.v[static_cast<std::size_t>(e)], tol * d) << "entry " << e;
  }
}

TEST(SemiringProduct, StridedViewsAndLargerShapes) {
  CUDIST_REQUIRE_BACKEND();
  for (DType dtype : kSemiringDtypes) {
    for (Shape sh : {Shape{300, 257, 301}, Shape{257, 64, 515}}) {
      SCOPED_TRACE(context(Semiring::kMinPlus, dtype, sh));
      // a, b and c are windows of wider matrices: strides that break every vector alignment.
      SemiringMatrix const wa = operand(Semiring::kMinPlus, dtype, sh.m, sh.d + 3, 81);
      SemiringMatrix const wb = operand(Semiring::kMinPlus, dtype, sh.d, sh.n + 5, 82);
      std::size_t const es = size_of(dtype);
      ConstMatrixView const av(static_cast<char const*>(wa.array.data()) + es, sh.m, sh.d, sh.d + 3, dtype);
      ConstMatrixView const bv(static_cast<char const*>(wb.array.data()) + 2 * es, sh.d, sh.n, sh.n + 5, dtype);
      reference::Matrix ra{sh.m, sh.d, {}}, rb{sh.d, sh.n, {}};
      for (std::int64_t i = 0; i < sh.m; ++i)
        for (std::int64_t k = 0; k < sh.d; ++k) ra.v.push_back(wa.values(i, k + 1));
      for (std::int64_t k = 0; k < sh.d; ++k)
        for (std::int64_t j = 0; j < sh.n; ++j) rb.v.push_back(wb.values(k, j + 2));
      Array wide_c = Array::allocate(sh.m, sh.n + 1, dtype, backend_device());
      MatrixView const cv(wide_c.data(), sh.m, sh.n, sh.n + 1, dtype);
      Array const ad = Array::copy_of(av, backend_device()), bd = Array::copy_of(bv, backend_device());
      // Strided inputs in the backend's memory: copy the wide matrices and view them.
      Array const wad = Array::copy_of(wa.array, backend_device()), wbd = Array::copy_of(wb.array, backend_device());
      ConstMatrixView const avd(static_cast<char const*>(wad.data()) + es, sh.m, sh.d, sh.d + 3, dtype);
      ConstMatrixView const bvd(static_cast<char const*>(wbd.data()) + 2 * es, sh.d, sh.n, sh.n + 5, dtype);
      semiring_product(backend_resources(), avd, bvd, cv, Semiring::kMinPlus);
      Array const got = Array::copy_of(cv, Device::cpu());
      EXPECT_TRUE(matches(got, reference::semiring_product(ra, rb, Semiring::kMinPlus, dtype).c));
      // The same product from dense copies gives the same answer.
      Array dense_c = Array::allocate(sh.m, sh.n, dtype, backend_device());
      semiring_product(backend_resources(), ad, bd, dense_c.view(), Semiring::kMinPlus);
      EXPECT_TRUE(matches(to_host(dense_c), reference::semiring_product(ra, rb, Semiring::kMinPlus, dtype).c));
    }
  }
}

TEST(SemiringProduct, EmptyShapesAndZeroDepth) {
  CUDIST_REQUIRE_BACKEND();
  for (DType dtype : kSemiringDtypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    // m = 0 or n = 0: nothing to do.
    Array const e0 = semiring_product(backend_resources(), Array::allocate(0, 5, dtype, backend_device()),
                                      Array::allocate(5, 3, dtype, backend_device()), Semiring::kMinPlus);
    EXPECT_EQ(e0.rows(), 0);
    // d = 0: every entry is an empty sum, the zero; no witness.
    SemiringMatrix const a = integer_matrix(3, 0, dtype, 0, 0, 1), b = integer_matrix(0, 4, dtype, 0, 0, 2);
    for (Semiring s : kSelective) {
      Result const r = run(a, b, s, true);
      for (std::int64_t e = 0; e < r.c.size(); ++e) {
        EXPECT_EQ(value_at(r.c, e), semiring_zero(s, dtype));
        EXPECT_EQ(r.witness.data_as<std::int32_t>()[e], -1);
      }
    }
  }
}

TEST(SemiringNames, RoundTripAndRejectUnknown) {
  for (Semiring s : all_semirings()) EXPECT_EQ(semiring_from_name(semiring_name(s)), s);
  EXPECT_EQ(all_semirings().size(), 6u);
  try {
    semiring_from_name("tropical");
    FAIL() << "expected InvalidArgument";
  } catch (InvalidArgument const& e) {
    EXPECT_NE(std::string(e.what()).find("min-plus"), std::string::npos) << e.what();
  }
  EXPECT_THROW(semiring_zero(Semiring::kMinPlus, DType::kUInt8), InvalidArgument);
}

}  // namespace
}  // namespace cudist::test
