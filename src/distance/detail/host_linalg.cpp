#include "distance/detail/host_linalg.hpp"

#include <cmath>
#include <utility>

#include "distance/detail/element_load.hpp"

namespace cudist::detail {
namespace {

template <class Elem>
void append_rows(ConstMatrixView v, std::vector<double>& dst) {
  auto const* p = static_cast<Elem const*>(v.data);
  for (std::int64_t i = 0; i < v.rows; ++i)
    for (std::int64_t k = 0; k < v.cols; ++k) dst.push_back(load_as<double>(p[i * v.stride + k]));
}

void append_any(ConstMatrixView v, std::vector<double>& dst) {
  switch (v.dtype) {
    case DType::kFloat32: return append_rows<float>(v, dst);
    case DType::kFloat64: return append_rows<double>(v, dst);
    case DType::kFloat16: return append_rows<half_t>(v, dst);
    case DType::kBFloat16: return append_rows<bfloat16_t>(v, dst);
    case DType::kUInt8: return append_rows<std::uint8_t>(v, dst);
    case DType::kInt8: return append_rows<std::int8_t>(v, dst);
    case DType::kInt16: return append_rows<std::int16_t>(v, dst);
    case DType::kInt32: return append_rows<std::int32_t>(v, dst);
    case DType::kInt64: return append_rows<std::int64_t>(v, dst);
  }
}

}  // namespace

std::vector<double> stacked_rows_f64(ConstMatrixView x, ConstMatrixView y) {
  std::vector<double> rows;
  rows.reserve(static_cast<std::size_t>((x.rows + y.rows) * x.cols));
  append_any(x, rows);
  append_any(y, rows);
  return rows;
}

std::vector<double> column_variance(std::vector<double> const& rows, std::int64_t d) {
  auto const r = static_cast<std::int64_t>(rows.size()) / d;
  std::vector<double> mean(d, 0.0), var(d, 0.0);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t k = 0; k < d; ++k) mean[k] += rows[i * d + k];
  for (auto& v : mean) v /= static_cast<double>(r);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t k = 0; k < d; ++k) var[k] += (rows[i * d + k] - mean[k]) * (rows[i * d + k] - mean[k]);
  for (auto& v : var) v /= static_cast<double>(r - 1);
  return var;
}

std::vector<double> column_covariance(std::vector<double> const& rows, std::int64_t d) {
  auto const r = static_cast<std::int64_t>(rows.size()) / d;
  std::vector<double> mean(d, 0.0), cov(d * d, 0.0);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t k = 0; k < d; ++k) mean[k] += rows[i * d + k];
  for (auto& v : mean) v /= static_cast<double>(r);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t a = 0; a < d; ++a)
      for (std::int64_t b = 0; b < d; ++b)
        cov[a * d + b] += (rows[i * d + a] - mean[a]) * (rows[i * d + b] - mean[b]);
  for (auto& v : cov) v /= static_cast<double>(r - 1);
  return cov;
}

std::optional<std::vector<double>> inverse(std::vector<double> a, std::int64_t d) {
  std::vector<double> inv(d * d, 0.0);
  for (std::int64_t i = 0; i < d; ++i) inv[i * d + i] = 1.0;
  double scale = 0;
  for (double v : a) scale = std::fmax(scale, std::fabs(v));
  for (std::int64_t c = 0; c < d; ++c) {
    std::int64_t piv = c;
    for (std::int64_t r = c + 1; r < d; ++r)
      if (std::fabs(a[r * d + c]) > std::fabs(a[piv * d + c])) piv = r;
    // A pivot at rounding level relative to the matrix means it is singular in float64.
    if (!(std::fabs(a[piv * d + c]) > 1e-13 * scale * static_cast<double>(d))) return std::nullopt;
    for (std::int64_t k = 0; k < d; ++k) {
      std::swap(a[c * d + k], a[piv * d + k]);
      std::swap(inv[c * d + k], inv[piv * d + k]);
    }
    double const p = a[c * d + c];
    for (std::int64_t k = 0; k < d; ++k) {
      a[c * d + k] /= p;
      inv[c * d + k] /= p;
    }
    for (std::int64_t r = 0; r < d; ++r) {
      if (r == c) continue;
      double const f = a[r * d + c];
      if (f == 0) continue;
      for (std::int64_t k = 0; k < d; ++k) {
        a[r * d + k] -= f * a[c * d + k];
        inv[r * d + k] -= f * inv[c * d + k];
      }
    }
  }
  return inv;
}

std::optional<std::vector<double>> cholesky_lower(std::vector<double> const& a, std::int64_t d) {
  std::vector<double> l(d * d, 0.0);
  for (std::int64_t i = 0; i < d; ++i) {
    for (std::int64_t j = 0; j < d; ++j) {
      if (std::fabs(a[i * d + j] - a[j * d + i]) > 1e-9 * (std::fabs(a[i * d + j]) + 1e-300) &&
          std::fabs(a[i * d + j] - a[j * d + i]) > 1e-12) {
        return std::nullopt;  // not symmetric
      }
    }
  }
  for (std::int64_t j = 0; j < d; ++j) {
    double diag = a[j * d + j];
    for (std::int64_t k = 0; k < j; ++k) diag -= l[j * d + k] * l[j * d + k];
    if (!(diag > 0)) return std::nullopt;
    l[j * d + j] = std::sqrt(diag);
    for (std::int64_t i = j + 1; i < d; ++i) {
      double s = a[i * d + j];
      for (std::int64_t k = 0; k < j; ++k) s -= l[i * d + k] * l[j * d + k];
      l[i * d + j] = s / l[j * d + j];
    }
  }
  return l;
}

}  // namespace cudist::detail
