#include "io/detail/npy_header.hpp"

#include <limits>
#include <optional>

#include "core/detail/expects.hpp"

namespace cudist::io::detail {
namespace {

// Long headers are mostly padding; the message shows enough of the dict to see what is wrong.
constexpr std::size_t kMaxQuotedHeader = 200;

std::string_view without_trailing_spaces(std::string_view text) {
  std::size_t const end = text.find_last_not_of(" \t\r\n");
  return end == std::string_view::npos ? std::string_view{} : text.substr(0, end + 1);
}

/// Recursive-descent parser of the small subset of Python literals a .npy header uses.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view where) : text_(text), where_(where) {}

  NpyHeader parse_dict() {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<std::int64_t>> shape;
    expect('{');
    while (!accept('}')) {
      std::string const key = parse_string("a key");
      expect(':');
      if (key == "descr") {
        set_once(descr, parse_descr(), key);
      } else if (key == "fortran_order") {
        set_once(fortran_order, parse_bool(), key);
      } else if (key == "shape") {
        set_once(shape, parse_shape(), key);
      } else {
        fail("unknown key '" + key + "'");
      }
      if (!accept(',')) {
        expect('}');
        break;
      }
    }
    skip_spaces();
    if (pos_ != text_.size()) fail("unexpected text after the closing '}'");
    if (!descr) fail("missing key 'descr'");
    if (!fortran_order) fail("missing key 'fortran_order'");
    if (!shape) fail("missing key 'shape'");
    return {*descr, *fortran_order, *shape};
  }

 private:
  [[noreturn]] void fail(std::string const& what) const {
    std::string_view shown = without_trailing_spaces(text_).substr(0, kMaxQuotedHeader);
    CUDIST_THROW(FileError, where_ << ": malformed .npy header: " << what << " (at offset " << pos_
                                   << " of \"" << shown << "\")");
  }

  template <class T>
  void set_once(std::optional<T>& slot, T value, std::string const& key) {
    if (slot) fail("key '" + key + "' appears twice");
    slot = std::move(value);
  }

  void skip_spaces() {
    while (pos_ < text_.size() &&
           std::string_view(" \t\r\n").find(text_[pos_]) != std::string_view::npos) {
      ++pos_;
    }
  }

  /// Skips whitespace, then consumes `c` if it comes next.
  bool accept(char c) {
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }

  bool accept_word(std::string_view word) {
    skip_spaces();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  std::string parse_string(std::string const& what) {
    skip_spaces();
    char const quote = pos_ < text_.size() ? text_[pos_] : '\0';
    if (quote != '\'' && quote != '"') fail("expected a quoted string as " + what);
    std::size_t const end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }

  std::string parse_descr() {
    skip_spaces();
    // A list here is a structured dtype, which has no matrix equivalent: say so rather than
    // "expected a quoted string".
    if (pos_ < text_.size() && text_[pos_] == '[') {
      fail("structured dtypes (a list as 'descr') are not supported");
    }
    return parse_string("the value of 'descr'");
  }

  bool parse_bool() {
    if (accept_word("True")) return true;
    if (accept_word("False")) return false;
    fail("expected True or False as the value of 'fortran_order'");
  }

  std::vector<std::int64_t> parse_shape() {
    std::vector<std::int64_t> shape;
    expect('(');
    while (!accept(')')) {
      shape.push_back(parse_dimension());
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  std::int64_t parse_dimension() {
    skip_spaces();
    std::size_t const start = pos_;
    std::int64_t value = 0;
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      int const digit = text_[pos_] - '0';
      if (value > (kMax - digit) / 10) fail("dimension does not fit in 64 bits");
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) fail("expected a non-negative integer dimension");
    // NumPy on Python 2 wrote long integers as "3L"; NumPy still reads such files.
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;
    return value;
  }

  std::string_view text_;
  std::string_view where_;
  std::size_t pos_ = 0;
};

void append_little_endian(std::string& out, std::uint32_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::string shape_literal(std::vector<std::int64_t> const& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  // A 1-tuple needs its comma in Python: "(5,)".
  if (shape.size() == 1) text += ",";
  return text + ")";
}

}  // namespace

NpyHeader parse_npy_header(std::string_view text, std::string_view where) {
  return HeaderParser(text, where).parse_dict();
}

std::string format_npy_header(std::string_view descr, std::vector<std::int64_t> const& shape) {
  constexpr std::size_t kAlignment = 64;
  std::string const dict = "{'descr': '" + std::string(descr) +
                           "', 'fortran_order': False, 'shape': " + shape_literal(shape) + ", }";
  auto header_length = [&](std::size_t length_field_bytes) {
    std::size_t const unpadded = kNpyMagic.size() + 2 + length_field_bytes + dict.size() + 1;
    return dict.size() + 1 + (kAlignment - unpadded % kAlignment) % kAlignment;
  };
  bool const fits_version_1 = header_length(2) <= std::numeric_limits<std::uint16_t>::max();
  int const length_field_bytes = fits_version_1 ? 2 : 4;
  std::size_t const length = header_length(length_field_bytes);

  std::string out(kNpyMagic);
  out.push_back(static_cast<char>(fits_version_1 ? 1 : 2));  // major version
  out.push_back(0);                                          // minor version
  append_little_endian(out, static_cast<std::uint32_t>(length), length_field_bytes);
  out += dict;
  out.append(length - dict.size() - 1, ' ');
  out.push_back('\n');
  return out;
}

std::string_view npy_descr_of(DType dtype, std::string_view where) {
  switch (dtype) {
    case DType::kFloat16: return "<f2";
    case DType::kFloat32: return "<f4";
    case DType::kFloat64: return "<f8";
    case DType::kUInt8: return "|u1";
    case DType::kInt8: return "|i1";
    case DType::kInt16: return "<i2";
    case DType::kInt32: return "<i4";
    case DType::kInt64: return "<i8";
    case DType::kBFloat16: break;
  }
  CUDIST_THROW(InvalidArgument, where << ": " << dtype_name(dtype) << " has no .npy dtype; convert it to float32");
}

}  // namespace cudist::io::detail
