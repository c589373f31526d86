// precision tf32's augmented rows (tf32_pairwise.cu's file comment): x and y extended so that one
// TF32 GEMM of them is the distance itself, with the squared norms the keep rule reads. For
// tf32_pairwise.cu alone.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cudist::detail::cuda::tf32 {

/// Which factor of the GEMM an augmented row is (tf32_pairwise.cu's file comment).
enum class Side : std::uint8_t { kX, kY };

/// The augmented rows of `count` rows (d values, row stride ld) into `out` (rows of `width`, zeros
/// past the tail): a warp a row.
struct AugmentParams {
  float const* rows;
  std::int64_t ld, count, d;
  Side side;
  bool cosine;
  float const* norms;  // cosine: the op's norms of these rows
  float* squares;      // sqeuclidean: |row|^2 (float32, rounded up), for the keep rule
  float* out;
  std::int64_t width;
};

static __global__ void augment_rows_kernel(AugmentParams const p) {
  std::int64_t const r = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  int const lane = static_cast<int>(threadIdx.x % 32);
  if (r >= p.count) return;
  float const* row = p.rows + r * p.ld;
  float scale;
  float tail[4];
  if (p.cosine) {
    float const inverse = 1.0f / p.norms[r];  // inf for a zero row: its entries come out NaN
    scale = p.side == Side::kX ? inverse : -inverse;
    tail[0] = 1.0f;
    tail[1] = tail[2] = tail[3] = 0.0f;
  } else {
    double sum = 0;
    for (std::int64_t k = lane; k < p.d; k += 32) sum += static_cast<double>(row[k]) * row[k];
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    float const s = __double2float_ru(sum);
    float const hi = __uint_as_float(__float_as_uint(s) & 0xffffe000u);  // sign, exponent, 10 bits
    float const lo = s - hi;                                               // exact
    if (lane == 0) p.squares[r] = s;
    scale = p.side == Side::kX ? -2.0f : 1.0f;
    bool const x = p.side == Side::kX;
    tail[0] = x ? hi : 1.0f;
    tail[1] = x ? lo : 1.0f;
    tail[2] = x ? 1.0f : hi;
    tail[3] = x ? 1.0f : lo;
  }
  float* to = p.out + r * p.width;
  for (std::int64_t k = lane; k < p.d; k += 32) to[k] = row[k] * scale;
  for (std::int64_t k = p.d + lane; k < p.width; k += 32) {
    std::int64_t const t = k - p.d;
    to[k] = t == 0 ? tail[0] : t == 1 ? tail[1] : t == 2 ? tail[2] : t == 3 ? tail[3] : 0.0f;
  }
}

}  // namespace cudist::detail::cuda::tf32
