// Matrix Market reader and writer (see matrix_market.hpp). The reader takes the whole file into
// memory, walks it line by line and reports the first problem with its line number; entries
// become triplets, which the sparse module turns into CSR or dense arrays.
#include "cudist/io/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/detail/expects.hpp"
#include "io/detail/file.hpp"
#include "sparse/detail/csr_checks.hpp"
#include "sparse/detail/dispatch.hpp"

namespace cudist::io {
namespace {

/// A .mtx file's text, read line by line, that can report a problem at the current line.
class MtxText {
 public:
  MtxText(std::string const& path, char const* who)
      : file_(detail::File::open_for_reading(path, who)) {
    text_.resize(file_.size());
    file_.read_exact(text_.data(), text_.size(), "text");
  }

  /// The next line (without its end-of-line characters); false at the end of the file.
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string::npos) end = text_.size();
    line = std::string_view(text_).substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = end + 1;
    ++line_;
    return true;
  }

  /// The next line that is neither a comment (%) nor blank.
  bool next_data(std::string_view& line) {
    while (next(line)) {
      std::size_t const first = line.find_first_not_of(" \t");
      if (first != std::string_view::npos && line[first] != '%') return true;
    }
    return false;
  }

  std::int64_t line() const { return line_; }

  [[noreturn]] void fail(std::string_view what) const {
    CUDIST_THROW(FileError, file_.where() << ": line " << (line_ > 0 ? line_ : 1) << ": " << what);
  }

 private:
  detail::File file_;
  std::string text_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 0;
};

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t pos = 0;
  while ((pos = line.find_first_not_of(" \t", pos)) != std::string_view::npos) {
    std::size_t const end = std::min(line.find_first_of(" \t", pos), line.size());
    tokens.push_back(line.substr(pos, end - pos));
    pos = end;
  }
  return tokens;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// The whole token as a number (an optional leading '+' allowed), or nothing.
