// A semiring product as the backends receive it: every view already in the backend's memory and
// validated by the API layer (semiring_product.cpp) or built by an internal caller (APSP).
#pragma once

#include "cudist/core/matrix_view.hpp"
#include "cudist/semiring/semiring.hpp"

namespace cudist::detail {

struct SemiringProblem {
  ConstMatrixView a;  // (m, d)
  ConstMatrixView b;  // (d, n), read k-major as given
  MatrixView c;       // (m, n), a's dtype; read too when accumulate
  Semiring semiring = Semiring::kMinPlus;
  bool accumulate = false;
  MatrixView witness;           // (m, n) int32, or data == nullptr for none
  ConstMatrixView witness_map;  // (m, d) int32, or null: the witness stored is witness_map[i][k]
                                // instead of k (APSP stores next hops this way)
};

}  // namespace cudist::detail
