// Matrix products over semirings: C[i][j] = add over k of mul(A[i][k], B[k][j]). With (min, +)
// this is the distance product, whose repetition gives all-pairs shortest paths; the other
// semirings give longest paths (max, +), bottleneck paths (min, max), widest paths (max, min),
// reachability (or, and), and ordinary arithmetic (+, *) as a check against GEMM.
//
// Infinity means "no edge": +inf / -inf for float32 and float64, and for int32 and int16 the
// dtype's largest value (min-plus, min-max) or smallest value (max-plus, max-min). Integer sums
// saturate: a sum with an infinite operand is infinite, and a finite sum beyond the dtype's range
// becomes the largest or smallest value, never a wrapped-around finite one.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"

namespace cudist {

/// (add, mul): the add's identity is the semiring's "zero" (what an absent term contributes).
enum class Semiring : std::uint8_t {
  kMinPlus,    ///< (min, +), zero +inf: shortest paths
  kMaxPlus,    ///< (max, +), zero -inf: longest / critical paths
  kMinMax,     ///< (min, max), zero +inf: minimax (bottleneck) paths
  kMaxMin,     ///< (max, min), zero -inf: widest paths
  kOrAnd,      ///< (or, and) on "nonzero", result 0 or 1: reachability
  kPlusTimes,  ///< (+, *), zero 0: the ordinary product
};

/// "min-plus", "max-plus", "min-max", "max-min", "or-and", "plus-times".
std::string_view semiring_name(Semiring semiring);

/// Inverse of semiring_name. @throw InvalidArgument listing the valid names.
Semiring semiring_from_name(std::string_view name);

/// All semirings, in declaration order.
std::vector<Semiring> all_semirings();

/// The semiring's zero (identity of add) and one (identity of mul) as stored in `dtype`
/// (float32, float64, int32, int16), as a double: e.g. +inf and 0 for min-plus in float32,
/// 2147483647 and 0 for min-plus in int32. A diagonal of ones on a background of zeros is the
/// identity matrix: A (x) I = I (x) A = A.
double semiring_zero(Semiring semiring, DType dtype);
double semiring_one(Semiring semiring, DType dtype);

struct SemiringOptions {
  /// C = C (+) (A (x) B) instead of C = A (x) B.
  bool accumulate = false;
  /// (m, n) int32: the smallest k that achieves C[i][j] (-1 where no term beats the zero, e.g. an
  /// infinite min-plus entry). With accumulate it is read and written: entries of C that the
  /// product does not strictly improve keep their witness. Not defined for plus-times.
  std::optional<MatrixView> witness;
};

/// c = a (x) b over `semiring`. a: (m, d), b: (d, n), c: (m, n), one dtype (float32, float64,
/// int32, int16), any row strides; host or device memory (host inputs with a CUDA device are
/// copied in). c must not overlap a or b.
/// On Hopper GPUs the int32 and int16 min-plus / max-plus products run on the DPX instructions
/// (two int16 updates per instruction) when every finite entry is within +-2^28 (int32) or
/// +-4096 (int16); otherwise, decided on the device without a sync, on exact saturating code.
/// @note Asynchronous on res.stream when every view is device memory; otherwise synchronizes.
/// @throw InvalidArgument naming the argument on a bad shape, dtype, layout or option.
void semiring_product(Resources const& res, ConstMatrixView a, ConstMatrixView b, MatrixView c,
                      Semiring semiring, SemiringOptions const& options = {});

/// As above, into a new (m, n) array on res.device.
Array semiring_product(Resources const& res, ConstMatrixView a, ConstMatrixView b,
                       Semiring semiring);

}  // namespace cudist