template <class N>
std::optional<N> parse_number(std::string_view token) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-') token.remove_prefix(1);
  N value{};
  auto const [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

MtxHeader parse_header(MtxText& text) {
  std::string_view line;
  if (!text.next(line)) text.fail("the file is empty; expected the '%%MatrixMarket' banner");
  std::vector<std::string_view> const banner = split(line);
  if (banner.size() != 5 || lower(banner[0]) != "%%matrixmarket") {
    text.fail("expected the banner '%%MatrixMarket matrix <format> <field> <symmetry>' but found " +
              quoted(line));
  }
  if (lower(banner[1]) != "matrix")
    text.fail("object " + quoted(banner[1]) + " is not supported (only 'matrix')");

  MtxHeader h;
  std::string const format = lower(banner[2]), field = lower(banner[3]),
                    symmetry = lower(banner[4]);
  if (format == "coordinate") {
    h.format = MtxFormat::kCoordinate;
  } else if (format == "array") {
    h.format = MtxFormat::kArray;
  } else {
    text.fail("format " + quoted(banner[2]) + " is not 'coordinate' or 'array'");
  }
  if (field == "real" || field == "double") {
    h.field = MtxField::kReal;
  } else if (field == "integer") {
    h.field = MtxField::kInteger;
  } else if (field == "pattern" && h.format == MtxFormat::kCoordinate) {
    h.field = MtxField::kPattern;
  } else {
    text.fail("field " + quoted(banner[3]) + " is not supported with format " + quoted(banner[2]) +
              " (real, integer; pattern for coordinate files)");
  }
  if (symmetry == "general") {
    h.symmetry = MtxSymmetry::kGeneral;
  } else if (symmetry == "symmetric") {
    h.symmetry = MtxSymmetry::kSymmetric;
  } else if (symmetry == "skew-symmetric") {
    h.symmetry = MtxSymmetry::kSkewSymmetric;
  } else {
    text.fail("symmetry " + quoted(banner[4]) +
              " is not supported (general, symmetric, skew-symmetric)");
  }

  if (!text.next_data(line)) text.fail("the file ends before the size line");
  std::vector<std::string_view> const sizes = split(line);
  std::size_t const wanted = h.format == MtxFormat::kCoordinate ? 3 : 2;
  std::int64_t* const fields[3] = {&h.rows, &h.cols, &h.stored_entries};
  for (std::size_t i = 0; i < sizes.size() && i < wanted; ++i) {
    std::optional<std::int64_t> const v = parse_number<std::int64_t>(sizes[i]);
    if (!v || *v < 0)
      text.fail(quoted(sizes[i]) + " on the size line is not a non-negative integer");
    *fields[i] = *v;
  }
  if (sizes.size() != wanted) {
    text.fail(std::string("expected the size line '") +
              (wanted == 3 ? "rows cols entries" : "rows cols") + "' but found " + quoted(line));
  }
  if (h.symmetry != MtxSymmetry::kGeneral && h.rows != h.cols) {
    text.fail("a " + symmetry + " matrix must be square, not " + std::to_string(h.rows) + " x " +
              std::to_string(h.cols));
  }
  if (h.format == MtxFormat::kArray) {
    std::int64_t const n = h.rows;
    h.stored_entries = h.symmetry == MtxSymmetry::kGeneral     ? h.rows * h.cols
                       : h.symmetry == MtxSymmetry::kSymmetric ? n * (n + 1) / 2
                                                               : n * (n - 1) / 2;
  }
  return h;
}

double parse_value(MtxText const& text, std::string_view token, MtxField field) {
  if (field == MtxField::kInteger) {
    std::optional<std::int64_t> const v = parse_number<std::int64_t>(token);
    if (!v) text.fail("value " + quoted(token) + " is not an integer (the field is 'integer')");
    return static_cast<double>(*v);
  }
  std::optional<double> const v = parse_number<double>(token);
  if (!v) text.fail("value " + quoted(token) + " is not a number");
  return *v;
}

std::int64_t parse_index(MtxText const& text, std::string_view token, char const* what,
                         std::int64_t size) {
  std::optional<std::int64_t> const v = parse_number<std::int64_t>(token);
  if (!v) text.fail(std::string(what) + " index " + quoted(token) + " is not an integer");
  if (*v < 1 || *v > size) {
    text.fail(std::string(what) + " index " + std::to_string(*v) + " is outside 1.." +
              std::to_string(size) + " (Matrix Market indices are 1-based)");
  }
  return *v - 1;
}

/// Calls emit(row, col, value) (0-based) for every stored entry, checking each.
template <class Emit>
void read_entries(MtxText& text, MtxHeader const& h, Emit const& emit) {
  bool const coordinate = h.format == MtxFormat::kCoordinate;
  std::size_t const fields = !coordinate ? 1 : h.field == MtxField::kPattern ? 2 : 3;
  std::int64_t col = 0, row = h.symmetry == MtxSymmetry::kSkewSymmetric ? 1 : 0;  // array walk
  std::string_view line;
  for (std::int64_t e = 0; e < h.stored_entries; ++e) {
    if (!text.next_data(line)) {
      text.fail("the file ends after " + std::to_string(e) + " of the " +
                std::to_string(h.stored_entries) + " entries it announces");
    }
    std::vector<std::string_view> const tokens = split(line);
    if (tokens.size() != fields) {
      text.fail("expected " + std::to_string(fields) + " field(s) per entry but found " +
                std::to_string(tokens.size()) + " in " + quoted(line));
    }
    if (!coordinate) {  // column-major, lower triangle only when symmetric
      emit(row, col, parse_value(text, tokens[0], h.field));
      if (++row == h.rows) {
        ++col;
        row = h.symmetry == MtxSymmetry::kGeneral
                  ? 0
                  : col + (h.symmetry == MtxSymmetry::kSkewSymmetric);
      }
      continue;
    }
    std::int64_t const i = parse_index(text, tokens[0], "row", h.rows);
    std::int64_t const j = parse_index(text, tokens[1], "column", h.cols);
    if (h.symmetry == MtxSymmetry::kSymmetric && i < j) {
      text.fail("entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                ") is above the diagonal; a symmetric file stores the lower triangle");
    }
    if (h.symmetry == MtxSymmetry::kSkewSymmetric && i <= j) {
      text.fail("entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                ") is not below the diagonal; a skew-symmetric file stores the strict lower "
                "triangle");
    }
    emit(i, j, fields == 2 ? 1.0 : parse_value(text, tokens[2], h.field));
  }
  if (text.next_data(line)) {
    text.fail("more entries than the " + std::to_string(h.stored_entries) +
              " the size line announces");
  }
}

/// Shortest text that reads back to the same value: 9 significant digits for float32, 17 for
/// float64.
template <class T>
void append_number(std::string& out, T value) {
  char buffer[32];
  int const digits = sizeof(T) == 4 ? 9 : 17;
  auto const result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::general, digits);
  out.append(buffer, result.ptr);
}

