#include "cudist/io/npy.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "cudist/core/array.hpp"
#include "cudist/core/error.hpp"
#include "io/file_helpers.hpp"

namespace cudist {
namespace {

using io::NpyShape;
using io::read_npy;
using io::write_npy;
using test::big_endian_bytes_of;
using test::bytes_of;
using test::dict_of;
using test::npy_file;
using test::throws_file_error;

/// Writes `bytes` to a fresh temp file and returns its path.
std::string make_file(std::string const& name, std::string const& bytes) {
  std::string const path = test::temp_file(name);
  test::write_file(path, bytes);
  return path;
}

std::string bytes_of(Array const& a) {
  return std::string(static_cast<char const*>(a.data()), a.bytes());
}

/// rows x cols of `dtype` whose bytes follow a pattern, so any misplaced byte shows.
Array patterned(std::int64_t rows, std::int64_t cols, DType dtype) {
  Array a = Array::allocate(rows, cols, dtype, Device::cpu());
  auto* bytes = static_cast<std::uint8_t*>(a.data());
  for (std::size_t i = 0; i < a.bytes(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 131 + 17);
  return a;
}

// ---------------------------------------------------------------------------------------------
// write_npy -> read_npy

class NpyRoundTrip : public ::testing::TestWithParam<DType> {};

TEST_P(NpyRoundTrip, KeepsShapeDtypeAndBytes) {
  struct Shape {
    std::int64_t rows, cols;
  };
  for (Shape const s :
       {Shape{3, 5}, Shape{1, 7}, Shape{7, 1}, Shape{0, 4}, Shape{4, 0}, Shape{0, 0}}) {
    SCOPED_TRACE(::testing::Message() << s.rows << " x " << s.cols);
    Array const original = patterned(s.rows, s.cols, GetParam());
    std::string const path = test::temp_file("a.npy");

    write_npy(path, original.view());
    Array const matrix = read_npy(path);
    EXPECT_EQ(matrix.rows(), s.rows);
    EXPECT_EQ(matrix.cols(), s.cols);
    EXPECT_EQ(matrix.dtype(), GetParam());
    EXPECT_EQ(bytes_of(matrix), bytes_of(original));

    write_npy(path, original.view(), NpyShape::kVector);
    Array const vector = read_npy(path);
    EXPECT_EQ(vector.rows(), 1);
    EXPECT_EQ(vector.cols(), s.rows * s.cols);
    EXPECT_EQ(vector.dtype(), GetParam());
    EXPECT_EQ(bytes_of(vector), bytes_of(original));
  }
}

INSTANTIATE_TEST_SUITE_P(EveryNpyDType, NpyRoundTrip,
                         ::testing::Values(DType::kFloat16, DType::kFloat32, DType::kFloat64,
                                           DType::kUInt8, DType::kInt8, DType::kInt16, DType::kInt32,
                                           DType::kInt64),
                         [](auto const& param_info) {
                           return std::string(dtype_name(param_info.param));
                         });

TEST(WriteNpy, WritesTheLayoutNumPyWrites) {
  std::vector<float> const values{1, 2, 3, 4, 5, 6};
  std::string const path = test::temp_file("a.npy");
  write_npy(path, view(values.data(), 2, 3, -1, Memory::kHost));
  std::string const file = test::read_file(path);

  std::string const data = bytes_of(values);
  ASSERT_GT(file.size(), 10 + data.size());
  std::size_t const data_offset = file.size() - data.size();
  EXPECT_EQ(data_offset % 64, 0u) << "data must start on a 64-byte boundary";
  EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  std::size_t const header_length =
      static_cast<std::uint8_t>(file[8]) | static_cast<std::uint8_t>(file[9]) << 8;
  EXPECT_EQ(10 + header_length, data_offset);
  std::string const dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(file.substr(10, dict.size()), dict);
  EXPECT_EQ(file.find_first_not_of(' ', 10 + dict.size()), data_offset - 1);
  EXPECT_EQ(file[data_offset - 1], '\n');
  EXPECT_EQ(file.substr(data_offset), data);
}

TEST(WriteNpy, WritesVectorsAsOneDimensional) {
  std::vector<std::int32_t> const values{1, 2, 3, 4, 5, 6};
  std::string const path = test::temp_file("v.npy");
  write_npy(path, view(values.data(), 2, 3, -1, Memory::kHost), NpyShape::kVector);
  EXPECT_NE(test::read_file(path).find("'descr': '<i4', 'fortran_order': False, 'shape': (6,), }"),
            std::string::npos);
}

TEST(WriteNpy, WritesStridedViewsRowByRow) {
  // The 5 x 3 window starting at column 2 of a 5 x 7 matrix.
  std::vector<double> all(5 * 7);
  std::iota(all.begin(), all.end(), 0.5);
  std::string const path = test::temp_file("window.npy");
  write_npy(path, view(all.data() + 2, 5, 3, 7, Memory::kHost));
  Array const window = read_npy(path);
  ASSERT_EQ(window.rows(), 5);
  ASSERT_EQ(window.cols(), 3);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(window.data_as<double>()[i * 3 + j], all[i * 7 + 2 + j]);
  }
}

TEST(WriteNpy, RejectsBFloat16WithoutCreatingTheFile) {
  std::vector<bfloat16_t> const values(4);
  std::string const path = test::temp_file("bf16.npy");
  try {
    write_npy(path, view(values.data(), 2, 2, -1, Memory::kHost));
    FAIL() << "expected InvalidArgument";
  } catch (InvalidArgument const& e) {
    EXPECT_NE(std::string(e.what()).find("bfloat16"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(WriteNpy, ReportsFilesThatCannotBeWritten) {
  std::vector<float> const values(4);
  ConstMatrixView const m = view(values.data(), 2, 2, -1, Memory::kHost);
  std::string const no_dir = test::temp_file("missing_dir/a.npy");
  EXPECT_TRUE(throws_file_error([&] { write_npy(no_dir, m); }, no_dir, "cannot open"));
  // /dev/full accepts the open and fails the writes with ENOSPC: a full disk.
  if (std::filesystem::exists("/dev/full")) {
    EXPECT_TRUE(throws_file_error([&] { write_npy("/dev/full", m); }, "/dev/full", "write failed"));
  }
}

/// The files in `dir` other than `keep`: temporary files left behind would show up here.
std::vector<std::string> other_files(std::filesystem::path const& dir, std::string const& keep) {
  std::vector<std::string> names;
  for (auto const& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename() != keep) names.push_back(entry.path().filename().string());
  }
  return names;
}

TEST(WriteNpy, AFailedWriteLeavesThePreviousFileAndNoTemporaryOne) {
  std::filesystem::path const dir = test::temp_file("dir");
  std::filesystem::create_directories(dir);
  std::string const path = (dir / "out.npy").string();
  test::write_file(path, "the previous result");
  // A file size limit makes the writes fail part-way (EFBIG) as a full disk would; SIGXFSZ,
  // which the kernel sends then, is ignored so that the failure reaches the writer.
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto const old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::vector<float> const values(100000, 1.0f);
  bool const refused = throws_file_error(
      [&] { write_npy(path, view(values.data(), 1000, 100, -1, Memory::kHost)); }, path, "write failed");
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(refused);
  EXPECT_EQ(test::read_file(path), "the previous result");
  EXPECT_EQ(other_files(dir, "out.npy"), std::vector<std::string>{});

  // The same write without the limit replaces the file whole.
  write_npy(path, view(values.data(), 1000, 100, -1, Memory::kHost));
  EXPECT_EQ(read_npy(path).rows(), 1000);
  EXPECT_EQ(other_files(dir, "out.npy"), std::vector<std::string>{});
}

// ---------------------------------------------------------------------------------------------
// read_npy of hand-made files

TEST(ReadNpy, ReadsTheShippedSiftDescriptors) {
  Array const a = read_npy(test::data_path("descriptors/box_a_sift_u8.npy"));
  ASSERT_EQ(a.rows(), 604);
  ASSERT_EQ(a.cols(), 128);
  ASSERT_EQ(a.dtype(), DType::kUInt8);
  auto const* v = a.data_as<std::uint8_t>();
  // Checked with NumPy: the first row starts 0 x 8, 2, 0 x 5, 1, 11 and all values sum to 2096284.
  EXPECT_EQ(v[8], 2);
  EXPECT_EQ(v[14], 1);
  EXPECT_EQ(v[15], 11);
  EXPECT_EQ(std::accumulate(v, v + a.size(), std::int64_t{0}), 2096284);
}

TEST(ReadNpy, TransposesFortranOrder) {
  // [[0, 1, 2], [3, 4, 5]] stored column by column.
  std::vector<float> const columns{0, 3, 1, 4, 2, 5};
  Array const a =
      read_npy(make_file("f.npy", npy_file(dict_of("<f4", "(2, 3)", true), bytes_of(columns))));
  ASSERT_EQ(a.rows(), 2);
  ASSERT_EQ(a.cols(), 3);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(a.data_as<float>()[k], static_cast<float>(k));
}

/// A rows x cols Fortran-order file of T read back as row-major, for one element size.
template <class T>
void expect_fortran_order_read(std::string const& descr, std::int64_t rows, std::int64_t cols) {
  SCOPED_TRACE(::testing::Message() << descr << " " << rows << " x " << cols);
  auto const value = [](std::int64_t i, std::int64_t j) { return static_cast<T>(i * 37 + j + 1); };
  std::vector<T> columns;
  for (std::int64_t j = 0; j < cols; ++j) {
    for (std::int64_t i = 0; i < rows; ++i) columns.push_back(value(i, j));
  }
  std::string const shape = "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
  Array const a =
      read_npy(make_file("f.npy", npy_file(dict_of(descr, shape, true), bytes_of(columns))));
  ASSERT_EQ(a.rows(), rows);
  ASSERT_EQ(a.cols(), cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      ASSERT_EQ(a.data_as<T>()[i * cols + j], value(i, j)) << "at (" << i << ", " << j << ")";
    }
  }
}

TEST(ReadNpy, TransposesFortranOrderOfEveryElementSizeAndRaggedShape) {
  // 70 x 131 crosses the transpose's 64 x 64 tiles with partial tiles on both edges.
  expect_fortran_order_read<std::uint8_t>("|u1", 70, 131);
  expect_fortran_order_read<std::int16_t>("<i2", 70, 131);
  expect_fortran_order_read<std::int32_t>("<i4", 131, 70);
  expect_fortran_order_read<double>("<f8", 70, 131);
  expect_fortran_order_read<float>("<f4", 1, 9);
  expect_fortran_order_read<float>("<f4", 9, 1);
  expect_fortran_order_read<float>("<f4", 0, 9);
}

/// A 2 x 2 big-endian file of `values` reads back as the same values in host order.
template <class T>
void expect_big_endian_read(std::string const& descr, DType dtype, std::vector<T> const& values) {
  SCOPED_TRACE(descr);
  Array const a = read_npy(
      make_file("be.npy", npy_file(dict_of(descr, "(2, 2)"), big_endian_bytes_of(values))));
  ASSERT_EQ(a.rows(), 2);
  ASSERT_EQ(a.cols(), 2);
  EXPECT_EQ(a.dtype(), dtype);
  EXPECT_EQ(bytes_of(a), bytes_of(values));
}

TEST(ReadNpy, SwapsBigEndianData) {
  // float16 as raw bits: 1.0, -2.0, 65504 (largest), the smallest subnormal.
  expect_big_endian_read<std::uint16_t>(">f2", DType::kFloat16, {0x3c00, 0xc000, 0x7bff, 0x0001});
  expect_big_endian_read<float>(">f4", DType::kFloat32, {1.5f, -2.f, 3.25f, 1e30f});
  expect_big_endian_read<double>(">f8", DType::kFloat64, {1.5, -2e-300, 3.25, 1e300});
  expect_big_endian_read<std::int16_t>(">i2", DType::kInt16, {1, -2, 300, -32768});
  expect_big_endian_read<std::int32_t>(">i4", DType::kInt32, {1, -2, 70000, -2147483647});
  expect_big_endian_read<std::int64_t>(">i8", DType::kInt64, {1, -2, 1LL << 40, -(1LL << 62)});
  expect_big_endian_read<std::uint8_t>(">u1", DType::kUInt8, {1, 2, 200, 255});
}

TEST(ReadNpy, SwapsBigEndianFortranOrder) {
  // [[1, 2, 3], [4, 5, 6]] as big-endian int32, column by column.
  std::vector<std::int32_t> const columns{1, 4, 2, 5, 3, 6};
  Array const a = read_npy(
      make_file("f.npy", npy_file(dict_of(">i4", "(2, 3)", true), big_endian_bytes_of(columns))));
  EXPECT_EQ(bytes_of(a), bytes_of(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}));
}

TEST(ReadNpy, ReadsFormatVersions2And3) {
  for (int major : {2, 3}) {
    SCOPED_TRACE(major);
    std::vector<std::int32_t> const values{7, -8};
    Array const a =
        read_npy(make_file("v.npy", npy_file(dict_of("<i4", "(2,)"), bytes_of(values), major)));
    ASSERT_EQ(a.rows(), 1);
    ASSERT_EQ(a.cols(), 2);
    EXPECT_EQ(bytes_of(a), bytes_of(values));
  }
}

TEST(ReadNpy, ReadsBoolsAsZeroOrOneBytes) {
  std::vector<std::uint8_t> const stored{0, 1, 2, 255, 0};
  Array const a = read_npy(make_file("b.npy", npy_file(dict_of("|b1", "(5,)"), bytes_of(stored))));
  EXPECT_EQ(a.dtype(), DType::kUInt8);
  EXPECT_EQ(bytes_of(a), bytes_of(std::vector<std::uint8_t>{0, 1, 1, 1, 0}));
}

TEST(ReadNpy, ParsesEveryHeaderSpelling) {
  struct Case {
    std::string dict;
    std::int64_t rows, cols;
  };
  std::vector<Case> const cases{
      {"{'shape': (2, 3), 'fortran_order': False, 'descr': '<i2'}", 2, 3},
      {"{\"descr\": \"<i2\", \"fortran_order\": False, \"shape\": (2, 3)}", 2, 3},
      {"  {  'descr' :'<i2' ,\t'fortran_order':False,'shape':( 2 ,3 , ) ,  }  ", 2, 3},
      {dict_of("<i2", "(2L, 3L)"), 2, 3},
      {dict_of("<i2", "(5,)"), 1, 5},
      {dict_of("<i2", "(5)"), 1, 5},
      {dict_of("<i2", "()"), 1, 1},
      {dict_of("<i2", "(0,)"), 1, 0},
      {dict_of("<i2", "(0, 3)"), 0, 3},
      {dict_of("<i2", "(3, 0)"), 3, 0},
  };
  for (Case const& c : cases) {
    SCOPED_TRACE(c.dict);
    std::string const data(static_cast<std::size_t>(c.rows * c.cols) * 2, '\x01');
    Array const a = read_npy(make_file("h.npy", npy_file(c.dict, data)));
    EXPECT_EQ(a.rows(), c.rows);
    EXPECT_EQ(a.cols(), c.cols);
    EXPECT_EQ(a.dtype(), DType::kInt16);
  }
}

TEST(ReadNpy, ReportsAMissingFile) {
  std::string const path = test::temp_file("does_not_exist.npy");
  EXPECT_TRUE(throws_file_error([&] { read_npy(path); }, path, "cannot open"));
}

TEST(ReadNpy, RejectsMalformedFilesNamingThePathAndTheProblem) {
  std::vector<float> const six(6, 1.f);
  std::string const valid = npy_file(dict_of("<f4", "(2, 3)"), bytes_of(six));
  auto with_byte = [&](std::size_t at, char byte) {
    std::string bytes = valid;
    bytes[at] = byte;
    return bytes;
  };
  auto header_only = [](std::string const& dict) { return npy_file(dict, ""); };
  struct Case {
    char const* name;
    std::string bytes;
    char const* what;
  };
  std::vector<Case> const cases{
      {"empty file", "", "truncated header"},
      {"bad magic", with_byte(5, 'Z'), "bad magic"},
      {"a text file", "descr,shape\n1,2\n", "bad magic"},
      {"cut in the version", valid.substr(0, 7), "truncated header"},
      {"cut in the header length", valid.substr(0, 9), "truncated header"},
      {"cut in the dict", valid.substr(0, 40), "truncated header"},
      {"version 4.0", with_byte(6, '\x04'), "unsupported .npy format version 4.0"},
      {"version 1.1", with_byte(7, '\x01'), "unsupported .npy format version 1.1"},
      {"missing key", header_only("{'descr': '<f4', 'fortran_order': False}"),
       "missing key 'shape'"},
      {"unknown key", header_only("{'descr': '<f4', 'order': 'C', 'shape': (1,)}"),
       "unknown key 'order'"},
      {"repeated key", header_only("{'descr': '<f4', 'descr': '<f4'}"), "appears twice"},
      {"non-bool fortran_order", header_only("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}"),
       "True or False"},
      {"not a dict", header_only("[1, 2]"), "expected '{'"},
      {"negative dimension", header_only(dict_of("<f4", "(-1, 3)")), "non-negative integer"},
      {"text after the dict", header_only(dict_of("<f4", "(1,)") + " x"), "after the closing"},
      {"unterminated string", header_only("{'descr"), "unterminated string"},
      {"unclosed shape", header_only("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3}"),
       "expected ')'"},
      {"dimension over 64 bits", header_only(dict_of("<f4", "(99999999999999999999, 1)")),
       "does not fit in 64 bits"},
      {"3-D", npy_file(dict_of("<f4", "(2, 2, 2)"), std::string(32, '\0')), "3-D array"},
      {"complex", header_only(dict_of("<c8", "(1,)")), "unsupported dtype '<c8'"},
      {"uint16", header_only(dict_of("<u2", "(1,)")), "unsupported dtype '<u2'"},
      {"uint32", header_only(dict_of("<u4", "(1,)")), "unsupported dtype '<u4'"},
      {"no byte order on float32", header_only(dict_of("|f4", "(1,)")), "unsupported dtype '|f4'"},
      {"structured",
       header_only("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }"),
       "structured dtypes"},
      {"truncated data", valid.substr(0, valid.size() - 4),
       "truncated data: a 2 x 3 '<f4' array needs 24 bytes but the file has 20"},
      {"trailing data", valid + "xx", "unexpected data after the array"},
      // 30336^2 float32 is 3.7 GB: the count must not wrap at 32 bits.
      {"shape larger than the file", npy_file(dict_of("<f4", "(30336, 30336)"), "0123"),
       "needs 3681091584 bytes but the file has 4"},
      {"byte count over int64", header_only(dict_of("<f4", "(4611686018427387904, 4)")),
       "too large"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string const path = make_file("bad" + std::to_string(i) + ".npy", cases[i].bytes);
    EXPECT_TRUE(throws_file_error([&] { read_npy(path); }, path, cases[i].what)) << cases[i].name;
  }
}

}  // namespace
}  // namespace cudist
