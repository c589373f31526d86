// The readers on thousands of corrupted files: valid .npy, .fvecs, .bvecs, .mtx files and the
// shipped descriptor files with random bytes overwritten, bytes inserted or removed, or cut
// short, and well-formed .npy headers with hostile fields (huge or negative dimensions, bad
// dtypes, broken tuples). Each must either be read (the corruption hit a value) or be rejected
// with a FileError that names the file: never a crash, a hang, another exception type, or an
// allocation sized by a corrupted header. The seed is fixed; CUDIST_FUZZ_MUTANTS (default 1500
// per file, about a second in all) asks for a longer run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include "cudist/core/error.hpp"
#include "cudist/io/matrix_market.hpp"
#include "cudist/io/npy.hpp"
#include "common/backend.hpp"
#include "io/file_helpers.hpp"

namespace cudist::test {
namespace {

int mutants_per_file() {
  char const* env = std::getenv("CUDIST_FUZZ_MUTANTS");
  return env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : 1500;
}
int const kMutantsPerFile = mutants_per_file();

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

/// Writes `bytes` to `path` and reads it: true when it was rejected with a FileError naming the
/// file; a failure for any other exception. `label` names the case in failure messages.
template <class Read>
bool rejected_by_name(std::string const& path, std::string const& bytes, Read&& read, std::string const& label) {
  write_file(path, bytes);
  try {
    read(path);
  } catch (FileError const& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos)
        << label << ": the error does not name the file: " << e.what();
    return true;
  } catch (std::exception const& e) {
    ADD_FAILURE() << label << ": " << typeid(e).name() << " instead of a FileError: " << e.what();
  }
  return false;
}

/// Runs `read` on `mutants` corruptions of `original`; returns how many were rejected.
template <class Read>
int expect_read_or_file_error(std::string const& original, std::string const& name, Read&& read,
                              int mutants = kMutantsPerFile) {
  std::mt19937 rng(12345);
  std::string const path = temp_file(name);
  int rejected = 0;
  for (int t = 0; t < mutants; ++t) {
    rejected += rejected_by_name(path, mutate(original, rng), read, "mutant " + std::to_string(t));
  }
  return rejected;
}

std::string valid_npy() {
  std::string const path = temp_file("valid.npy");
  std::vector<float> values(7 * 5);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
  Array a = Array::allocate(7, 5, DType::kFloat32, Device::cpu());
  std::copy(values.begin(), values.end(), a.data_as<float>());
  io::write_npy(path, a.view());
  return read_file(path);
}

TEST(CorruptedFiles, NpyIsReadOrRejectedByName) {
  int const rejected = expect_read_or_file_error(valid_npy(), "mutant.npy", [](std::string const& p) { io::read_npy(p); });
  EXPECT_GT(rejected, kMutantsPerFile / 2) << "most corruptions of a header or a size must be caught";
}

TEST(CorruptedFiles, NpyHeadersWithHostileFieldsAreRejectedByName) {
  // Every combination of these with a valid 7 x 5 float32 payload: only sensible ones may read.
  char const* const descrs[] = {"<f4", "<f8", "|u1", "<i4", "<f2", "|b1", ">f4", "<c8", "|V4", "<U3", "|O",
                                "<i1", "<u4", "<M8[s]", "f4", "<f3", "", "<f4<f4"};
  char const* const shapes[] = {"(7, 5)", "()", "(35,)", "(0, 5)", "(7, 5, 1)", "(-7, 5)", "(7, -5)",
                                "(1099511627776, 1099511627776)", "(9223372036854775807, 2)",
                                "(18446744073709551616,)", "(4611686018427387904, 4)", "(7, 5", "(7.5, 5)",
                                "(7,, 5)", "[7, 5]", "(0x7, 5)"};
  std::string const payload(7 * 5 * 4, '\x01');
  std::string const path = temp_file("hostile.npy");
  int cases = 0, rejected = 0;
  for (char const* descr : descrs) {
    for (char const* shape : shapes) {
      for (bool fortran : {false, true}) {
        std::string const label = std::string("descr '") + descr + "', shape " + shape;
        rejected += rejected_by_name(path, npy_file(dict_of(descr, shape, fortran), payload),
                                     [](std::string const& p) { io::read_npy(p); }, label);
        ++cases;
      }
    }
  }
  EXPECT_GT(rejected, cases * 3 / 4) << "only a few dtype / shape pairs describe this payload";
}

TEST(CorruptedFiles, ShippedDescriptorFilesAreReadOrRejectedByName) {
  // Real files of 5-77 kB: fewer mutants each, as every one is written out whole.
  for (char const* name : {"box_a_sift_u8.npy", "box_a_orb.npy", "box_a_kp.npy"}) {
    std::string const original = read_file(data_path(std::string("descriptors/") + name));
    ASSERT_FALSE(original.empty()) << name;
    expect_read_or_file_error(original, std::string("mutant_") + name, [](std::string const& p) { io::read_npy(p); },
                              kMutantsPerFile / 10);
  }
}

TEST(CorruptedFiles, BvecsIsReadOrRejectedByName) {
  std::string bytes;
  for (std::int32_t row = 0; row < 5; ++row) {
    bytes += bytes_of(std::vector<std::int32_t>{3});
    bytes += std::string{static_cast<char>(row), 7, 9};
  }
  int const rejected = expect_read_or_file_error(bytes, "mutant.bvecs", [](std::string const& p) { io::read_matrix(p); });
  EXPECT_GT(rejected, kMutantsPerFile / 4) << "record lengths and sizes must be checked";
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
