// Semirings for sparse products: what "multiply" and "add" mean, and the identity of "add".
// A product entry is add over k of mul(a_ik, x_k), starting from zero(). Shared by the CPU
// backend and the CUDA kernels; deliberately minimal so the dense min-plus engine can adopt it.
#pragma once

#include <cmath>
#include <limits>

#include "core/detail/host_device.hpp"

namespace cudist::sparse::detail {

CUDIST_HD float min_ignoring_nan(float a, float b) { return fminf(a, b); }
CUDIST_HD double min_ignoring_nan(double a, double b) { return fmin(a, b); }

/// Ordinary arithmetic: (+, *, 0).
template <class T>
struct PlusTimes {
  using Value = T;
  static CUDIST_HD T zero() { return T(0); }
  static CUDIST_HD T add(T a, T b) { return a + b; }
  static CUDIST_HD T mul(T a, T b) { return a * b; }
};

/// Tropical (min, +, +inf): shortest-path relaxation. The minimum ignores a NaN operand (fmin),
/// so inf + (-inf) from a negative-infinite weight cannot poison a distance.
template <class T>
struct MinPlus {
  using Value = T;
  static CUDIST_HD T zero() { return std::numeric_limits<T>::infinity(); }
  static CUDIST_HD T add(T a, T b) { return min_ignoring_nan(a, b); }
  static CUDIST_HD T mul(T a, T b) { return a + b; }
};

}  // namespace cudist::sparse::detail
