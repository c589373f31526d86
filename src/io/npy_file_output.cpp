// NpyFileOutput: a .npy file written in place through a shared memory map (see npy.hpp).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/detail/expects.hpp"
#include "cudist/io/npy.hpp"
#include "io/detail/file.hpp"
#include "io/detail/npy_header.hpp"

namespace cudist::io {

struct NpyFileOutput::State {
  State(detail::File f, std::string h, std::int64_t r, std::int64_t c, DType t)
      : file(std::move(f)), header(std::move(h)), rows(r), cols(c), dtype(t) {}

  detail::File file;
  std::string header;
  std::int64_t rows, cols;
  DType dtype;
  void* map = nullptr;           // the whole file, header included; null without a map
  std::size_t map_bytes = 0;
  std::optional<Array> buffer;   // the data of a file that cannot be mapped

  void unmap() noexcept {
    if (map != nullptr) ::munmap(map, map_bytes);
    map = nullptr;
  }
};

namespace {

/// Reserves `bytes` of disk for the file, so that writing through the map cannot run out of space
/// (which would be a SIGBUS, not an error); file systems without fallocate get a sparse file.
void reserve(detail::File const& file, std::uint64_t bytes) {
  int const err = ::posix_fallocate(file.descriptor(), 0, static_cast<off_t>(bytes));
  if (err == 0) return;
  if (err == EOPNOTSUPP || err == EINVAL) {
    if (::ftruncate(file.descriptor(), static_cast<off_t>(bytes)) == 0) return;
    CUDIST_THROW(FileError, file.where() << ": cannot size the file to " << bytes
                                         << " bytes: " << std::strerror(errno));
  }
  CUDIST_THROW(FileError, file.where() << ": cannot reserve " << bytes
                                       << " bytes on disk for the result: " << std::strerror(err));
}

}  // namespace

NpyFileOutput::NpyFileOutput(std::string const& path, std::int64_t rows, std::int64_t cols,
                             DType dtype, NpyShape shape) {
  std::string const where = "NpyFileOutput: '" + path + "'";
  CUDIST_EXPECTS(rows >= 0 && cols >= 0, where << ": negative shape " << rows << " x " << cols);
  std::vector<std::int64_t> const dims =
      shape == NpyShape::kVector ? std::vector<std::int64_t>{rows * cols} : std::vector<std::int64_t>{rows, cols};
  std::string header = detail::format_npy_header(detail::npy_descr_of(dtype, where), dims);
  state_ = std::make_unique<State>(detail::File::open_for_writing(path, "NpyFileOutput"),
                                   std::move(header), rows, cols, dtype);
  State& s = *state_;
  std::size_t const data_bytes = static_cast<std::size_t>(rows * cols) * size_of(dtype);
  if (!s.file.is_regular()) {
    s.buffer = Array::allocate(rows, cols, dtype, Device::cpu());
    return;
  }
  s.map_bytes = s.header.size() + data_bytes;
  reserve(s.file, s.map_bytes);
  s.map = ::mmap(nullptr, s.map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s.file.descriptor(), 0);
  if (s.map == MAP_FAILED) {
    s.map = nullptr;
    CUDIST_THROW(FileError, s.file.where() << ": cannot map " << s.map_bytes
                                           << " bytes of the file into memory: " << std::strerror(errno));
  }
  std::memcpy(s.map, s.header.data(), s.header.size());
}

NpyFileOutput::~NpyFileOutput() {
  if (state_) state_->unmap();  // then the File removes its temporary file
}

MatrixView NpyFileOutput::view() {
  State& s = *state_;
  void* data = s.buffer ? s.buffer->data() : static_cast<char*>(s.map) + s.header.size();
  return {data, s.rows, s.cols, s.cols, s.dtype, Memory::kHost};
}

void NpyFileOutput::commit() {
  State& s = *state_;
  if (s.buffer) {
    s.file.write_all(s.header.data(), s.header.size());
    s.file.write_all(s.buffer->data(), s.buffer->bytes());
  }
  s.unmap();  // the pages stay in the page cache and reach the disk as any written file's do
  s.file.close();
}

}  // namespace cudist::io
