// TEXMEX vector files (http://corpus-texmex.irisa.fr/): each record is a little-endian int32
// dimension d followed by d values, float32 (.fvecs), uint8 (.bvecs) or int32 (.ivecs).
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "core/detail/expects.hpp"
#include "cudist/io/npy.hpp"
#include "io/detail/file.hpp"

namespace cudist::io {
namespace {

using detail::File;

struct VecsFormat {
  std::string_view extension;
  DType dtype;
};

constexpr VecsFormat kVecsFormats[] = {
    {".fvecs", DType::kFloat32}, {".bvecs", DType::kUInt8}, {".ivecs", DType::kInt32}};

// Records are read in chunks of about this many bytes: few reads, bounded extra memory.
constexpr std::size_t kChunkBytes = std::size_t{16} << 20;

DType vecs_dtype_of(std::string const& path) {
  std::string const ext = detail::lowercase_extension(path);
  for (VecsFormat const& f : kVecsFormats) {
    if (ext == f.extension) return f.dtype;
  }
  CUDIST_THROW(FileError, "read_vecs: '" << path << "': unsupported extension '" << ext
                                         << "' (supported: .fvecs, .bvecs, .ivecs)");
}

/// The dimension of record 0, which every other record must repeat. Leaves the file at byte 0.
std::int32_t read_record_dimension(File& file) {
  std::int32_t dim = 0;
  file.read_exact(&dim, sizeof dim, "record 0");
  if (dim <= 0) {
    CUDIST_THROW(FileError, file.where() << ": record 0 has dimension " << dim
                                         << "; dimensions must be positive");
  }
  file.seek(0);
  return dim;
}

[[noreturn]] void throw_dimension_mismatch(File const& file, std::uint64_t record, std::int32_t dim,
                                           std::int32_t expected) {
  CUDIST_THROW(FileError, file.where() << ": record " << record << " has dimension " << dim
                                       << " but record 0 has " << expected
                                       << "; all records must have the same dimension");
}

/// Fills `out` (rows x dim) from the records at the start of the file, checking each dimension.
void read_records(File& file, Array& out, std::size_t record_bytes) {
  auto const dim = static_cast<std::int32_t>(out.cols());
  std::size_t const row_bytes = record_bytes - sizeof(std::int32_t);
  auto const rows = static_cast<std::uint64_t>(out.rows());
  std::uint64_t const records_per_chunk = std::max<std::size_t>(1, kChunkBytes / record_bytes);
  std::vector<char> chunk(std::min(rows, records_per_chunk) * record_bytes);
  auto* dst = static_cast<char*>(out.data());
  for (std::uint64_t first = 0; first < rows; first += records_per_chunk) {
    std::uint64_t const count = std::min(records_per_chunk, rows - first);
    file.read_exact(chunk.data(), count * record_bytes, "records");
    for (std::uint64_t k = 0; k < count; ++k) {
      char const* record = chunk.data() + k * record_bytes;
      std::int32_t record_dim = 0;
      std::memcpy(&record_dim, record, sizeof record_dim);
      if (record_dim != dim) throw_dimension_mismatch(file, first + k, record_dim, dim);
      std::memcpy(dst + (first + k) * row_bytes, record + sizeof record_dim, row_bytes);
    }
  }
}

/// Explains the `tail_bytes` left after the last whole record: either the next record has another
/// dimension, or the file is truncated.
void reject_partial_record(File& file, std::uint64_t tail_bytes, std::uint64_t record,
                           std::int32_t dim, std::size_t record_bytes) {
  if (tail_bytes == 0) return;
  std::int32_t tail_dim = 0;
  if (tail_bytes >= sizeof tail_dim) {
    file.read_exact(&tail_dim, sizeof tail_dim, "records");
    if (tail_dim != dim) throw_dimension_mismatch(file, record, tail_dim, dim);
  }
  CUDIST_THROW(FileError, file.where() << ": truncated: record " << record << " has only "
                                       << tail_bytes << " of its " << record_bytes
                                       << " bytes (the file size is not a multiple of the record "
                                          "size)");
}

}  // namespace

Array read_vecs(std::string const& path) {
  DType const dtype = vecs_dtype_of(path);
  File file = File::open_for_reading(path, "read_vecs");
  std::uint64_t const file_bytes = file.size();
  // An empty file holds no records, hence no dimension either.
  if (file_bytes == 0) return Array::allocate(0, 0, dtype, Device::cpu());
  std::int32_t const dim = read_record_dimension(file);
  std::size_t const record_bytes =
      sizeof(std::int32_t) + static_cast<std::size_t>(dim) * size_of(dtype);
  auto const rows = static_cast<std::int64_t>(file_bytes / record_bytes);
  Array out = Array::allocate(rows, dim, dtype, Device::cpu());
  read_records(file, out, record_bytes);
  reject_partial_record(file, file_bytes % record_bytes, static_cast<std::uint64_t>(rows), dim,
                        record_bytes);
  return out;
}

}  // namespace cudist::io
