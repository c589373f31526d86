#include "graph/detail/relax_plan.hpp"

namespace cudist::detail {

std::size_t relax_block_bytes(std::int64_t n, int sources, std::size_t value_bytes, bool hops) {
  std::size_t const per_vertex = 2 * value_bytes + (hops ? 2 * sizeof(std::int32_t) : 0);
  std::size_t const words = static_cast<std::size_t>((n + 31) / 32);
  return static_cast<std::size_t>(n) * static_cast<std::size_t>(sources) * per_vertex + 2 * words * sizeof(unsigned);
}

RelaxPlan relax_plan(std::int64_t n, std::size_t value_bytes, bool hops, std::size_t shared_budget) {
  for (int sources = max_sources_per_block(value_bytes); sources >= 1; sources /= 2) {
    std::size_t const bytes = relax_block_bytes(n, sources, value_bytes, hops);
    if (bytes <= shared_budget) return {sources, true, bytes};
  }
  return {1, false, relax_block_bytes(n, 1, value_bytes, hops)};
}

}  // namespace cudist::detail
