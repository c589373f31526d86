// uint8 cdist / pdist of squared L2, euclidean and inner product on the int8 tensor cores: the
// contraction of packed_u8_mma_tile.cuh (the dot products of a 128 x 128 tile through mma.sync,
// handed over in the engine's 8 x 8-per-thread layout) followed by the SIMT engine's own store
// consumer (store_tile: full or condensed, windows, the exact zero diagonal).
//
// The values equal the SIMT engine's bit for bit: x.y is exact in int32 (255^2 d < 2^31 for the
// d the integer path takes), |x|^2 + |y|^2 - 2 x.y is then the exact integer sum of squared
// differences (32-bit wrap-around brings the expansion back to it), and it is finished by the
// SIMT op's own finish (float conversion, square root for euclidean).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "core/cuda/check.hpp"
#include "core/cuda/device_features.hpp"
#include "distance/detail/cuda/packed_u8_mma_tile.cuh"
#include "distance/detail/cuda/packed_u8_rows.hpp"
#include "distance/detail/cuda/pairwise_launch.cuh"

namespace cudist::detail::cuda {
namespace {

/// The store consumer's op: from the tensor cores' dot product to what the SIMT op for uint8
/// computes (ops::SqDiffSumOp or ops::DotOp on int32, dispatch_integer_op).
struct ExpandedU8Op : ops::OpBase<std::uint32_t, float> {
  using Acc = std::uint32_t;            // x . y
  std::uint32_t const* x_sq = nullptr;  // (m) row squares; null: inner product
  std::uint32_t const* y_sq = nullptr;  // (n)
  ops::SqDiffSumOp<std::int32_t, float> l2;
  CUDIST_HD float finish(Acc dot, std::int64_t i, std::int64_t j) const {
    if (x_sq == nullptr) return ops::DotOp<std::int32_t, float>{}.finish(static_cast<std::int32_t>(dot), i, j);
    return l2.finish(static_cast<std::int32_t>(x_sq[i] + y_sq[j] - 2u * dot), i, j);
  }
};

struct PackedU8MmaStoreKernel {
  using Engine = PackedU8MmaTileKernel;
  // The SIMT engine instantiated for its parameters and store_tile only (its main loop is not).
  using Store = PairwiseTileKernel<ExpandedU8Op, std::uint32_t, PairwisePolicy<4, TileShape::kLarge>>;
  static_assert(Engine::kBM == Store::kBM && Engine::kTM == Store::kTM && Engine::kThreads == Store::kThreads,
                "the contraction hands over the store's layout");
  static constexpr int kThreads = Engine::kThreads;
  static constexpr int kMinBlocks = Engine::kMinBlocks;

  struct Params {
    Engine::Params tile;  // x and y as words
    Store::Params store;  // the output window, layout and op
  };
  using SharedStorage = Engine::SharedStorage;

  __device__ void operator()(Params const& p, SharedStorage& s) const {
    Store::Params const& o = p.store;
    // One thread polls; the whole block leaves together. The host throws after the launch.
    if (o.interrupt.word != nullptr && __syncthreads_or(threadIdx.x == 0 && interrupt_seen(o.interrupt))) return;
    std::int64_t const row0 = o.row_begin + static_cast<std::int64_t>(blockIdx.y) * Store::kBM;
    std::int64_t const col0 = static_cast<std::int64_t>(blockIdx.x) * Store::kBN;
    if (o.layout == OutputLayout::kCondensed && col0 + Store::kBN <= row0 + 1) return;  // below diagonal
    Engine::start(p.tile, s, row0, col0);
    std::uint32_t acc[Store::kTM][Store::kTN];
    Engine::compute_tile(p.tile, s, row0, col0, /*has_next=*/false, acc);
    int const tid = static_cast<int>(threadIdx.x);
    Store::store_tile(o, acc, row0, col0, tid % 16, tid / 16);
  }
};

// 74 KB of tiles and exchange buffers: dynamic shared memory, opted in at launch.
__global__ void __launch_bounds__(PackedU8MmaStoreKernel::kThreads, PackedU8MmaStoreKernel::kMinBlocks)
    packed_u8_mma_store_kernel(PackedU8MmaStoreKernel::Params const p) {
  extern __shared__ __align__(16) unsigned char smem[];
  PackedU8MmaStoreKernel{}(p, *reinterpret_cast<PackedU8MmaStoreKernel::SharedStorage*>(smem));
}

}  // namespace

bool pairwise_packed_u8_mma(PairwiseProblem const& pr, cudaStream_t stream) {
  using Kernel = PackedU8MmaStoreKernel;
  OpSpec const& spec = pr.op;
  bool const l2 = spec.kind == OpKind::kSqDiffSum;
  bool const inner_product = spec.kind == OpKind::kDot && spec.finish == 0;
  if (!(l2 || inner_product) || spec.weights != nullptr || !rows_are_words(pr.x, pr.y)) return false;
  auto const kernel = packed_u8_mma_store_kernel;
  if (!kernel_image_has_sm80(reinterpret_cast<void const*>(kernel))) return false;

  PairwiseProblem words = pr;
  words.x = as_words(pr.x);
  words.y = as_words(pr.y);
  std::vector<Array> keep;  // stream-ordered: freed after the kernel has read them
  ExpandedU8Op op;
  op.l2.take_sqrt = spec.take_sqrt;
  if (l2) {
    auto const [x_sq, y_sq] = row_squares(words.x, words.y, keep, stream);
    op.x_sq = static_cast<std::uint32_t const*>(x_sq);
    op.y_sq = static_cast<std::uint32_t const*>(y_sq);
  }
  Kernel::Params p{};
  p.store = store_params<Kernel::Store, std::uint32_t>(words, op);
  p.tile = Kernel::Engine::part_of(p.store);

  constexpr std::size_t kSmem = sizeof(Kernel::SharedStorage);
  CUDIST_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem)));
  kernel<<<store_grid(pr, Kernel::Store::kBM), Kernel::kThreads, kSmem, stream>>>(p);
  CUDIST_CHECK_LAUNCH();
#if defined(CUDIST_DEBUG_SYNC)
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
#endif
  return true;
}

}  // namespace cudist::detail::cuda
