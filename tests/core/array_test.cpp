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

TEST(Array, LargeHostCopiesArriveWhole) {
  CUDIST_REQUIRE_BACKEND();
  // Beyond the size at which a GPU upload goes through page-locked stages (4 MiB, stages of
  // 8 MiB): several stages, a last one partly filled, rows of an odd width, and a source that is
  // contiguous (pieces of bytes) or strided (row by row). Every value distinct, so a stage
  // copied twice, skipped or shifted shows. The way back (downloads, staged from 1 MiB) is checked
  // by LargeDownloadsArriveWhole.
  std::int64_t const rows = 6007, cols = 997, stride = 1003;
  std::vector<std::int32_t> src(static_cast<std::size_t>(rows * stride));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::int32_t>(i * 2654435761u);
  for (std::int64_t source_stride : {cols, stride}) {
    ConstMatrixView const from = view(src.data(), rows, cols, source_stride);
    Array const on_backend = Array::copy_of(from, test::backend_device());
    std::vector<std::int32_t> back(static_cast<std::size_t>(rows * cols), -1);
    copy(on_backend.view(), view(back.data(), rows, cols));
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) wrong += back[i * cols + j] != src[i * source_stride + j];
    }
    EXPECT_EQ(wrong, 0) << "source stride " << source_stride;
  }
}

TEST(Array, LargeDownloadsArriveWhole) {
  CUDIST_REQUIRE_BACKEND();
  // Device (or CPU backend) rows back to pageable host memory, where a GPU download goes through
  // page-locked stages (from 1 MiB, stages of 8 MiB): a 1.5 MiB answer (one stage, partly
  // filled) and 24 MB (several stages in turn, the last one partial), into contiguous rows (pieces
  // of bytes) or strided ones (row by row), which must keep what lies between the rows.
  std::int64_t const cols = 997, stride = 1003;
  for (std::int64_t rows : {std::int64_t{397}, std::int64_t{6007}}) {
    std::vector<std::int32_t> src(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::int32_t>(i * 2654435761u);
    Array const on_backend = Array::copy_of(view(src.data(), rows, cols), test::backend_device());
    for (std::int64_t dest_stride : {cols, stride}) {
      std::vector<std::int32_t> back(static_cast<std::size_t>(rows * dest_stride), -1);
      copy(on_backend.view(), view(back.data(), rows, cols, dest_stride));
      std::int64_t wrong = 0, overwritten = 0;
      for (std::int64_t i = 0; i < rows; ++i) {
        for (std::int64_t j = 0; j < cols; ++j) wrong += back[i * dest_stride + j] != src[i * cols + j];
        for (std::int64_t j = cols; j < dest_stride; ++j) overwritten += back[i * dest_stride + j] != -1;
      }
      EXPECT_EQ(wrong, 0) << rows << " rows, destination stride " << dest_stride;
      EXPECT_EQ(overwritten, 0) << rows << " rows, destination stride " << dest_stride;
    }
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

TEST(Array, LeadingRowsShareTheMemoryAndOutliveTheWhole) {
  CUDIST_REQUIRE_BACKEND();
  std::vector<std::int64_t> src(4 * 2);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::int64_t>(i) * 3 - 5;
  Array lead;
  {
    Array const whole = Array::copy_of(view(src.data(), 4, 2), test::backend_device());
    lead = whole.leading_rows(3);
    EXPECT_EQ(lead.data(), whole.data());
    EXPECT_EQ(whole.leading_rows(0).size(), 0);
    EXPECT_EQ(whole.leading_rows(4).rows(), 4);
    EXPECT_THROW(whole.leading_rows(5), InvalidArgument);
    EXPECT_THROW(whole.leading_rows(-1), InvalidArgument);
  }  // the whole array is gone; its memory lives on in `lead`
  EXPECT_EQ(lead.rows(), 3);
  EXPECT_EQ(lead.cols(), 2);
  EXPECT_EQ(lead.bytes(), 3 * 2 * sizeof(std::int64_t));
  std::vector<std::int64_t> back(3 * 2, 0);
  copy(lead.view(), view(back.data(), 3, 2));
  for (std::size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i], src[i]);
}

}  // namespace
}  // namespace cudist
