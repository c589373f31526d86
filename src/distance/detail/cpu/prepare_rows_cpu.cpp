// CPU row preparation (see backend.hpp): a few passes per row in double, OpenMP over rows.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "distance/detail/backend.hpp"
#include "distance/detail/element_load.hpp"
#include "distance/detail/norm_scale.hpp"

namespace cudist::detail::cpu {
namespace {

template <class C, class Elem>
void prepare(RowPrep const& p) {
  std::int64_t const r = p.in.rows, d = p.in.cols;
  auto const* in = static_cast<Elem const*>(p.in.data);
  auto* out = static_cast<C*>(p.out.data);
  auto const* mw = static_cast<C const*>(p.mean_weights);
  auto const* scale = static_cast<C const*>(p.col_scale);
  auto* norms = static_cast<C*>(p.norms);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < r; ++i) {
    Elem const* src = in + i * p.in.stride;
    C* dst = out + i * p.out.stride;
    double shift = 0, divisor = 1;
    if (p.center) {
      double sum = 0, wsum = 0;
      for (std::int64_t k = 0; k < d; ++k) {
        double const wk = mw ? static_cast<double>(mw[k]) : 1.0;
        sum += wk * load_as<double>(src[k]);
        wsum += wk;
      }
      shift = sum / wsum;
    }
    if (p.normalize_sum) {
      divisor = 0;
      for (std::int64_t k = 0; k < d; ++k) divisor += load_as<double>(src[k]) - shift;
    }
    auto const value = [&](std::int64_t k) {
      double v = (load_as<double>(src[k]) - shift) / divisor;
      return scale ? v * static_cast<double>(scale[k]) : v;
    };
    double sq = 0;
    if (norms) {
      for (std::int64_t k = 0; k < d; ++k) sq += value(k) * value(k);
    }
    double const unit = norm_scale(sq);
    for (std::int64_t k = 0; k < d; ++k) dst[k] = static_cast<C>(value(k) * unit);
    if (norms) norms[i] = static_cast<C>(std::sqrt(sq) * unit);
  }
}

template <class C>
void prepare_from(RowPrep const& p) {
  switch (p.in.dtype) {
    case DType::kFloat32: return prepare<C, float>(p);
    case DType::kFloat64: return prepare<C, double>(p);
    case DType::kFloat16: return prepare<C, half_t>(p);
    case DType::kBFloat16: return prepare<C, bfloat16_t>(p);
    case DType::kUInt8: return prepare<C, std::uint8_t>(p);
    case DType::kInt8: return prepare<C, std::int8_t>(p);
    case DType::kInt16: return prepare<C, std::int16_t>(p);
    case DType::kInt32: return prepare<C, std::int32_t>(p);
    case DType::kInt64: return prepare<C, std::int64_t>(p);
  }
}

}  // namespace

void prepare_rows(RowPrep const& p) {
  if (p.out.dtype == DType::kFloat64) {
    prepare_from<double>(p);
  } else {
    prepare_from<float>(p);
  }
}

}  // namespace cudist::detail::cpu
