// uint8 and int8 cdist / pdist of squared L2, euclidean and inner product on the int8 tensor
// cores (mma.sync, u8 or s8). Two kernels: the full layout of rows of whole 16-byte chunks up to
// 256 bytes stores each pair from the MMA's registers (packed_u8_mma_full_store.cuh); the rest
// (condensed, other rows, deeper rows) goes through the contraction of packed_u8_mma_tile.cuh,
// which hands its tile over in the engine's 8 x 8-per-thread layout to the SIMT engine's own store
// consumer (store_tile: full or condensed, windows, the exact zero diagonal).
//
// The values equal the SIMT engine's bit for bit: x.y is exact in int32 (255^2 d < 2^31 for the
// d the integer path takes; int8 products are smaller), |x|^2 + |y|^2 - 2 x.y is then the exact
// integer sum of squared differences (32-bit wrap-around brings the expansion back to it), and it
// is finished by the SIMT op's own finish (float conversion, square root for euclidean).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/cuda/check.hpp"
#include "core/cuda/device_features.hpp"
#include "core/cuda/launch_with_smem.cuh"
#include "distance/detail/cuda/packed_u8_mma_full_store.cuh"
#include "distance/detail/cuda/packed_u8_mma_tile.cuh"
#include "distance/detail/cuda/packed_u8_rows.hpp"
#include "distance/detail/cuda/pairwise_launch.cuh"

namespace cudist::detail::cuda {
namespace {

/// What the store makes of a tile's exact integers: the sum of squared differences as it is or
/// its square root, or the dot product.
enum class ByteFinish { kSquares, kRoot, kDot };

/// The store consumer's op: the exact integer the SIMT op for byte rows accumulates
/// (ops::SqDiffSumOp or ops::DotOp on int32, dispatch_integer_op), finished as that op finishes it.
/// The finish is a template argument, not a run-time choice: the store unrolls it for each of a
/// thread's 64 entries, and all three forms in one kernel made 11.3 K instructions, whose
/// instruction fetches were a fifth of D3u's stalls (ncu, H200 run 99); the squares' kernel is
/// 7.9 K now, D3u 173 -> 160 us (run 100). The row squares stay a run-time test (x_sq null for
/// the dot product): made compile-time too, ptxas spilled twice as much (288 bytes, not 152).
template <ByteFinish kFinish>
struct ByteIntegerFinishOp : ops::OpBase<std::uint32_t, float> {
  using Acc = std::uint32_t;  // the sum of squared differences, or the dot product
  static constexpr bool kNeedsRowSquares = kFinish != ByteFinish::kDot;
  CUDIST_HD float finish(Acc acc, std::int64_t i, std::int64_t j) const {
    auto const v = static_cast<std::int32_t>(acc);
    if constexpr (kFinish == ByteFinish::kDot) {
      return ops::DotOp<std::int32_t, float>{}.finish(v, i, j);
    } else {
      ops::SqDiffSumOp<std::int32_t, float> l2;
      l2.take_sqrt = kFinish == ByteFinish::kRoot;
      return l2.finish(v, i, j);
    }
  }
};

/// A block walks the column tiles [first, last) of one row tile: x's tile stays in shared memory
/// and the next y tile is copied while the current one is multiplied and stored (the contraction's
/// pipeline, as in the fused selection), so the copies hide behind the stores. Measured on D3u
/// (docs/tuning.md): one tile per block 267 us, runs of tiles 238 us, and 173 us once the store
/// epilogue lost its per-entry tests, which had been the real bound. kSigned: int8 rows.
template <bool kSigned, ByteFinish kFinish>
struct PackedByteMmaStoreKernel {
  using Engine = PackedByteMmaTileKernel<kSigned>;
  using Op = ByteIntegerFinishOp<kFinish>;
  // The SIMT engine instantiated for its parameters and store_tile only (its main loop is not).
  using Store = PairwiseTileKernel<Op, std::uint32_t, PairwisePolicy<4, TileShape::kLarge>>;
  static_assert(Engine::kBM == Store::kBM && Engine::kTM == Store::kTM && Engine::kThreads == Store::kThreads,
                "the contraction hands over the store's layout");
  static constexpr int kThreads = Engine::kThreads;
  static constexpr int kMinBlocks = Engine::kMinBlocks;
  static constexpr int kTile = Store::kBM;

