// How the GPU's Bellman-Ford from every source (relaxation.hpp) lays out a block's work: how many
// sources one block searches at once, and whether their state fits in its shared memory. Host
// arithmetic only, so that the CPU tests check the choice the CUDA backend makes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudist::detail {

/// Sources searched together by one block, at most: they share each in-edge load and each round's
/// barriers, and on graphs numbered by geography their wavefronts overlap (docs/tuning.md, "APSP
/// on sparse graphs", Change 3). A vertex's distances for them take at most 32 bytes (two 16-byte
/// loads): 8 float32 or 4 float64 sources, whose relaxations fit in the 64 registers of a thread
/// of a 1024-thread block (8 float64 sources spill).
constexpr int max_sources_per_block(std::size_t value_bytes) { return static_cast<int>(32 / value_bytes); }

struct RelaxPlan {
  int sources_per_block = 1;  ///< a power of two, at most max_sources_per_block
  bool in_shared = true;      ///< false: the block's state lives in global scratch (one source)
  std::size_t block_bytes = 0;
};

/// The bytes of one block's state for `sources` sources of an n-vertex graph: per vertex and
/// source two distances (last round's and this round's) and, with next hops, two first hops; two
/// bitmasks of n bits ("may improve" this round and the next).
std::size_t relax_block_bytes(std::int64_t n, int sources, std::size_t value_bytes, bool hops);

/// The most sources per block (a power of two, at most max_sources_per_block) whose state fits
/// in `shared_budget` bytes; one source in global scratch when not even that fits.
RelaxPlan relax_plan(std::int64_t n, std::size_t value_bytes, bool hops, std::size_t shared_budget);

}  // namespace cudist::detail
