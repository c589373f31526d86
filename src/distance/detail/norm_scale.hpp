// The power of two that row preparation multiplies a row by when its norm is wanted (cosine,
// correlation): it brings the norm into [0.5, 1), so that the contraction's products and the
// norms' squares neither overflow nor underflow in float32, whatever the rows' magnitudes.
// Scaling by a power of two is exact, so for rows of ordinary magnitude the cosine computed from
// the scaled rows is bit for bit the one computed from the rows themselves.
#pragma once

#include <cmath>

#include "core/detail/host_device.hpp"

namespace cudist::detail {

/// 2^-e for a row whose sum of squares is `sum_of_squares` = (m 2^e)^2, m in [0.5, 1); 1 for a
/// zero, infinite or NaN sum (nothing to bring into range; the cosine is NaN there anyway).
CUDIST_HD double norm_scale(double sum_of_squares) {
  double const norm = std::sqrt(sum_of_squares);
  if (!(norm > 0) || norm - norm != 0) return 1;
  int e = 0;
  std::frexp(norm, &e);
  return std::ldexp(1.0, -e);
}

}  // namespace cudist::detail
