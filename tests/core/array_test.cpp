#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/backend.hpp"
#include "cudist/core/array.hpp"
#include "cudist/core/error.hpp"

namespace cudist {
namespace {

TEST(Array, RoundTripsThroughTheBackendWithStrides) {
  CUDIST_REQUIRE_BACKEND();
  // A 5 x 3 window of a 5 x 7 host matrix: strided source, dense copies, strided destination.
  std::vector<float> src(5 * 7);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) + 0.5f;
  Array on_backend = Array::copy_of(view(src.data() + 2, 5, 3, 7), test::backend_device());
  EXPECT_EQ(on_backend.device(), test::backend_device());
  std::vector<float> back(5 * 4, -1.f);
  copy(on_backend.view(), view(back.data(), 5, 3, 4));
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(back[i * 4 + j], src[i * 7 + 2 + j]);
    EXPECT_EQ(back[i * 4 + 3], -1.f) << "copy wrote past the row";
  }
}

TEST(Array, CopyRejectsMismatches) {
  std::vector<float> a(6);
  std::vector<double> b(6);
  EXPECT_THROW(copy(view(a.data(), 2, 3), view(a.data(), 3, 2)), InvalidArgument);
  EXPECT_THROW(copy(view(a.data(), 2, 3), view(b.data(), 2, 3)), InvalidArgument);
}

TEST(Array, EmptyArraysNeedNoMemory) {
  CUDIST_REQUIRE_BACKEND();
  Array a = Array::allocate(0, 5, DType::kFloat32, test::backend_device());
  EXPECT_EQ(a.size(), 0);
  EXPECT_EQ(a.bytes(), 0u);
}

}  // namespace
}  // namespace cudist
