// How a finished row of the product, acc = add_k mul(a_ik, x_k), becomes the new y_i. Each op
// says whether it reads the old y_i at all, so that y = A x never touches y's old contents.
#pragma once

#include "core/detail/host_device.hpp"

namespace cudist::sparse::detail {

/// y = alpha * acc + beta * y, with BLAS's rules: beta == 0 does not read y (NaN in y does not
/// propagate) and alpha == 0 ignores acc (so does an infinite or NaN product).
template <class T>
struct Axpby {
  T alpha;
  T beta;
  CUDIST_HD bool reads_y() const { return beta != T(0); }
  CUDIST_HD T operator()(T acc, T y_old) const {
    T const product = alpha == T(0) ? T(0) : alpha * acc;
    return beta == T(0) ? product : product + beta * y_old;
  }
};

/// y = add(y, acc) in the semiring: min(y, acc) for a relaxation step.
template <class Semiring>
struct Accumulate {
  using T = typename Semiring::Value;
  CUDIST_HD bool reads_y() const { return true; }
  CUDIST_HD T operator()(T acc, T y_old) const { return Semiring::add(y_old, acc); }
};

}  // namespace cudist::sparse::detail
