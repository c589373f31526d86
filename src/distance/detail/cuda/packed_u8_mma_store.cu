// uint8 and int8 cdist / pdist of squared L2, euclidean and inner product on the int8 tensor
// cores (mma.sync, u8 or s8), and hamming_bits on the single-bit ones (b1, AND + popcount). Two
// kernels: the full layout of rows of whole 16-byte chunks up to 256 bytes stores each pair from
// the MMA's registers (packed_u8_mma_full_store.cuh); the rest (condensed, other rows, deeper
// rows) goes through the contraction of packed_u8_mma_tile.cuh, which hands its tile over in the
// engine's 8 x 8-per-thread layout to the SIMT engine's own store consumer (store_tile: full or
// condensed, windows, the exact zero diagonal).
//
// The values equal the SIMT engine's bit for bit: x.y is exact in int32 (255^2 d < 2^31 for the
// d the integer path takes; int8 products are smaller), |x|^2 + |y|^2 - 2 x.y is then the exact
// integer sum of squared differences (32-bit wrap-around brings the expansion back to it), and it
// is finished by the SIMT op's own finish (float conversion, square root for euclidean). For bits,
// |a| + |b| - 2 |a & b| is the exact number of differing bits.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
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

/// Whether a product's rows hold int8 (bit rows are read as unsigned words).
template <class Product>
constexpr bool signed_rows() {
  if constexpr (std::is_same_v<Product, mma::MmaBitsAnd>) {
    return false;
  } else {
    return Product::kSigned;
  }
}

/// What the store makes of a tile's exact integers: the sum of squared differences as it is or
/// its square root, the dot product, or the number of differing bits.
enum class ByteFinish { kSquares, kRoot, kDot, kBitCount };

