// A binary file opened by one of cudist's readers or writers. Every failure becomes a FileError
// whose message starts with the caller and the path ("read_npy: 'x.npy': ..."), so the readers
// and writers never have to repeat either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace cudist::io::detail {

// The formats store little-endian values and the readers fill arrays with them directly.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "cudist's file readers and writers assume a little-endian host");

class File {
 public:
  /// Opens `path` for reading; `who` is the public function, used in every error message.
  static File open_for_reading(std::string const& path, std::string_view who);
  /// Creates or truncates `path` for writing.
  static File open_for_writing(std::string const& path, std::string_view who);

  /// "who: 'path'", the prefix of every message about this file.
  std::string const& where() const { return where_; }

  /// Size of the file in bytes, read from the open handle.
  std::uint64_t size() const;

  /// Reads up to `bytes` bytes and returns how many there were before the end of the file.
  std::size_t read_up_to(void* dst, std::size_t bytes);
  /// Reads exactly `bytes` bytes; a shorter file is reported as "truncated <what>".
  void read_exact(void* dst, std::size_t bytes, std::string_view what);
  /// Moves the read position to `offset` bytes from the start.
  void seek(std::uint64_t offset);

  void write_all(void const* src, std::size_t bytes);
  /// Flushes and closes a file being written: a full disk often shows up only here.
  void close();

 private:
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  File(std::FILE* f, std::string const& path, std::string_view who);

  std::unique_ptr<std::FILE, Closer> file_;
  std::string where_;
};

/// The extension of `path` in lower case, with its dot (".npy"); empty when there is none.
std::string lowercase_extension(std::string const& path);

}  // namespace cudist::io::detail
