// The semiring product kernel: the pairwise contraction engine's main loop on (A, B), with B read
// k-major as it is stored (PairwiseTileKernel<..., YLayout::kKMajor>::compute_tile), and a
// consumer that hands each finished entry of the 128 x 128 tile to an epilogue.
//
// A range guard lets two launches share one product without a host sync: the DPX launch runs
// when the inputs' encode pass found every entry in the exact range (*guard == 0), the saturating
// launch when it did not (*guard == 1); the other launch's blocks return at once.
#pragma once

#include <cstdint>

#include "distance/detail/cuda/pairwise_kernel.cuh"
#include "distance/detail/cuda/policy.hpp"
#include "semiring/detail/store_entry.hpp"

namespace cudist::detail::cuda {

/// The engine's 128 x 128 tiles and block_k for the compute type's width. Ops whose accumulator
/// is wider than 4 bytes (witness ops hold a (value, k) pair: 128 accumulator registers per
/// thread; 8-byte compute types) run one block per SM with up to 255 registers, the others two
/// blocks at up to 128 registers, as the pairwise policy does.
template <class Op>
struct ProductPolicy {
  static constexpr bool kWideAcc = sizeof(typename Op::Acc) > 4;
  static constexpr TilePolicy value{128, 128, sizeof(typename Op::Compute) == 8 ? 8 : 16, 256,
                                    kWideAcc ? 1 : 2};
};

/// Writes entries through store_entry: C or C (+)= product, witness, witness map.
template <class Op>
struct EntryEpilogue {
  using Params = semiring::ProductOutput<typename Op::Output>;
  __device__ static void store(Params const& p, Op const& op, typename Op::Acc const& acc,
                               std::int64_t i, std::int64_t j) {
    semiring::store_entry(p, op, acc, i, j);
  }
};

template <class Op, class Elem, class Epilogue>
struct SemiringProductKernel {
  using Engine = PairwiseTileKernel<Op, Elem, ProductPolicy<Op>, YLayout::kKMajor>;
  using SharedStorage = typename Engine::SharedStorage;
  using Acc = typename Op::Acc;
  static constexpr int kThreads = Engine::kThreads;
  static constexpr int kMinBlocks = Engine::kMinBlocks;
  static constexpr int kBM = Engine::kBM;
  static constexpr int kBN = Engine::kBN;

  struct Params {
    typename Engine::Params main;  // x = A (m, d), y = B (d, n) k-major
    typename Epilogue::Params out;
    int const* guard;  // null: always run
    int run_when;      // run only when *guard == run_when
  };

  __device__ void operator()(Params const& p, SharedStorage& s) const {
    if (p.guard != nullptr && *p.guard != p.run_when) return;  // the other launch computes it
    if (block_interrupted(p.main.interrupt)) return;  // the host throws after the launch
    std::int64_t const row0 = static_cast<std::int64_t>(blockIdx.y) * kBM;
    std::int64_t const col0 = static_cast<std::int64_t>(blockIdx.x) * kBN;
    Acc acc[Engine::kTM][Engine::kTN];
    Engine::compute_tile(p.main, s, row0, col0, acc);
#pragma unroll
    for (int i = 0; i < Engine::kTM; ++i) {
      std::int64_t const row = row0 + Engine::tile_row(i);
      if (row >= p.main.m) continue;
#pragma unroll
      for (int j = 0; j < Engine::kTN; ++j) {
        std::int64_t const col = col0 + Engine::tile_col(j);
        if (col < p.main.n) Epilogue::store(p.out, p.main.op, acc[i][j], row, col);
      }
    }
  }
};

}  // namespace cudist::detail::cuda
