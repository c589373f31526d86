// The readers on thousands of corrupted files: valid .npy, .fvecs and .mtx files with random
// bytes overwritten, bytes inserted or removed, or cut short. Each must either be read (the
// corruption hit a value) or be rejected with a FileError that names the file: never a crash, a
// hang, another exception type, or an allocation sized by a corrupted header.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include "cudist/core/error.hpp"
#include "cudist/io/matrix_market.hpp"
#include "cudist/io/npy.hpp"
#include "io/file_helpers.hpp"

namespace cudist::test {
namespace {

constexpr int kMutantsPerFile = 1500;

/// One random corruption of `bytes`: overwrite, insert, erase or truncate.
std::string mutate(std::string bytes, std::mt19937& rng) {
  auto const at = [&](std::size_t size) { return std::uniform_int_distribution<std::size_t>(0, size)(rng); };
  auto const byte = [&] {
    // Digits, signs and separators reach the parsers' number paths; the rest, anything.
    static char const kText[] = "0123456789-+.eE \n%,'():{}xX";
    return rng() % 2 ? kText[rng() % (sizeof(kText) - 1)] : static_cast<char>(rng() % 256);
  };
  int const edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !bytes.empty(); ++e) {
    switch (rng() % 4) {
      case 0: bytes[at(bytes.size() - 1)] = byte(); break;
      case 1: bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at(bytes.size())), byte()); break;
      case 2: bytes.erase(at(bytes.size() - 1), 1 + rng() % 8); break;
      default: bytes.resize(at(bytes.size())); break;
    }
  }
  return bytes;
}

/// Runs `read` on kMutantsPerFile corruptions of `original`; returns how many were rejected.
template <class Read>
int expect_read_or_file_error(std::string const& original, std::string const& name, Read&& read) {
  std::mt19937 rng(12345);
  std::string const path = temp_file(name);
  int rejected = 0;
  for (int t = 0; t < kMutantsPerFile; ++t) {
    std::string const bytes = mutate(original, rng);
    write_file(path, bytes);
    try {
      read(path);
    } catch (FileError const& e) {
      ++rejected;
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos)
          << "mutant " << t << ": the error does not name the file: " << e.what();
    } catch (std::exception const& e) {
      ADD_FAILURE() << "mutant " << t << ": " << typeid(e).name() << " instead of a FileError: " << e.what();
    }
  }
  return rejected;
}

std::string npy_file() {
  std::string const path = temp_file("valid.npy");
  std::vector<float> values(7 * 5);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
  Array a = Array::allocate(7, 5, DType::kFloat32, Device::cpu());
  std::copy(values.begin(), values.end(), a.data_as<float>());
  io::write_npy(path, a.view());
  return read_file(path);
}

TEST(CorruptedFiles, NpyIsReadOrRejectedByName) {
  int const rejected = expect_read_or_file_error(npy_file(), "mutant.npy", [](std::string const& p) { io::read_npy(p); });
  EXPECT_GT(rejected, kMutantsPerFile / 2) << "most corruptions of a header or a size must be caught";
}

TEST(CorruptedFiles, FvecsIsReadOrRejectedByName) {
  std::string bytes;
  for (std::int32_t row = 0; row < 6; ++row) {
    bytes += bytes_of(std::vector<std::int32_t>{4});
    bytes += bytes_of(std::vector<float>{1.f * row, 2.f, 3.f, 4.f});
  }
  int const rejected = expect_read_or_file_error(bytes, "mutant.fvecs", [](std::string const& p) { io::read_matrix(p); });
  EXPECT_GT(rejected, kMutantsPerFile / 4) << "record lengths and sizes must be checked";
}

TEST(CorruptedFiles, MatrixMarketIsReadOrRejectedByName) {
  std::string const mtx =
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "% a comment\n"
      "5 5 6\n"
      "1 1 4.0\n2 1 -1.5\n3 2 2e-3\n4 4 1\n5 3 -7\n5 5 0.25\n";
  int const rejected = expect_read_or_file_error(mtx, "mutant.mtx", [](std::string const& p) { io::read_matrix_market(p); });
  EXPECT_GT(rejected, kMutantsPerFile / 2) << "most corruptions of a header, an index or a count must be caught";
  std::string const dense = "%%MatrixMarket matrix array integer general\n3 2\n1\n2\n3\n4\n5\n6\n";
  int const rejected_dense = expect_read_or_file_error(
      dense, "mutant_array.mtx", [](std::string const& p) { io::read_matrix_market_dense(p); });
  EXPECT_GT(rejected_dense, kMutantsPerFile / 2);
}

}  // namespace
}  // namespace cudist::test
