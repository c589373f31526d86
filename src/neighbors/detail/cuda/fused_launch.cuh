// Dispatch of the fused selection kernel: the one place where the planned op (runtime data) and
// the element type become template arguments, for a given consumer. inst/*.cu instantiate
// run_fused<Consumer, kind> once per consumer and input kind.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/cuda/check.hpp"
#include "core/cuda/device_features.hpp"
#include "distance/detail/cuda/pairwise_launch.cuh"
#include "distance/detail/cuda/packed_u8_l2.cuh"
#include "distance/detail/dispatch_op.hpp"
#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/cuda/fused_select_kernel.cuh"
#include "neighbors/detail/cuda/launch.cuh"

namespace cudist::neighbors::detail::cuda {

using cudist::detail::cuda::PackedByteSqL2Op;

template <class Op>
struct IsFusedOp : std::bool_constant<Op::kLaneWise> {};
template <class Word, class Out>
struct IsFusedOp<cudist::detail::ops::XorPopcountOp<Word, Out>> : std::true_type {};
template <bool kSigned>
struct IsFusedOp<PackedByteSqL2Op<kSigned>> : std::true_type {};

/// Whether Op is the packed byte form of squared L2 (uint8 or int8 rows read as words).
template <class Op>
struct IsPackedBytes : std::false_type {};
template <bool kSigned>
struct IsPackedBytes<PackedByteSqL2Op<kSigned>> : std::true_type {};

/// The ops the fused consumers are compiled for: the metrics of search and descriptor matching
/// (L2, L1, L-inf, inner product / cosine, bit Hamming), whose single-value accumulators keep the
/// engine's 8 x 8 outputs per thread in registers. The long tail of metrics takes the
/// materialised paths (materialized_paths.hpp): compiling the fused kernel for them cost most of
/// the library's build time and spilled registers. Must agree with has_fused_path() in
/// select_policy.hpp.
template <class Op>
constexpr bool kFusedOp = IsFusedOp<Op>::value;

template <template <class> class SelectT, class Elem, class Op, class... EngineT>
void launch_fused(FusedLaunch const& f, Op const& op, SelectArgs const& a, cudaStream_t stream) {
  using Kernel = FusedSelectKernel<Op, Elem, SelectT, EngineT...>;  // EngineT: the SIMT one if none
  using Engine = typename Kernel::Engine;
  using C = typename Op::Compute;
  SelectProblem const& sp = *f.problem;
  auto const select = Kernel::Select::from(a, sp.rank);
  if (!select || f.blocks == 0) return;  // no key can be selected / nothing to do

  typename Kernel::Params p{};
  auto& t = p.tile;
  t.x = static_cast<Elem const*>(sp.pairwise.x.data);
  t.y = static_cast<Elem const*>(sp.pairwise.y.data);
  t.m = sp.pairwise.x.rows;
  t.n = sp.pairwise.y.rows;
  t.d = sp.pairwise.x.cols;
  t.ldx = sp.pairwise.x.stride;
  t.ldy = sp.pairwise.y.stride;
  using cudist::detail::cuda::rows_allow_vectors;
  t.x_vec = rows_allow_vectors(t.x, t.ldx, Engine::kVec * sizeof(Elem), sizeof(Elem));
  t.y_vec = rows_allow_vectors(t.y, t.ldy, Engine::kVec * sizeof(Elem), sizeof(Elem));
  if constexpr (Op::kWeighted) t.weights = static_cast<C const*>(sp.pairwise.op.weights);
  t.op = op;
  p.rank.op = op;
  p.rank.negate = sp.rank.similarity;
  p.grid = f.grid;
  p.zero_diagonal = sp.rank.zero_diagonal;
  p.exclude_self = sp.rank.exclude_self;
  p.column_best = static_cast<typename Kernel::Entry*>(f.column_best);
  p.select = *select;
  p.interrupt = cudist::detail::cuda::interrupt_poll();

  std::size_t const smem = Kernel::smem_bytes(*select);
  // The planner keeps blocks within the device (fused_knn_for); this names a planning mistake
  // instead of an opaque launch failure.
  std::size_t const device_smem = cudist::detail::cuda::max_block_shared_memory();
  if (smem > device_smem) {
    CUDIST_THROW(::cudist::CudaError, "fused selection: a block needs " << smem
                 << " bytes of shared memory, this device allows " << device_smem);
  }
  launch_with_smem(fused_select_kernel<Kernel>, f.blocks, Kernel::kThreads, smem, p, stream);
}

/// Calls f(op, Elem const* tag) for the exact integer ops: bit Hamming on words or bytes, squared
/// L2 of byte rows read as words (the problem's rows are int32 then; spec.signed_bytes for int8),
/// the other uint8 and int8 ops.
template <class F>
void dispatch_integer_select_op(SelectProblem const& p, F&& f) {
  namespace ops = cudist::detail::ops;
  auto const& spec = p.pairwise.op;
  bool const words = p.pairwise.x.dtype == DType::kInt32;
  if (spec.kind == cudist::detail::OpKind::kXorPopcount) {
    if (words) return f(ops::XorPopcountOp<std::uint32_t, float>{}, static_cast<std::uint32_t const*>(nullptr));
    return f(ops::XorPopcountOp<std::uint8_t, float>{}, static_cast<std::uint8_t const*>(nullptr));
  }
  if (words) {
    auto packed = [&](auto op) {
      op.x_sq = static_cast<std::uint32_t const*>(spec.x_norms);
      op.y_sq = static_cast<std::uint32_t const*>(spec.y_norms);
      return f(op, static_cast<std::uint32_t const*>(nullptr));
    };
    return spec.signed_bytes ? packed(PackedByteSqL2Op<true>{}) : packed(PackedByteSqL2Op<false>{});
  }
  cudist::detail::with_byte_type(p.pairwise.x.dtype, [&](auto elem) {
    using Elem = decltype(elem);
    cudist::detail::dispatch_integer_op(spec, [&](auto op) { f(op, static_cast<Elem const*>(nullptr)); });
  });
}

/// Runs consumer SelectT for packed byte L2 (uint8 or int8) with the tensor-core contraction
/// (packed_u8_mma_tile.cuh) and returns true, or returns false where the kernel's binary predates
/// sm_80 (an older GPU, or a build without sm_80+ code): then the SIMT engine runs it, with the
/// same results. Instantiated in inst/packed_u8_mma.cu for each consumer and signedness.
template <template <class> class SelectT, bool kSigned>
bool run_packed_byte_mma(FusedLaunch const& f, PackedByteSqL2Op<kSigned> const& op, SelectArgs const& a,
                         cudaStream_t stream);

/// Runs consumer SelectT for the op of f.problem (one of the kFusedOp ops).
template <template <class> class SelectT, InputKind kKind>
void run_fused(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  auto with = [&](auto op, auto const* tag) {
    using Op = decltype(op);
    using Elem = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    if constexpr (IsPackedBytes<Op>::value) {
      if (run_packed_byte_mma<SelectT>(f, op, a, stream)) return;
    }
    if constexpr (kFusedOp<Op>) launch_fused<SelectT, Elem>(f, op, a, stream);
  };
  if constexpr (kKind == InputKind::kFloat) {
    cudist::detail::dispatch_floating_op<float, float>(
        f.problem->pairwise, [&](auto op) { with(op, static_cast<float const*>(nullptr)); });
  } else if constexpr (kKind == InputKind::kDouble) {
    cudist::detail::dispatch_floating_op<double, double>(
        f.problem->pairwise, [&](auto op) { with(op, static_cast<double const*>(nullptr)); });
  } else {
    dispatch_integer_select_op(*f.problem, with);
  }
}

}  // namespace cudist::neighbors::detail::cuda
