// CPU backend of the pairwise contraction: the tiles (pairwise_tiles.hpp) on the widest
// instruction set the CPU runs of those compiled in (isa.hpp).
#include "distance/detail/backend.hpp"
#include "distance/detail/cpu/isa.hpp"
#include "distance/detail/cpu/pairwise_tiles.hpp"

namespace cudist::detail::cpu {

CUDIST_DECLARE_CPU_VARIANTS(void pairwise_tiles(PairwiseProblem const& p))

void pairwise(PairwiseProblem const& p) {
  if (p.window_end() == p.row_begin || p.y.rows == 0) return;
  CUDIST_CALL_CPU_VARIANT(pairwise_tiles, p);
}

}  // namespace cudist::detail::cpu