void write_text(std::string const& path, char const* who, std::string const& text) {
  detail::File file = detail::File::open_for_writing(path, who);
  file.write_all(text.data(), text.size());
  file.close();
}

}  // namespace

MtxHeader read_matrix_market_header(std::string const& path) {
  MtxText text(path, "read_matrix_market_header");
  return parse_header(text);
}

sparse::Triplets read_matrix_market_triplets(std::string const& path) {
  MtxText text(path, "read_matrix_market");
  MtxHeader const h = parse_header(text);
  sparse::Triplets t;
  t.rows = h.rows;
  t.cols = h.cols;
  std::size_t const capacity =
      static_cast<std::size_t>(h.stored_entries) * (h.symmetry == MtxSymmetry::kGeneral ? 1 : 2);
  t.row.reserve(capacity);
  t.col.reserve(capacity);
  t.value.reserve(capacity);
  auto const add = [&t](std::int64_t i, std::int64_t j, double v) {
    t.row.push_back(i);
    t.col.push_back(j);
    t.value.push_back(v);
  };
  read_entries(text, h, [&](std::int64_t i, std::int64_t j, double v) {
    add(i, j, v);
    if (i == j || h.symmetry == MtxSymmetry::kGeneral) return;
    add(j, i, h.symmetry == MtxSymmetry::kSkewSymmetric ? -v : v);
  });
  return t;
}

sparse::CsrMatrix read_matrix_market(std::string const& path, DType value_dtype,
                                     DType index_dtype) {
  return sparse::to_csr(read_matrix_market_triplets(path), value_dtype, index_dtype);
}

Array read_matrix_market_dense(std::string const& path, DType dtype, double missing) {
  return sparse::to_dense(read_matrix_market_triplets(path), dtype, missing);
}

void write_matrix_market(std::string const& path, sparse::CsrView const& a) {
  constexpr char const* who = "write_matrix_market";
  Memory const memory = sparse::detail::check_csr_shape(who, a);
  sparse::CsrMatrix host_copy;
  sparse::CsrView host = a;
  if (memory == Memory::kDevice) {
    host_copy = sparse::CsrMatrix::copy_of(a, Device::cpu());
    host = host_copy.view();
  }
  std::string text = "%%MatrixMarket matrix coordinate real general\n% written by cudist\n" +
                     std::to_string(a.rows) + " " + std::to_string(a.cols) + " " +
                     std::to_string(a.nnz) + "\n";
  sparse::detail::with_csr_types(a.value_dtype, a.index_dtype, [&](auto value_tag, auto index_tag) {
    using T = typename decltype(value_tag)::type;
    using I = typename decltype(index_tag)::type;
    auto const* offsets = static_cast<I const*>(host.row_offsets);
    auto const* cols = static_cast<I const*>(host.col_indices);
    auto const* values = static_cast<T const*>(host.values);
    for (std::int64_t r = 0; r < a.rows; ++r) {
      for (I k = offsets[r]; k < offsets[r + 1]; ++k) {
        text += std::to_string(r + 1) + " " +
                std::to_string(static_cast<std::int64_t>(cols[k]) + 1) + " ";
        append_number(text, values[k]);
        text += "\n";
      }
    }
  });
  write_text(path, who, text);
}

void write_matrix_market(std::string const& path, ConstMatrixView m) {
  constexpr char const* who = "write_matrix_market";
  CUDIST_EXPECTS(
      m.dtype == DType::kFloat32 || m.dtype == DType::kFloat64,
      who << ": dtype " << dtype_name(m.dtype) << " is not supported; use float32 or float64");
  CUDIST_EXPECTS(m.rows >= 0 && m.cols >= 0,
                 who << ": negative shape (" << m.rows << ", " << m.cols << ")");
  Array const host = Array::copy_of(m, Device::cpu());  // dense, in host memory
  std::string text = "%%MatrixMarket matrix array real general\n% written by cudist\n" +
                     std::to_string(m.rows) + " " + std::to_string(m.cols) + "\n";
  auto const append_all = [&](auto const* values) {
    for (std::int64_t j = 0; j < m.cols; ++j) {  // column-major, as the format requires
      for (std::int64_t i = 0; i < m.rows; ++i) {
        append_number(text, values[i * m.cols + j]);
        text += "\n";
      }
    }
  };
  if (m.dtype == DType::kFloat32) {
    append_all(host.data_as<float>());
  } else {
    append_all(host.data_as<double>());
  }
  write_text(path, who, text);
}

}  // namespace cudist::io
