// The rank keys both backends select on (src/neighbors/detail/keys.hpp): the total order of
// entries (NaN after +inf, -0 equal to +0, ties by index, the empty slot last), the round trip
// key -> order -> key, and the radius bound, for every key type, including the GPU-only uint32.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "neighbors/detail/keys.hpp"

namespace cudist::neighbors::detail {
namespace {

template <class Key>
class KeyOrder : public ::testing::Test {};
using FloatKeys = ::testing::Types<float, double>;
TYPED_TEST_SUITE(KeyOrder, FloatKeys);

TYPED_TEST(KeyOrder, NanAfterInfinityTiesByIndexEmptyLast) {
  using Key = TypeParam;
  using T = KeyTraits<Key>;
  Key const inf = std::numeric_limits<Key>::infinity(), nan = std::numeric_limits<Key>::quiet_NaN();
  std::vector<Key> const ascending = {-inf, Key(-2.5), Key(-0.0), Key(1e-30), Key(3), inf, nan};
  for (std::size_t a = 0; a + 1 < ascending.size(); ++a) {
    EXPECT_TRUE(T::entry(ascending[a], 7) < T::entry(ascending[a + 1], 0)) << a;
    EXPECT_TRUE(T::entry(ascending[a + 1], 9) < T::empty()) << a;
  }
  EXPECT_TRUE(T::entry(Key(2), 3) < T::entry(Key(2), 4));          // ties: smaller index first
  EXPECT_TRUE(T::entry(nan, 3) < T::entry(-nan, 4));                // every NaN is one NaN
  EXPECT_TRUE(T::entry(Key(-0.0), 1) < T::entry(Key(0.0), 2));      // -0 is +0: index decides
  EXPECT_FALSE(T::entry(Key(0.0), 1) < T::entry(Key(-0.0), 1));
  for (Key k : ascending) {
    if (!std::isnan(k)) {
      EXPECT_EQ(T::key(T::entry(k, 5)), k + Key(0));
    }
    EXPECT_EQ(T::index(T::entry(k, 5)), 5);
  }
  EXPECT_EQ(T::index(T::empty()), -1);
  EXPECT_TRUE(std::isnan(T::threshold(T::empty())));  // open: admits every key
  EXPECT_TRUE(T::may_enter(nan, Key(1)));               // NaN goes to the exact comparison
  EXPECT_FALSE(T::may_enter(Key(1), Key(1)));           // a later equal key never enters
}

TEST(IntegerKeyOrder, ExactIntegerKeys) {
  using T = KeyTraits<std::uint32_t>;
  EXPECT_TRUE(T::entry(5, 9) < T::entry(6, 0));
  EXPECT_TRUE(T::entry(5, 1) < T::entry(5, 2));
  EXPECT_TRUE(T::entry(0xfffffffeu, 0xfffffffeu) < T::empty());
  EXPECT_TRUE(T::may_enter(0xfffffffeu, T::threshold(T::empty())));
  EXPECT_EQ(T::key(T::entry(123456u, 3)), 123456u);
}

TEST(RadiusBound, LargestKeyWhoseReportedDistanceIsWithin) {
  RankSpec sq;
  sq.sqrt_distance = true;
  // float32 euclidean: keys are squares; the bound is the largest square whose float root <= r.
  for (double r : {0.0, 1.0, std::sqrt(20.0), 1000.5}) {
    auto const b = radius_bound<float, float>(r, sq);
    ASSERT_TRUE(b.has_value());
    EXPECT_LE(std::sqrt(*b), r);
    EXPECT_GT(std::sqrt(std::nextafter(*b, std::numeric_limits<float>::infinity())), r);
    auto const u = radius_bound<std::uint32_t, float>(r, sq);  // exact uint8 squares
    ASSERT_TRUE(u.has_value());
    EXPECT_LE(std::sqrt(static_cast<float>(*u)), r);
    EXPECT_GT(std::sqrt(static_cast<float>(*u + 1)), r);
  }
  RankSpec plain;
  auto const hamming = radius_bound<std::uint32_t, float>(118, plain);
  EXPECT_EQ(*hamming, 118u);
  auto const exact = radius_bound<double, double>(2.5, plain);
  EXPECT_EQ(*exact, 2.5);
  float const inf = std::numeric_limits<float>::infinity();
  auto const everything = radius_bound<float, float>(std::numeric_limits<double>::infinity(), plain);
  EXPECT_EQ(*everything, inf);
  RankSpec similarity;
  similarity.similarity = true;  // keys are -x.y: x.y >= r is key <= -r
  auto const six = radius_bound<float, float>(6.0, similarity);
  EXPECT_EQ(*six, -6.0f);
  auto const minus_four = radius_bound<float, float>(-4.0, similarity);
  EXPECT_EQ(*minus_four, 4.0f);
  auto const only_inf = radius_bound<float, float>(std::numeric_limits<double>::infinity(), similarity);
  EXPECT_EQ(*only_inf, -inf);  // only x.y = +inf
}

}  // namespace
}  // namespace cudist::neighbors::detail
