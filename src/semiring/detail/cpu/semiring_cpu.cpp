// CPU backend of the semiring products: the tiles (semiring_tiles.hpp) on the widest instruction
// set the CPU runs of those compiled in (distance/detail/cpu/isa.hpp).
#include "distance/detail/cpu/isa.hpp"
#include "semiring/detail/backend.hpp"
#include "semiring/detail/cpu/semiring_tiles.hpp"

namespace cudist::detail::cpu {

CUDIST_DECLARE_CPU_VARIANTS(void semiring_tiles(SemiringProblem const& p))

void semiring_product(SemiringProblem const& p) {
  if (p.c.rows == 0 || p.c.cols == 0) return;
  CUDIST_CALL_CPU_VARIANT(semiring_tiles, p);
}

}  // namespace cudist::detail::cpu