/// The store consumer's op: the exact integer the SIMT op for byte rows accumulates
/// (ops::SqDiffSumOp or ops::DotOp on int32, dispatch_integer_op; ops::XorPopcountOp for bits),
/// finished as that op finishes it.
/// The finish is a template argument, not a run-time choice: the store unrolls it for each of a
/// thread's 64 entries, and all three forms in one kernel made 11.3 K instructions, whose
/// instruction fetches were a fifth of D3u's stalls (ncu, H200 run 99); the squares' kernel is
/// 7.9 K now, D3u 173 -> 160 us (run 100). The row squares stay a run-time test (x_sq null for
/// the dot product): made compile-time too, ptxas spilled twice as much (288 bytes, not 152).
template <ByteFinish kFinish>
struct ByteIntegerFinishOp : ops::OpBase<std::uint32_t, float> {
  using Acc = std::uint32_t;  // the sum of squared differences, or the dot product
  static constexpr bool kNeedsRowSums = kFinish != ByteFinish::kDot;
  CUDIST_HD float finish(Acc acc, std::int64_t i, std::int64_t j) const {
    auto const v = static_cast<std::int32_t>(acc);
    if constexpr (kFinish == ByteFinish::kBitCount) {
      return ops::XorPopcountOp<std::uint32_t, float>{}.finish(acc, i, j);
    } else if constexpr (kFinish == ByteFinish::kDot) {
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
/// epilogue lost its per-entry tests, which had been the real bound. Product: the MMA.
template <class Product, ByteFinish kFinish>
struct PackedByteMmaStoreKernel {
  using Engine = PackedByteMmaTileKernel<signed_rows<Product>(), Product>;
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
  struct SharedStorage {
    typename Engine::SharedStorage tile;
    typename Store::CondensedRows condensed_rows;  // the store's own: the next tile loads meanwhile
  };

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
    Engine::start(p.tile, s.tile, row0, first * kTile);
    for (std::int64_t t = first; t < last; ++t) {
      std::int64_t const col0 = t * kTile;
      std::uint32_t acc[Store::kTM][Store::kTN];
      Engine::compute_tile(p.tile, s.tile, row0, col0, t + 1 < last, acc);
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
      Store::store_tile(o, acc, row0, col0, tx, ty, s.condensed_rows);
    }
  }
};

// 83 KB of tiles, exchange buffers and condensed rows: dynamic shared memory, opted in at launch.
template <class Product, ByteFinish kFinish>
__global__ void __launch_bounds__(PackedByteMmaStoreKernel<Product, kFinish>::kThreads,
                                  PackedByteMmaStoreKernel<Product, kFinish>::kMinBlocks)
    packed_byte_mma_store_kernel(typename PackedByteMmaStoreKernel<Product, kFinish>::Params const p) {
  using Kernel = PackedByteMmaStoreKernel<Product, kFinish>;
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

/// Whether the full-layout kernel takes the problem (x and y as words): its copies move whole
/// 16-byte chunks of 16-byte-aligned rows, and three tiles of its deepest rows leave two blocks an
/// SM.
template <class Kernel>
bool direct_store_fits(PairwiseProblem const& words) {
  auto const chunked = [](ConstMatrixView const& v) { return rows_allow_vectors(v.data, v.stride, 16, 4); };
  return words.layout == OutputLayout::kFull && words.x.cols % 4 == 0 && 4 * words.x.cols <= Kernel::kMaxDepth &&
         chunked(words.x) && chunked(words.y);
}

/// The row sums the expansion takes for a product of rows.
template <class Product>
RowSum row_sum_for() {
  return std::is_same_v<Product, mma::MmaBitsAnd> ? RowSum::kBitCounts : squares_of(signed_rows<Product>());
}

/// The problem, rows read as words, through the full-layout kernel where it fits, else the
/// exchange kernel. False where the loaded image has no sm_80 code.
template <class Product, ByteFinish kFinish>
bool packed_mma(PairwiseProblem const& words, cudaStream_t stream) {
  using Op = ByteIntegerFinishOp<kFinish>;
  using Direct = PackedByteMmaFullStoreKernel<Product, Op>;
  auto const direct_kernel = packed_byte_mma_full_store_kernel<Product, Op>;
  bool const direct = direct_store_fits<Direct>(words);
  // The SIMT engine's store parameters (the exchange kernel's consumer), which both kernels take.
  using Store = PairwiseTileKernel<Op, std::uint32_t, PairwisePolicy<4, TileShape::kLarge>>;
  auto const store = store_params<Store, std::uint32_t>(words, Op{});
  auto const launch = [&](auto const kernel, int threads, std::size_t smem, auto const& params) {
    if (!kernel_image_has_sm80(reinterpret_cast<void const*>(kernel))) return false;
    std::vector<Array> keep;  // stream-ordered: freed after the kernel has read them
    std::uint32_t const *x_sum = nullptr, *y_sum = nullptr;  // null: inner product
    if constexpr (Op::kNeedsRowSums) {
      auto const [xs, ys] = row_sums(words.x, words.y, row_sum_for<Product>(), keep, stream);
      x_sum = static_cast<std::uint32_t const*>(xs);
      y_sum = static_cast<std::uint32_t const*>(ys);
    }
    dim3 grid = store_grid(words, Direct::kTile);
    std::int64_t const tiles = tiles_per_run(grid);
    launch_with_smem(kernel, grid, threads, smem, params(x_sum, y_sum, tiles), stream);
    return true;
  };
  if (direct) {
    return launch(direct_kernel, Direct::kThreads, Direct::smem_bytes(static_cast<int>(4 * words.x.cols)),
                  [&](auto x_sum, auto y_sum, auto tiles) { return typename Direct::Params{store, x_sum, y_sum, tiles}; });
  }
  using Exchange = PackedByteMmaStoreKernel<Product, kFinish>;
  return launch(packed_byte_mma_store_kernel<Product, kFinish>, Exchange::kThreads,
                sizeof(typename Exchange::SharedStorage), [&](auto x_sum, auto y_sum, auto tiles) {
                  return typename Exchange::Params{Exchange::Engine::part_of(store), store, x_sum, y_sum, tiles};
                });
}

/// Byte rows' finishes (the bits' is the count alone).
template <bool kSigned>
bool packed_byte_mma(PairwiseProblem const& words, ByteFinish finish, cudaStream_t stream) {
  using Product = mma::MmaBytes<kSigned>;
  switch (finish) {
    case ByteFinish::kSquares: return packed_mma<Product, ByteFinish::kSquares>(words, stream);
    case ByteFinish::kRoot: return packed_mma<Product, ByteFinish::kRoot>(words, stream);
    case ByteFinish::kDot: return packed_mma<Product, ByteFinish::kDot>(words, stream);
    case ByteFinish::kBitCount: break;
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
  PairwiseProblem words = pr;
  words.x = as_words(pr.x);
  words.y = as_words(pr.y);
  return pr.x.dtype == DType::kInt8 ? packed_byte_mma<true>(words, finish, stream)
                                    : packed_byte_mma<false>(words, finish, stream);
}

bool pairwise_packed_bits_mma(PairwiseProblem const& pr, cudaStream_t stream) {
  // The plan reads bit rows as 32-bit words wherever their starts allow (pairwise_plan.cpp).
  if (pr.op.kind != OpKind::kXorPopcount || pr.x.dtype != DType::kInt32 || pr.x.cols == 0) return false;
  return packed_mma<mma::MmaBitsAnd, ByteFinish::kBitCount>(pr, stream);
}

}  // namespace cudist::detail::cuda