  struct Params {
    typename Engine::Params tile;  // x and y as words
    typename Store::Params store;  // the output window, layout and op
    std::uint32_t const* x_sq;  // (m) row squares for the expansion; null: inner product
    std::uint32_t const* y_sq;  // (n)
    std::int64_t tiles_per_block;  // column tiles a block walks (blockIdx.x: which run of them)
  };
  using SharedStorage = typename Engine::SharedStorage;

  __device__ void operator()(Params const& p, SharedStorage& s) const {
    typename Store::Params const& o = p.store;
    std::int64_t const row0 = o.row_begin + static_cast<std::int64_t>(blockIdx.y) * kTile;
    std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * p.tiles_per_block;
    std::int64_t const last = min(first + p.tiles_per_block, (o.n + kTile - 1) / kTile);
    // Condensed: tiles wholly at or below the diagonal hold nothing (col0 + kTile <= row0 + 1).
    if (o.layout == OutputLayout::kCondensed) first = max(first, (row0 + 1) / kTile);
    if (first >= last) return;
    if (block_interrupted(o.interrupt)) return;  // the host throws after the launch
    int const tid = static_cast<int>(threadIdx.x), tx = tid % 16, ty = tid / 16;
    Engine::start(p.tile, s, row0, first * kTile);
    for (std::int64_t t = first; t < last; ++t) {
      std::int64_t const col0 = t * kTile;
      std::uint32_t acc[Store::kTM][Store::kTN];
      Engine::compute_tile(p.tile, s, row0, col0, t + 1 < last, acc);
      if (p.x_sq != nullptr) {  // the exact sums of squared differences
        std::uint32_t x_sq[Store::kTM];  // loaded per tile (L1): kept across tiles they spilled
#pragma unroll
        for (int i = 0; i < Store::kTM; ++i) x_sq[i] = p.x_sq[min(row0 + Store::fragment_offset(ty, i), o.m - 1)];
#pragma unroll
        for (int j = 0; j < Store::kTN; ++j) {
          std::uint32_t const y_sq = p.y_sq[min(col0 + Store::fragment_offset(tx, j), o.n - 1)];
#pragma unroll
          for (int i = 0; i < Store::kTM; ++i) acc[i][j] = Engine::Op::expanded(x_sq[i], y_sq, acc[i][j]);
        }
      }
      Store::store_tile(o, acc, row0, col0, tx, ty);
    }
  }
};

// 74 KB of tiles and exchange buffers: dynamic shared memory, opted in at launch.
template <bool kSigned, ByteFinish kFinish>
__global__ void __launch_bounds__(PackedByteMmaStoreKernel<kSigned, kFinish>::kThreads,
                                  PackedByteMmaStoreKernel<kSigned, kFinish>::kMinBlocks)
    packed_byte_mma_store_kernel(typename PackedByteMmaStoreKernel<kSigned, kFinish>::Params const p) {
  using Kernel = PackedByteMmaStoreKernel<kSigned, kFinish>;
  extern __shared__ __align__(16) unsigned char smem[];
  Kernel{}(p, *reinterpret_cast<typename Kernel::SharedStorage*>(smem));
}

/// Runs of column tiles for a grid of store_grid's shape: about eight blocks per SM in all, so
/// that the runs are long enough to pipeline and the last wave is short. Sets grid.x to the runs.
std::int64_t tiles_per_run(dim3& grid) {
  std::int64_t const col_tiles = grid.x;
  std::int64_t const wanted_runs = (8 * multiprocessors() + grid.y - 1) / grid.y;
  std::int64_t const tiles = (col_tiles + wanted_runs - 1) / std::max<std::int64_t>(1, std::min(wanted_runs, col_tiles));
  grid.x = static_cast<unsigned>((col_tiles + tiles - 1) / tiles);
  return tiles;
}

/// Whether the full-layout kernel takes the problem: its copies move whole 16-byte chunks of
/// 16-byte-aligned rows, and three tiles of its deepest rows leave two blocks an SM.
template <class Kernel>
bool direct_store_fits(PairwiseProblem const& pr) {
  auto const chunked = [](ConstMatrixView const& v) { return rows_allow_vectors(v.data, v.stride, 16, 1); };
  return pr.layout == OutputLayout::kFull && pr.x.cols % 16 == 0 && pr.x.cols <= Kernel::kMaxDepth &&
         chunked(pr.x) && chunked(pr.y);
}

template <bool kSigned, ByteFinish kFinish>
bool packed_byte_mma(PairwiseProblem const& pr, cudaStream_t stream) {
  using Op = ByteIntegerFinishOp<kFinish>;
  using Direct = PackedByteMmaFullStoreKernel<kSigned, Op>;
  using Exchange = PackedByteMmaStoreKernel<kSigned, kFinish>;
  auto const direct_kernel = packed_byte_mma_full_store_kernel<kSigned, Op>;
  auto const exchange_kernel = packed_byte_mma_store_kernel<kSigned, kFinish>;
  bool const direct = direct_store_fits<Direct>(pr);
  if (!kernel_image_has_sm80(direct ? reinterpret_cast<void const*>(direct_kernel)
                                    : reinterpret_cast<void const*>(exchange_kernel))) {
    return false;
  }

  PairwiseProblem words = pr;
  words.x = as_words(pr.x);
  words.y = as_words(pr.y);
  auto const store = store_params<typename Exchange::Store, std::uint32_t>(words, Op{});
  std::vector<Array> keep;  // stream-ordered: freed after the kernel has read them
  std::uint32_t const *x_sq = nullptr, *y_sq = nullptr;  // null: inner product
  if constexpr (Op::kNeedsRowSquares) {
    auto const [xs, ys] = row_squares(words.x, words.y, kSigned, keep, stream);
    x_sq = static_cast<std::uint32_t const*>(xs);
    y_sq = static_cast<std::uint32_t const*>(ys);
  }
  dim3 grid = store_grid(pr, Exchange::kTile);
  std::int64_t const tiles = tiles_per_run(grid);
  if (direct) {
    launch_with_smem(direct_kernel, grid, Direct::kThreads, Direct::smem_bytes(static_cast<int>(pr.x.cols)),
                     typename Direct::Params{store, x_sq, y_sq, tiles}, stream);
  } else {
    launch_with_smem(exchange_kernel, grid, Exchange::kThreads, sizeof(typename Exchange::SharedStorage),
                     typename Exchange::Params{Exchange::Engine::part_of(store), store, x_sq, y_sq, tiles}, stream);
  }
  return true;
}

template <bool kSigned>
bool packed_byte_mma(PairwiseProblem const& pr, ByteFinish finish, cudaStream_t stream) {
  switch (finish) {
    case ByteFinish::kSquares: return packed_byte_mma<kSigned, ByteFinish::kSquares>(pr, stream);
    case ByteFinish::kRoot: return packed_byte_mma<kSigned, ByteFinish::kRoot>(pr, stream);
    case ByteFinish::kDot: return packed_byte_mma<kSigned, ByteFinish::kDot>(pr, stream);
  }
  return false;
}

}  // namespace

bool pairwise_packed_u8_mma(PairwiseProblem const& pr, cudaStream_t stream) {
  OpSpec const& spec = pr.op;
  bool const l2 = spec.kind == OpKind::kSqDiffSum;
  bool const inner_product = spec.kind == OpKind::kDot && spec.finish == 0;
  if (!(l2 || inner_product) || spec.weights != nullptr || !rows_are_words(pr.x, pr.y)) return false;
  ByteFinish const finish = !l2 ? ByteFinish::kDot : spec.take_sqrt ? ByteFinish::kRoot : ByteFinish::kSquares;
  return pr.x.dtype == DType::kInt8 ? packed_byte_mma<true>(pr, finish, stream) : packed_byte_mma<false>(pr, finish, stream);
}

}  // namespace cudist::detail::cuda
