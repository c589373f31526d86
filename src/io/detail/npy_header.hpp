// The text part of a .npy header: the Python dict literal that follows the magic string, the
// version and the header length
// (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cudist/core/dtype.hpp"

namespace cudist::io::detail {

/// "\x93NUMPY", the first six bytes of every .npy file.
inline constexpr std::string_view kNpyMagic{"\x93NUMPY", 6};

struct NpyHeader {
  std::string descr;  ///< dtype string as NumPy writes it, e.g. "<f4"
  bool fortran_order = false;
  std::vector<std::int64_t> shape;  ///< empty for a scalar
};

/// Parses the dict literal `{'descr': ..., 'fortran_order': ..., 'shape': (...), }`. Accepts the
/// keys in any order, either quote character, any whitespace, a trailing comma, Python 2 "L"
/// suffixes on the dimensions, and "(5)" as well as "(5,)". Rejects missing, repeated or unknown
/// keys and anything after the closing brace but whitespace, with a FileError prefixed by `where`.
NpyHeader parse_npy_header(std::string_view text, std::string_view where);

/// Everything a .npy file holds before its data: magic, version, header length and the dict,
/// padded with spaces and a newline so that the data starts on a 64-byte boundary, as NumPy does.
/// Version 1.0, or 2.0 when the header does not fit 1.0's 16-bit length.
std::string format_npy_header(std::string_view descr, std::vector<std::int64_t> const& shape);

/// The descr NumPy writes for `dtype` ("<f4"); InvalidArgument prefixed by `where` for bfloat16,
/// which has none.
std::string_view npy_descr_of(DType dtype, std::string_view where);

}  // namespace cudist::io::detail
