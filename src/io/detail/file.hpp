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
#include <utility>

namespace cudist::io::detail {

// The formats store little-endian values and the readers fill arrays with them directly.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "cudist's file readers and writers assume a little-endian host");

class File {
 public:
  /// Opens `path` for reading; `who` is the public function, used in every error message.
  static File open_for_reading(std::string const& path, std::string_view who);
  /// Opens a new temporary file next to `path` for writing; close() renames it to `path`, so
  /// `path` is either left as it was or replaced by the complete file. A File destroyed before
  /// close() (an error, an interrupt) removes its temporary file.
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
  /// The open file's descriptor, for mapping it into memory (nothing may be buffered: write_all
  /// before mapping is not seen through the map until close()).
  int descriptor() const { return fileno(file_.get()); }
  /// Whether the file is a regular file (not a device or a pipe such as /dev/stdout).
  bool is_regular() const;
  /// Flushes and closes a file being written (a full disk often shows up only here), then renames
  /// it to the path it was opened for.
  void close();

 private:
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  /// The temporary file of a file being written, removed unless rename_to_final() ran.
  class PendingRename {
   public:
    PendingRename() = default;
    PendingRename(std::string temp, std::string final_path)
        : temp_(std::move(temp)), final_(std::move(final_path)) {}
    PendingRename(PendingRename&& other) noexcept
        : temp_(std::exchange(other.temp_, {})), final_(std::move(other.final_)) {}
    PendingRename& operator=(PendingRename&&) = delete;
    ~PendingRename();
    /// Renames the temporary file to the final path; returns errno, or 0 on success.
    int rename_to_final();

   private:
    std::string temp_, final_;  // temp_ empty: nothing pending
  };

  File(std::FILE* f, std::string const& path, std::string_view who, PendingRename pending = {});

  std::unique_ptr<std::FILE, Closer> file_;
  std::string where_;
  PendingRename pending_;
};

/// The extension of `path` in lower case, with its dot (".npy"); empty when there is none.
std::string lowercase_extension(std::string const& path);

}  // namespace cudist::io::detail
