#include "io/detail/file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "core/detail/expects.hpp"

namespace cudist::io::detail {

File::File(std::FILE* f, std::string const& path, std::string_view who)
    : file_(f), where_(std::string(who) + ": '" + path + "'") {}

File File::open_for_reading(std::string const& path, std::string_view who) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    CUDIST_THROW(FileError,
                 who << ": cannot open '" << path << "' for reading: " << std::strerror(errno));
  }
  return File(f, path, who);
}

File File::open_for_writing(std::string const& path, std::string_view who) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    CUDIST_THROW(FileError,
                 who << ": cannot open '" << path << "' for writing: " << std::strerror(errno));
  }
  return File(f, path, who);
}

std::uint64_t File::size() const {
  struct stat info {};
  if (fstat(fileno(file_.get()), &info) != 0) {
    CUDIST_THROW(FileError, where_ << ": cannot read the file size: " << std::strerror(errno));
  }
  return static_cast<std::uint64_t>(info.st_size);
}

std::size_t File::read_up_to(void* dst, std::size_t bytes) {
  std::size_t const got = std::fread(dst, 1, bytes, file_.get());
  if (got < bytes && std::ferror(file_.get())) {
    CUDIST_THROW(FileError, where_ << ": read error: " << std::strerror(errno));
  }
  return got;
}

void File::read_exact(void* dst, std::size_t bytes, std::string_view what) {
  std::size_t const got = read_up_to(dst, bytes);
  if (got < bytes) {
    CUDIST_THROW(FileError, where_ << ": truncated " << what << ": needs " << bytes
                                   << " bytes but the file ends after " << got);
  }
}

void File::seek(std::uint64_t offset) {
  if (fseeko(file_.get(), static_cast<off_t>(offset), SEEK_SET) != 0) {
    CUDIST_THROW(FileError,
                 where_ << ": cannot seek to byte " << offset << ": " << std::strerror(errno));
  }
}

void File::write_all(void const* src, std::size_t bytes) {
  if (std::fwrite(src, 1, bytes, file_.get()) != bytes) {
    CUDIST_THROW(FileError, where_ << ": write failed: " << std::strerror(errno));
  }
}

void File::close() {
  bool const flushed = std::fflush(file_.get()) == 0;
  int const flush_errno = errno;
  bool const closed = std::fclose(file_.release()) == 0;
  if (!flushed || !closed) {
    CUDIST_THROW(FileError,
                 where_ << ": write failed: " << std::strerror(flushed ? errno : flush_errno));
  }
}

std::string lowercase_extension(std::string const& path) {
  std::size_t const dot = path.find_last_of('.');
  std::size_t const slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace cudist::io::detail
