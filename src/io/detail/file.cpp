#include "io/detail/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/detail/expects.hpp"

namespace cudist::io::detail {

File::File(std::FILE* f, std::string const& path, std::string_view who, PendingRename pending)
    : file_(f), where_(std::string(who) + ": '" + path + "'"), pending_(std::move(pending)) {}

File::PendingRename::~PendingRename() {
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

int File::PendingRename::rename_to_final() {
  if (temp_.empty()) return 0;  // a file opened for reading
  if (::rename(temp_.c_str(), final_.c_str()) != 0) return errno;
  temp_.clear();
  return 0;
}

namespace {

[[noreturn]] void throw_cannot_open(std::string_view who, std::string const& path,
                                    char const* purpose, int error) {
  CUDIST_THROW(FileError, who << ": cannot open '" << path << "' for " << purpose << ": "
                              << std::strerror(error));
}

}  // namespace

File File::open_for_reading(std::string const& path, std::string_view who) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw_cannot_open(who, path, "reading", errno);
  return File(f, path, who);
}

File File::open_for_writing(std::string const& path, std::string_view who) {
  struct stat info {};
  bool const exists = ::stat(path.c_str(), &info) == 0;
  if (exists && !S_ISREG(info.st_mode)) {  // a device or a pipe (/dev/stdout): written in place
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) throw_cannot_open(who, path, "writing", errno);
    return File(f, path, who);
  }
  // The temporary file goes next to the file the path names (through any symbolic link), so that
  // the rename stays on one file system and replaces that file; its hidden name is no reader's
  // idea of the output. O_EXCL and a per-process counter keep concurrent writers of one path
  // apart; mode 0666 lets the umask decide, as fopen would. Read-write, so that NpyFileOutput
  // can map it shared.
  std::string target = path;
  if (char* resolved = exists ? ::realpath(path.c_str(), nullptr) : nullptr) {
    target = resolved;
    std::free(resolved);
  }
  static std::atomic<unsigned> counter{0};
  std::size_t const slash = target.find_last_of('/');
  std::string const dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  std::string const name = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temp = dir + "." + name + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) throw_cannot_open(who, path, "writing", errno);
  PendingRename pending(temp, target);
  std::FILE* f = ::fdopen(fd, "wb");
  if (f == nullptr) {
    int const fdopen_errno = errno;
    ::close(fd);
    throw_cannot_open(who, path, "writing", fdopen_errno);
  }
  return File(f, path, who, std::move(pending));
}

std::uint64_t File::size() const {
  struct stat info {};
  if (fstat(fileno(file_.get()), &info) != 0) {
    CUDIST_THROW(FileError, where_ << ": cannot read the file size: " << std::strerror(errno));
  }
  return static_cast<std::uint64_t>(info.st_size);
}

bool File::is_regular() const {
  struct stat info {};
  return fstat(descriptor(), &info) == 0 && S_ISREG(info.st_mode);
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
  if (int const rename_errno = pending_.rename_to_final(); rename_errno != 0) {
    CUDIST_THROW(FileError, where_ << ": cannot move the written file into place: "
                                   << std::strerror(rename_errno));
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
