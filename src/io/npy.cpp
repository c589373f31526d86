#include "cudist/io/npy.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include "core/detail/expects.hpp"
#include "core/detail/memory.hpp"
#include "io/detail/file.hpp"
#include "io/detail/npy_header.hpp"

namespace cudist::io {
namespace {

using detail::File;
using detail::NpyHeader;

/// How a .npy file stores its elements, and the cudist dtype that holds them.
struct NpyElement {
  DType dtype;
  bool big_endian;
  bool is_bool;  ///< stored as one byte; NumPy reads any non-zero byte as True
};

struct NpyTypeCode {
  std::string_view code;  ///< kind and size, the descr without its byte-order character
  DType dtype;
  bool is_bool;
};

constexpr NpyTypeCode kNpyTypeCodes[] = {
    {"f2", DType::kFloat16, false}, {"f4", DType::kFloat32, false}, {"f8", DType::kFloat64, false},
    {"u1", DType::kUInt8, false},   {"b1", DType::kUInt8, true},    {"i1", DType::kInt8, false},
    {"i2", DType::kInt16, false},   {"i4", DType::kInt32, false},   {"i8", DType::kInt64, false},
};

/// Shape of the matrix a .npy array becomes.
struct MatrixShape {
  std::int64_t rows;
  std::int64_t cols;
};

/// Where the data of a .npy file starts, and what its header says about it.
struct NpyLayout {
  NpyHeader header;
  std::uint64_t data_offset;
};

NpyElement element_of(std::string const& descr, File const& file) {
  if (descr.size() == 3) {
    char const order = descr[0];
    for (NpyTypeCode const& t : kNpyTypeCodes) {
      if (descr.compare(1, 2, t.code) != 0) continue;
      // One-byte types have no byte order: NumPy writes '|' ("not applicable"), and '<' or
      // '>' mean the same. Wider types need '<' or '>'.
      bool const one_byte = size_of(t.dtype) == 1;
      if (order == '<' || order == '>' || (order == '|' && one_byte)) {
        return {t.dtype, order == '>' && !one_byte, t.is_bool};
      }
    }
  }
  CUDIST_THROW(FileError, file.where() << ": unsupported dtype '" << descr
                                       << "' (supported: <f2 <f4 <f8 |u1 |b1 |i1 <i2 <i4 <i8, and "
                                          "big-endian '>' variants)");
}

MatrixShape matrix_shape_of(std::vector<std::int64_t> const& shape, File const& file) {
  switch (shape.size()) {
    case 0: return {1, 1};  // a NumPy scalar holds one element
    case 1: return {1, shape[0]};
    case 2: return {shape[0], shape[1]};
    default: break;
  }
  std::ostringstream dims;
  for (std::size_t i = 0; i < shape.size(); ++i) dims << (i ? ", " : "") << shape[i];
  CUDIST_THROW(FileError, file.where()
                              << ": " << shape.size() << "-D array of shape (" << dims.str()
                              << ") is not supported: cudist reads 1-D and 2-D arrays");
}

/// Bytes of a rows x cols matrix of `element_bytes`-byte elements, or nothing if the count or
/// the byte size does not fit in int64 (the limit of Array's sizes).
std::optional<std::uint64_t> matrix_bytes(MatrixShape shape, std::size_t element_bytes) {
  auto const limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  auto const rows = static_cast<std::uint64_t>(shape.rows);
  auto const cols = static_cast<std::uint64_t>(shape.cols);
  if (cols != 0 && rows > limit / cols) return std::nullopt;
  std::uint64_t const count = rows * cols;
  if (count > limit / element_bytes) return std::nullopt;
  return count * element_bytes;
}

std::uint32_t read_little_endian(unsigned char const* bytes, int count) {
  std::uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

/// Where the header dict starts and how long it is, from the fixed-size start of the file.
struct NpyPreamble {
  std::uint64_t dict_offset;
  std::uint32_t dict_length;
};

/// Reads magic, version and header length, leaving the file at the start of the dict.
NpyPreamble read_npy_preamble(File& file) {
  unsigned char preamble[8];
  std::size_t const got = file.read_up_to(preamble, sizeof preamble);
  std::string_view const start(reinterpret_cast<char const*>(preamble),
                               std::min(got, detail::kNpyMagic.size()));
  if (start != detail::kNpyMagic.substr(0, start.size())) {
    CUDIST_THROW(FileError, file.where() << ": not a .npy file (bad magic: it does not start "
                                            "with \"\\x93NUMPY\")");
  }
  if (got < sizeof preamble) {
    CUDIST_THROW(FileError, file.where()
                                << ": truncated header: the file has only " << got << " bytes");
  }
  int const major = preamble[6];
  int const minor = preamble[7];
  if (minor != 0 || major < 1 || major > 3) {
    CUDIST_THROW(FileError, file.where() << ": unsupported .npy format version " << major << "."
                                         << minor << " (supported: 1.0, 2.0, 3.0)");
  }
  // Version 1.0 stores the header length in 2 bytes; 2.0 and 3.0 (UTF-8 header) in 4.
  int const length_bytes = major == 1 ? 2 : 4;
  unsigned char length[4];
  file.read_exact(length, length_bytes, "header");
  return {sizeof preamble + length_bytes, read_little_endian(length, length_bytes)};
}

NpyLayout read_npy_layout(File& file) {
  auto const [dict_offset, dict_length] = read_npy_preamble(file);
  // Checked against the size before allocating, as a corrupt length can claim up to 4 GiB.
  std::uint64_t const file_bytes = file.size();
  if (dict_offset + dict_length > file_bytes) {
    CUDIST_THROW(FileError, file.where() << ": truncated header: it claims " << dict_length
                                         << " bytes but the file has only "
                                         << file_bytes - dict_offset << " after the preamble");
  }
  std::string dict(dict_length, '\0');
  file.read_exact(dict.data(), dict.size(), "header");
  return {detail::parse_npy_header(dict, file.where()), dict_offset + dict_length};
}

/// Rejects data that does not match the header: too short (truncated), too long (most likely a
/// wrong shape in the header; NumPy would silently ignore the excess).
void check_data_size(File const& file, NpyLayout const& layout, MatrixShape shape,
                     NpyElement element) {
  // read_npy_layout has read up to data_offset, so the file is at least that long.
  std::uint64_t const available = file.size() - layout.data_offset;
  std::optional<std::uint64_t> const needed = matrix_bytes(shape, size_of(element.dtype));
  if (!needed) {
    CUDIST_THROW(FileError, file.where() << ": shape " << shape.rows << " x " << shape.cols
                                         << " is too large: its byte count overflows int64");
  }
  auto const mismatch = [&] {
    std::ostringstream text;
    text << "a " << shape.rows << " x " << shape.cols << " '" << layout.header.descr
         << "' array needs " << *needed << " bytes but the file has " << available
         << " after the header";
    return text.str();
  };
  if (available < *needed) {
    CUDIST_THROW(FileError, file.where() << ": truncated data: " << mismatch());
  }
  if (available > *needed) {
    CUDIST_THROW(FileError, file.where() << ": unexpected data after the array: " << mismatch());
  }
}

template <class WordT>
void swap_bytes_of(void* data, std::size_t count) {
  auto* words = static_cast<WordT*>(data);
  for (std::size_t i = 0; i < count; ++i) {
    WordT w = words[i];
    if constexpr (sizeof(WordT) == 2) w = __builtin_bswap16(w);
    if constexpr (sizeof(WordT) == 4) w = __builtin_bswap32(w);
    if constexpr (sizeof(WordT) == 8) w = __builtin_bswap64(w);
    words[i] = w;
  }
}

/// Big-endian to host (little-endian) order, in place.
void swap_bytes_inplace(Array& a) {
  switch (size_of(a.dtype())) {
    case 2: swap_bytes_of<std::uint16_t>(a.data(), a.size()); break;
    case 4: swap_bytes_of<std::uint32_t>(a.data(), a.size()); break;
    case 8: swap_bytes_of<std::uint64_t>(a.data(), a.size()); break;
    default: break;
  }
}

/// Bools come out as exactly 0 or 1, whatever non-zero byte a writer used for True.
void normalize_bools_inplace(Array& a) {
  auto* bytes = a.data_as<std::uint8_t>();
  for (std::int64_t i = 0; i < a.size(); ++i) bytes[i] = bytes[i] != 0;
}

template <class WordT>
void transpose_words(void const* src, std::int64_t src_rows, std::int64_t src_cols, void* dst) {
  // Tiles keep both the rows read and the rows written in cache.
  constexpr std::int64_t kTile = 64;
  auto const* in = static_cast<WordT const*>(src);
  auto* out = static_cast<WordT*>(dst);
  for (std::int64_t i0 = 0; i0 < src_rows; i0 += kTile) {
    for (std::int64_t j0 = 0; j0 < src_cols; j0 += kTile) {
      std::int64_t const i_end = std::min(i0 + kTile, src_rows);
      std::int64_t const j_end = std::min(j0 + kTile, src_cols);
      for (std::int64_t j = j0; j < j_end; ++j) {
        for (std::int64_t i = i0; i < i_end; ++i) out[j * src_rows + i] = in[i * src_cols + j];
      }
    }
  }
}

/// dst (cols x rows of src) = transpose of src; both dense, same dtype.
void transpose(Array const& src, Array& dst) {
  switch (size_of(src.dtype())) {
    case 1: transpose_words<std::uint8_t>(src.data(), src.rows(), src.cols(), dst.data()); break;
    case 2: transpose_words<std::uint16_t>(src.data(), src.rows(), src.cols(), dst.data()); break;
    case 4: transpose_words<std::uint32_t>(src.data(), src.rows(), src.cols(), dst.data()); break;
    case 8: transpose_words<std::uint64_t>(src.data(), src.rows(), src.cols(), dst.data()); break;
    default: break;
  }
}

/// Reads the data, already checked to be exactly rows x cols elements, with one read.
Array read_matrix_data(File& file, MatrixShape shape, DType dtype, bool fortran_order) {
  // A Fortran-order matrix is a C-order matrix of the transposed shape; with one row or one
  // column both orders are the same bytes.
  bool const needs_transpose = fortran_order && shape.rows > 1 && shape.cols > 1;
  Array stored = needs_transpose ? Array::allocate(shape.cols, shape.rows, dtype, Device::cpu())
                                 : Array::allocate(shape.rows, shape.cols, dtype, Device::cpu());
  file.read_exact(stored.data(), stored.bytes(), "data");
  if (!needs_transpose) return stored;
  Array out = Array::allocate(shape.rows, shape.cols, dtype, Device::cpu());
  transpose(stored, out);
  return out;
}

void check_writable(ConstMatrixView m, std::string const& path) {
  CUDIST_EXPECTS(m.rows >= 0 && m.cols >= 0,
                 "write_npy: '" << path << "': negative shape " << m.rows << " x " << m.cols);
  CUDIST_EXPECTS(m.data != nullptr || m.empty(), "write_npy: '" << path << "': null data for a "
                                                                << m.rows << " x " << m.cols
                                                                << " matrix");
  CUDIST_EXPECTS(m.rows <= 1 || m.stride >= m.cols, "write_npy: '" << path << "': row stride "
                                                                   << m.stride << " is less than "
                                                                   << m.cols << " columns");
}

/// Row-major element order, so the file's C-order data is just the rows one after another.
void write_rows(File& file, ConstMatrixView host) {
  std::size_t const row_bytes = static_cast<std::size_t>(host.cols) * size_of(host.dtype);
  if (host.is_contiguous()) {
    file.write_all(host.data, row_bytes * static_cast<std::size_t>(host.rows));
    return;
  }
  auto const* bytes = static_cast<char const*>(host.data);
  std::size_t const stride_bytes = static_cast<std::size_t>(host.stride) * size_of(host.dtype);
  for (std::int64_t i = 0; i < host.rows; ++i) {
    file.write_all(bytes + static_cast<std::size_t>(i) * stride_bytes, row_bytes);
  }
}

}  // namespace

Array read_npy(std::string const& path) {
  File file = File::open_for_reading(path, "read_npy");
  NpyLayout const layout = read_npy_layout(file);
  NpyElement const element = element_of(layout.header.descr, file);
  MatrixShape const shape = matrix_shape_of(layout.header.shape, file);
  check_data_size(file, layout, shape, element);
  Array out = read_matrix_data(file, shape, element.dtype, layout.header.fortran_order);
  if (element.big_endian) swap_bytes_inplace(out);
  if (element.is_bool) normalize_bools_inplace(out);
  return out;
}

void write_npy(std::string const& path, ConstMatrixView m, NpyShape shape) {
  check_writable(m, path);
  std::string_view const descr = detail::npy_descr_of(m.dtype, "write_npy: '" + path + "'");
  std::optional<Array> staging;
  ConstMatrixView const host = cudist::detail::staged(m, Device::cpu(), nullptr, staging);
  std::vector<std::int64_t> const dims = shape == NpyShape::kVector
                                             ? std::vector<std::int64_t>{m.size()}
                                             : std::vector<std::int64_t>{m.rows, m.cols};
  std::string const header = detail::format_npy_header(descr, dims);

  File file = File::open_for_writing(path, "write_npy");
  file.write_all(header.data(), header.size());
  write_rows(file, host);
  file.close();
}

}  // namespace cudist::io
