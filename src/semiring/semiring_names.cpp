// Names of the semirings, and their zero and one in each dtype.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "core/detail/expects.hpp"
#include "cudist/semiring/semiring.hpp"

namespace cudist {
namespace {

constexpr std::pair<std::string_view, Semiring> kNames[] = {
    {"min-plus", Semiring::kMinPlus}, {"max-plus", Semiring::kMaxPlus},
    {"min-max", Semiring::kMinMax},   {"max-min", Semiring::kMaxMin},
    {"or-and", Semiring::kOrAnd},     {"plus-times", Semiring::kPlusTimes},
};

/// +infinity in `dtype`: the IEEE infinity, or the integer maximum.
double positive_infinity(DType dtype) {
  switch (dtype) {
    case DType::kInt32: return std::numeric_limits<std::int32_t>::max();
    case DType::kInt16: return std::numeric_limits<std::int16_t>::max();
    default: return std::numeric_limits<double>::infinity();
  }
}

double negative_infinity(DType dtype) {
  switch (dtype) {
    case DType::kInt32: return std::numeric_limits<std::int32_t>::lowest();
    case DType::kInt16: return std::numeric_limits<std::int16_t>::lowest();
    default: return -std::numeric_limits<double>::infinity();
  }
}

void expect_semiring_dtype(char const* who, DType dtype) {
  CUDIST_EXPECTS(dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kInt32 ||
                     dtype == DType::kInt16,
                 who << ": dtype " << dtype_name(dtype)
                     << " is not supported (use float32, float64, int32 or int16)");
}

}  // namespace

std::string_view semiring_name(Semiring semiring) {
  for (auto const& [name, s] : kNames)
    if (s == semiring) return name;
  return "unknown";
}

Semiring semiring_from_name(std::string_view name) {
  for (auto const& [n, s] : kNames)
    if (n == name) return s;
  std::string valid;
  for (auto const& [n, s] : kNames) valid += (valid.empty() ? "" : ", ") + std::string(n);
  CUDIST_THROW(InvalidArgument, "unknown semiring '" << name << "' (valid: " << valid << ")");
}

std::vector<Semiring> all_semirings() {
  std::vector<Semiring> all;
  for (auto const& [n, s] : kNames) all.push_back(s);
  return all;
}

double semiring_zero(Semiring semiring, DType dtype) {
  expect_semiring_dtype("semiring_zero", dtype);
  switch (semiring) {
    case Semiring::kMinPlus:
    case Semiring::kMinMax: return positive_infinity(dtype);
    case Semiring::kMaxPlus:
    case Semiring::kMaxMin: return negative_infinity(dtype);
    case Semiring::kOrAnd:
    case Semiring::kPlusTimes: return 0;
  }
  return 0;
}

double semiring_one(Semiring semiring, DType dtype) {
  expect_semiring_dtype("semiring_one", dtype);
  switch (semiring) {
    case Semiring::kMinPlus:
    case Semiring::kMaxPlus: return 0;
    case Semiring::kMinMax: return negative_infinity(dtype);  // max(-inf, a) = a
    case Semiring::kMaxMin: return positive_infinity(dtype);  // min(+inf, a) = a
    case Semiring::kOrAnd:
    case Semiring::kPlusTimes: return 1;
  }
  return 0;
}

}  // namespace cudist
