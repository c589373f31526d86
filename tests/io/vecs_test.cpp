#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/core/error.hpp"
#include "cudist/io/npy.hpp"
#include "io/file_helpers.hpp"

namespace cudist {
namespace {

using io::read_matrix;
using io::read_vecs;
using test::bytes_of;
using test::throws_file_error;

/// One record: its int32 dimension, then its values.
template <class T>
std::string vecs_record(std::vector<T> const& values) {
  return bytes_of(std::vector<std::int32_t>{static_cast<std::int32_t>(values.size())}) +
         bytes_of(values);
}

template <class T>
std::string vecs_file(std::vector<std::vector<T>> const& records) {
  std::string bytes;
  for (auto const& r : records) bytes += vecs_record(r);
  return bytes;
}

/// Writes `bytes` to a fresh temp file and returns its path.
std::string make_file(std::string const& name, std::string const& bytes) {
  std::string const path = test::temp_file(name);
  test::write_file(path, bytes);
  return path;
}

template <class T>
void expect_vecs_read(std::string const& name, DType dtype,
                      std::vector<std::vector<T>> const& records) {
  SCOPED_TRACE(name);
  Array const a = read_vecs(make_file(name, vecs_file(records)));
  ASSERT_EQ(a.rows(), static_cast<std::int64_t>(records.size()));
  ASSERT_EQ(a.cols(), static_cast<std::int64_t>(records[0].size()));
  EXPECT_EQ(a.dtype(), dtype);
  for (std::size_t i = 0; i < records.size(); ++i) {
    for (std::size_t j = 0; j < records[i].size(); ++j) {
      EXPECT_EQ(a.data_as<T>()[i * records[i].size() + j], records[i][j]);
    }
  }
}

TEST(ReadVecs, ReadsEachFormat) {
  expect_vecs_read<float>("a.fvecs", DType::kFloat32, {{1.5f, 2.f, 3.f}, {4.f, 5.f, 6.25f}});
  expect_vecs_read<std::uint8_t>("a.bvecs", DType::kUInt8,
                                 {{0, 255, 7, 8}, {1, 2, 3, 4}, {9, 9, 9, 9}});
  expect_vecs_read<std::int32_t>("a.ivecs", DType::kInt32, {{-1}, {2}, {2147483647}});
  expect_vecs_read<float>("UPPER.FVECS", DType::kFloat32, {{1.f, 2.f}});
}

TEST(ReadVecs, ReadsManyRecordsAcrossReadChunks) {
  // 130000 records of 132 bytes (17 MB) span more than one of the reader's 16 MiB chunks.
  constexpr int kRecords = 130000;
  constexpr int kDim = 128;
  auto const value = [](int r, int j) { return static_cast<std::uint8_t>(r * 7 + j); };
  std::string bytes;
  for (int r = 0; r < kRecords; ++r) {
    std::vector<std::uint8_t> record(kDim);
    for (int j = 0; j < kDim; ++j) record[j] = value(r, j);
    bytes += vecs_record(record);
  }
  Array const a = read_vecs(make_file("big.bvecs", bytes));
  ASSERT_EQ(a.rows(), kRecords);
  ASSERT_EQ(a.cols(), kDim);
  auto const* v = a.data_as<std::uint8_t>();
  for (int r = 0; r < kRecords; ++r) {
    for (int j = 0; j < kDim; ++j) ASSERT_EQ(v[r * kDim + j], value(r, j)) << r << ", " << j;
  }

  // The mismatch is found, and named, in the last chunk.
  bytes[static_cast<std::size_t>(kRecords - 1) * (4 + kDim)] = 127;
  std::string const bad = make_file("bad.bvecs", bytes);
  EXPECT_TRUE(throws_file_error([&] { read_vecs(bad); }, bad,
                                "record 129999 has dimension 127 but record 0 has 128"));
  std::filesystem::remove(test::temp_file("big.bvecs"));  // 17 MB each: not left in the temp dir
  std::filesystem::remove(bad);
}

TEST(ReadVecs, ReadsAnEmptyFileAsZeroByZero) {
  Array const a = read_vecs(make_file("empty.ivecs", ""));
  EXPECT_EQ(a.rows(), 0);
  EXPECT_EQ(a.cols(), 0);
  EXPECT_EQ(a.dtype(), DType::kInt32);
}

TEST(ReadVecs, RejectsMalformedFilesNamingThePathAndTheProblem) {
  std::string const three_floats = vecs_record(std::vector<float>{1.f, 2.f, 3.f});
  struct Case {
    char const* name;
    std::string bytes;
    char const* what;
  };
  std::vector<Case> const cases{
      {"dimension changes", vecs_file<float>({{1.f, 2.f}, {1.f, 2.f, 3.f}, {1.f, 2.f}}),
       "record 1 has dimension 3 but record 0 has 2"},
      {"dimension changes in the last record", vecs_file<float>({{1.f, 2.f, 3.f, 4.f}, {1.f}}),
       "record 1 has dimension 1 but record 0 has 4"},
      {"last record cut", three_floats + three_floats + three_floats.substr(0, 8),
       "truncated: record 2 has only 8 of its 16 bytes"},
      {"only record cut", three_floats.substr(0, 12), "truncated: record 0 has only 12 of its 16"},
      {"cut in the first dimension", "ab", "truncated record 0"},
      {"zero dimension", bytes_of(std::vector<std::int32_t>{0}), "record 0 has dimension 0"},
      {"negative dimension", bytes_of(std::vector<std::int32_t>{-5, 1}),
       "record 0 has dimension -5"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string const path = make_file("bad" + std::to_string(i) + ".fvecs", cases[i].bytes);
    EXPECT_TRUE(throws_file_error([&] { read_vecs(path); }, path, cases[i].what)) << cases[i].name;
  }
}

TEST(ReadVecs, ReportsAMissingFile) {
  std::string const path = test::temp_file("does_not_exist.fvecs");
  EXPECT_TRUE(throws_file_error([&] { read_vecs(path); }, path, "cannot open"));
}

TEST(ReadVecs, RejectsOtherExtensions) {
  std::string const path = make_file("a.vecs", vecs_file<float>({{1.f}}));
  EXPECT_TRUE(
      throws_file_error([&] { read_vecs(path); }, path,
                        "unsupported extension '.vecs' (supported: .fvecs, .bvecs, .ivecs)"));
}

TEST(ReadMatrix, DispatchesOnTheExtension) {
  std::vector<std::int32_t> const values{1, 2, 3, 4, 5, 6};
  std::string const npy = test::temp_file("m.NPY");
  io::write_npy(npy, view(values.data(), 3, 2, -1, Memory::kHost));
  Array const from_npy = read_matrix(npy);
  EXPECT_EQ(from_npy.rows(), 3);
  EXPECT_EQ(from_npy.cols(), 2);
  EXPECT_EQ(bytes_of(std::vector<std::int32_t>(from_npy.data_as<std::int32_t>(),
                                               from_npy.data_as<std::int32_t>() + 6)),
            bytes_of(values));

  Array const from_ivecs =
      read_matrix(make_file("m.ivecs", vecs_file<std::int32_t>({{1, 2}, {3, 4}, {5, 6}})));
  EXPECT_EQ(from_ivecs.rows(), 3);
  EXPECT_EQ(from_ivecs.cols(), 2);
  EXPECT_EQ(from_ivecs.dtype(), DType::kInt32);
}

TEST(ReadMatrix, RejectsUnknownExtensionsListingTheSupportedOnes) {
  std::string const supported = "(supported: .npy, .fvecs, .bvecs, .ivecs)";
  for (std::string const name : {"m.csv", "no_extension", "dir.npy/matrix"}) {
    std::string const path = test::temp_file(name);
    EXPECT_TRUE(throws_file_error([&] { read_matrix(path); }, path, supported)) << name;
  }
}

}  // namespace
}  // namespace cudist
