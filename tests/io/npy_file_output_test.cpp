// NpyFileOutput: a .npy written in place through a memory map reads back as write_npy's file
// would, is byte for byte write_npy's file, and leaves nothing behind when it is not committed.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "cudist/core/array.hpp"
#include "cudist/core/error.hpp"
#include "cudist/io/npy.hpp"
#include "io/file_helpers.hpp"

namespace cudist::test {
namespace {

namespace fs = std::filesystem;

/// Entries of the directory of `path` whose names start with `path`'s name or its temporary's.
int files_named_like(std::string const& path) {
  fs::path const p(path);
  std::string const name = p.filename().string();
  int count = 0;
  for (auto const& entry : fs::directory_iterator(p.parent_path())) {
    std::string const other = entry.path().filename().string();
    if (other.rfind(name, 0) == 0 || other.rfind("." + name + ".partial", 0) == 0) ++count;
  }
  return count;
}

Array counting(std::int64_t rows, std::int64_t cols) {
  Array a = Array::allocate(rows, cols, DType::kFloat32, Device::cpu());
  for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<float>()[i] = static_cast<float>(i) - 7.5f;
  return a;
}

TEST(NpyFileOutput, ACommittedFileIsWhatWriteNpyWrites) {
  for (io::NpyShape shape : {io::NpyShape::kMatrix, io::NpyShape::kVector}) {
    std::string const mapped = temp_file("mapped.npy"), written = temp_file("written.npy");
    Array const values = counting(37, 11);
    {
      io::NpyFileOutput out(mapped, 37, 11, DType::kFloat32, shape);
      copy(values.view(), out.view());
      out.commit();
    }
    io::write_npy(written, values, shape);
    EXPECT_EQ(read_file(mapped), read_file(written));
    Array const back = io::read_npy(mapped);
    EXPECT_EQ(back.size(), values.size());
  }
}

TEST(NpyFileOutput, AnUncommittedFileLeavesNothingAndKeepsAnOlderResult) {
  std::string const path = temp_file("abandoned.npy");
  write_file(path, "an older result");
  {
    io::NpyFileOutput out(path, 1000, 1000, DType::kFloat64);
    out.view();  // a computation would write here, then fail or be interrupted
    EXPECT_EQ(files_named_like(path), 2);  // the older result and the temporary file
  }
  EXPECT_EQ(read_file(path), "an older result");
  EXPECT_EQ(files_named_like(path), 1);
}

TEST(NpyFileOutput, AnEmptyResultIsAValidFile) {
  std::string const path = temp_file("empty.npy");
  io::NpyFileOutput out(path, 0, 5, DType::kFloat32);
  out.commit();
  Array const back = io::read_npy(path);
  EXPECT_EQ(back.rows(), 0);
  EXPECT_EQ(back.cols(), 5);
}

TEST(NpyFileOutput, BFloat16IsRefusedBeforeAFileIsCreated) {
  std::string const path = temp_file("bf16.npy");
  EXPECT_THROW(io::NpyFileOutput(path, 2, 2, DType::kBFloat16), InvalidArgument);
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace cudist::test
