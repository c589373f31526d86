// CPU row preparation (see backend.hpp): one pass per row, OpenMP over rows.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "distance/detail/backend.hpp"
#include "distance/detail/element_load.hpp"

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
    for (std::int64_t k = 0; k < d; ++k) dst[k] = load_as<C>(src[k]);
    if (p.center) {
      C sum = 0, wsum = 0;
      for (std::int64_t k = 0; k < d; ++k) {
        C const wk = mw ? mw[k] : C(1);
        sum += wk * dst[k];
        wsum += wk;
      }
      C const mean = sum / wsum;
      for (std::int64_t k = 0; k < d; ++k) dst[k] -= mean;
    }
    if (p.normalize_sum) {
      C sum = 0;
      for (std::int64_t k = 0; k < d; ++k) sum += dst[k];
      for (std::int64_t k = 0; k < d; ++k) dst[k] /= sum;
    }
    if (scale) {
      for (std::int64_t k = 0; k < d; ++k) dst[k] *= scale[k];
    }
    if (norms) {
      C sq = 0;
      for (std::int64_t k = 0; k < d; ++k) sq += dst[k] * dst[k];
      norms[i] = std::sqrt(sq);
    }
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
