// The constants of the tensor-core search's proof (src/neighbors/detail/expansion_bound.hpp),
// checked on the host against a model of what the GPU computes: rows scaled by a power of two and
// rounded to float16 (subnormals included), products summed 16 at a time into a float32
// accumulator that truncates (the worst rounding the MMA may do), and the SIMT engine's float32
// sum of squared differences (fused multiply-adds in order). On random, offset, badly scaled,
// wide-range and integer rows of several depths, the errors stay within e and gamma.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "neighbors/detail/expansion_bound.hpp"

namespace cudist::neighbors::detail {
namespace {

/// v rounded to float16's grid (11 significant bits, subnormal spacing 2^-24), nearest even.
double to_half(double v) {
  double const a = std::fabs(v);
  double const ulp = a < std::ldexp(1.0, -14) ? std::ldexp(1.0, -24) : std::ldexp(1.0, std::ilogb(a) - 10);
  return std::nearbyint(v / ulp) * ulp;  // default rounding mode: to nearest, ties to even
}

/// v to float32, toward zero.
float truncated(double v) {
  float f = static_cast<float>(v);
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  return f;
}

/// The row's power-of-two scale (rounded_rows.cu): its largest magnitude into [2^13, 2^14).
double scale_of(std::vector<float> const& row) {
  float largest = 0;
  for (float v : row) largest = std::max(largest, std::fabs(v));
  return largest == 0 ? 1.0 : std::ldexp(1.0, std::ilogb(largest) - 13);
}

/// The model of the MMA's dot product of the scaled, rounded rows, scaled back.
double tensor_dot(std::vector<float> const& x, std::vector<float> const& y) {
  double const sx = scale_of(x), sy = scale_of(y);
  float acc = 0;
  for (std::size_t k0 = 0; k0 < x.size(); k0 += 16) {
    double step = acc;  // 16 exact products and the accumulator, rounded once (toward zero)
    for (std::size_t k = k0; k < std::min(x.size(), k0 + 16); ++k) step += to_half(x[k] / sx) * to_half(y[k] / sy);
    acc = truncated(step);
  }
  return static_cast<double>(acc) * sx * sy;
}

/// The SIMT engine's key: float32 differences, squared and summed by fused multiply-adds in order.
double simt_sum(std::vector<float> const& x, std::vector<float> const& y) {
  float acc = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    float const diff = x[k] - y[k];
    acc = std::fma(diff, diff, acc);
  }
  return acc;
}

/// The SIMT engine's inner product: float32 fused multiply-adds in order.
double simt_dot(std::vector<float> const& x, std::vector<float> const& y) {
  float acc = 0;
  for (std::size_t k = 0; k < x.size(); ++k) acc = std::fma(x[k], y[k], acc);
  return acc;
}

struct Family {
  char const* name;
  double scale, offset;
  bool integers, wide;  // wide: magnitudes spread over 2^-20 .. 2^20 within a row
};

constexpr Family kFamilies[] = {{"reals", 1, 0, false, false},       {"offset 1e4", 1, 1e4, false, false},
                                {"around 1e-3", 1e-3, 0, false, false}, {"around 1e6", 1e6, 0, false, false},
                                {"integers", 1, 0, true, false},       {"wide range", 1, 0, false, true}};

std::vector<float> make_row(Family const& f, std::size_t d, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> small(-3, 3), exponent(-20, 20);
  std::vector<float> row(d);
  for (float& v : row) {
    double const base = f.integers ? small(rng) : u(rng);
    v = static_cast<float>((f.wide ? std::ldexp(base, exponent(rng)) : base) * f.scale + f.offset);
  }
  return row;
}

TEST(ExpansionBound, CoversTheModelledTensorCoreAndSimtErrors) {
  std::mt19937_64 rng(5);
  for (std::size_t d : {1u, 3u, 16u, 17u, 128u, 256u}) {
    ExpansionBound const b = ExpansionBound::for_depth(static_cast<std::int64_t>(d));
    for (Family const& f : kFamilies) {
      double worst_dot = 0, worst_sum = 0;  // the largest share of e and of gamma used
      for (int pair = 0; pair < 400; ++pair) {
        std::vector<float> const x = make_row(f, d, rng);
        std::vector<float> y = make_row(f, d, rng);
        if (pair % 10 == 0) y = x;  // identical rows: the expansion cancels completely
        double sx = 0, sy = 0, dot = 0, exact = 0;
        for (std::size_t k = 0; k < d; ++k) {
          sx += double(x[k]) * x[k];
          sy += double(y[k]) * y[k];
          dot += double(x[k]) * y[k];
          exact += (double(x[k]) - y[k]) * (double(x[k]) - y[k]);
        }
        // The float32 rounding of y's term minus 2 P belongs to e as well (expansion_bound.hpp).
        double const dot_error = 2 * std::fabs(tensor_dot(x, y) - dot) + std::ldexp(1.0, -22) * (sx + sy);
        double const allowed = b.e * (sx + sy) + b.slack;
        ASSERT_LE(dot_error, allowed) << f.name << ", d " << d << ", pair " << pair;
        worst_dot = std::max(worst_dot, dot_error / allowed);
        double const sum_error = std::fabs(simt_sum(x, y) - exact);
        ASSERT_LE(sum_error, b.gamma * exact) << f.name << ", d " << d << ", pair " << pair;
        if (exact > 0) worst_sum = std::max(worst_sum, sum_error / (b.gamma * exact));
      }
      // Not vacuous: rounding to float16 uses a visible share of e wherever it rounds at all
      // (integers in [-3, 3] and their sums are exact; only the float32 term is left).
      if (!f.integers) {
        EXPECT_GT(worst_dot, 1e-2) << f.name << ", d " << d;
      }
      std::printf("%-12s d %3zu: worst share of e %.3f, of gamma %.3f\n", f.name, d, worst_dot, worst_sum);
    }
  }
}

// The dot products' bound: the modelled tensor-core estimate and the SIMT float32 sum of x.y
// within dot_e |x| |y| + slack of each other (expansion_bound.hpp). The test's own roundings
// (search_bounds.cuh) are the 2^-17 that dot_e adds: here they must not be needed.
TEST(ExpansionBound, DotProductsCoverTheModelledTensorCoreAndSimtErrors) {
  std::mt19937_64 rng(6);
  for (std::size_t d : {1u, 3u, 16u, 17u, 128u, 256u}) {
    ExpansionBound const b = ExpansionBound::for_depth(static_cast<std::int64_t>(d));
    double const e_without_test = b.dot_e() - std::ldexp(1.0, -17);
    for (Family const& f : kFamilies) {
      double worst = 0;
      for (int pair = 0; pair < 400; ++pair) {
        std::vector<float> const x = make_row(f, d, rng);
        std::vector<float> y = make_row(f, d, rng);
        if (pair % 10 == 0) y = x;
        if (pair % 10 == 1) {
          for (float& v : y) v = -v;  // the most negative inner product
        }
        double sx = 0, sy = 0;
        for (std::size_t k = 0; k < d; ++k) {
          sx += double(x[k]) * x[k];
          sy += double(y[k]) * y[k];
        }
        double const error = std::fabs(tensor_dot(x, y) - simt_dot(x, y));
        double const allowed = e_without_test * std::sqrt(sx) * std::sqrt(sy) + b.slack;
        ASSERT_LE(error, allowed) << f.name << ", d " << d << ", pair " << pair;
        worst = std::max(worst, error / allowed);
      }
      if (!f.integers) {
        EXPECT_GT(worst, 1e-3) << f.name << ", d " << d;  // not vacuous
      }
      std::printf("%-12s d %3zu: worst share of dot_e %.3f\n", f.name, d, worst);
    }
  }
}

}  // namespace
}  // namespace cudist::neighbors::detail
