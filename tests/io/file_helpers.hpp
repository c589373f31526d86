// Building test files byte by byte, and checking the FileErrors the readers throw for them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cudist/core/error.hpp"

namespace cudist::test {

/// A path under the test temp directory, unique to the running test.
inline std::string temp_file(std::string const& name) {
  auto const* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test_name = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : test_name) {
    if (c == '/') c = '_';  // parameterized test names contain '/'
  }
  return ::testing::TempDir() + test_name + "_" + name;
}

inline void write_file(std::string const& path, std::string const& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write test file " << path;
}

inline std::string read_file(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The bytes of `values` in host (little-endian) order.
template <class T>
std::string bytes_of(std::vector<T> const& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// The bytes of `values` with each element's bytes reversed: big-endian order.
template <class T>
std::string big_endian_bytes_of(std::vector<T> const& values) {
  std::string bytes = bytes_of(values);
  for (std::size_t i = 0; i < bytes.size(); i += sizeof(T)) {
    std::reverse(bytes.begin() + i, bytes.begin() + i + sizeof(T));
  }
  return bytes;
}

/// A .npy file laid out as a minimal writer might: the dict and a newline, no alignment padding.
inline std::string npy_file(std::string const& dict, std::string const& data, int major = 1) {
  std::string const header = dict + "\n";
  std::string file = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  int const length_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < length_bytes; ++i) {
    file.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  }
  return file + header + data;
}

/// The header dict of a .npy file of `descr`, shape `shape` (Python tuple syntax).
inline std::string dict_of(std::string const& descr, std::string const& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

/// Success when `action` throws a FileError whose message names `path` and contains `what`.
template <class Action>
::testing::AssertionResult throws_file_error(Action&& action, std::string const& path,
                                             std::string const& what) {
  try {
    action();
  } catch (FileError const& e) {
    std::string const message = e.what();
    if (message.find(path) == std::string::npos || message.find(what) == std::string::npos) {
      return ::testing::AssertionFailure() << "message \"" << message << "\" should contain '"
                                           << path << "' and '" << what << "'";
    }
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no FileError (expected one about '" << what << "')";
}

}  // namespace cudist::test
