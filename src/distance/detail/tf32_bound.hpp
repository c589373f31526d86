// The error bounds of precision tf32 (tf32_pairwise.cu's file comment, docs/accuracy.md): E for
// each metric's GEMM, relative to what it multiplies, and the absolute part a of products
// flushed below float32's normal range. Host code: the launcher's keep rule and the tests.
#pragma once

#include <cstdint>

namespace cudist::detail {

/// The TF32 products' own error, relative to their magnitudes: 10 bits of each factor.
inline constexpr double kTf32Product = 0x1p-9 + 0x1p-20;

/// Float32 additions in any order over `terms` terms, on the sum of their magnitudes: 4 ulps
/// each, and 2 more.
constexpr double tf32_accumulation(std::int64_t terms) { return static_cast<double>(terms + 2) * 0x1p-22; }

/// Inner product: |G - x.y| <= e |x| |y| + a, over the d products.
constexpr double tf32_dot_error(std::int64_t d) { return kTf32Product + tf32_accumulation(d); }

/// Sqeuclidean from [-2 x, hi, lo, 1, 1] . [y, 1, 1, hi, lo]: |D~ - D| <= E_s (|x|^2 + |y|^2) + 2a.
/// The d + 4 terms' magnitudes sum to at most 2 (|x|^2 + |y|^2) (with 2^-8 to spare for their own
/// rounding); the norms carry 2^-23 (float32, rounded up) and 2^-20 (lo's conversion); 2^-21
/// covers euclidean's square root.
constexpr double tf32_squares_error(std::int64_t d) {
  return kTf32Product + 2 * tf32_accumulation(d + 4) * (1 + 0x1p-8) + 0x1p-23 + 0x1p-20 * (1 + 0x1p-22) + 0x1p-21;
}

/// Cosine from [x / |x|, 1] . [-y / |y|, 1]: |D~ - (1 - c)| <= E_c + a. The d + 1 terms'
/// magnitudes sum to at most 2; the normalised rows carry 3 2^-23 of c (the norm's rounding,
/// 1 / |x| and the product); 2^-21 to spare.
constexpr double tf32_cosine_error(std::int64_t d) {
  return kTf32Product * (1 + 0x1p-20) + 2 * tf32_accumulation(d + 1) * (1 + 0x1p-8) + 3 * 0x1p-23 * (1 + 0x1p-8) +
         0x1p-21;
}

/// a: products below float32's normal range flushed to zero, d 2^-126 at most.
constexpr double tf32_flushed_products(std::int64_t d) { return static_cast<double>(d) * 0x1p-126; }

}  // namespace cudist::detail
