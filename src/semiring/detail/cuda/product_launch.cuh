// Launching semiring product kernels on the caller's stream. One translation unit per element
// type (semiring_{float,double,int32,int16}.cu) instantiates them for every semiring.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/check.hpp"
#include "distance/detail/cuda/pairwise_launch.cuh"
#include "semiring/detail/cuda/product_kernel.cuh"
#include "semiring/detail/dispatch_ring.hpp"
#include "semiring/detail/problem.hpp"

namespace cudist::detail::cuda {

/// A (m, d) and B (d, n) of one launch, in the element type the kernel loads.
template <class Elem>
struct ProductOperands {
  Elem const* a;
  std::int64_t lda;
  Elem const* b;
  std::int64_t ldb;
  std::int64_t m, n, d;
};

/// Which of two launches computing the same product runs (product_kernel.cuh); no flag: always.
struct RangeGuard {
  int const* flag = nullptr;
  int run_when = 0;
};

template <class Op, class Elem, class Epilogue = EntryEpilogue<Op>>
void launch_product(ProductOperands<Elem> const& in, typename Epilogue::Params const& out,
                    Op const& op, RangeGuard guard, cudaStream_t stream) {
  using Kernel = SemiringProductKernel<Op, Elem, Epilogue>;
  constexpr std::size_t kChunkBytes = Kernel::Engine::kVec * sizeof(Elem);
  typename Kernel::Params p{};
  p.main.x = in.a;
  p.main.y = in.b;
  p.main.m = in.m;
  p.main.n = in.n;
  p.main.d = in.d;
  p.main.ldx = in.lda;
  p.main.ldy = in.ldb;
  p.main.x_vec = rows_allow_vectors(in.a, in.lda, kChunkBytes, sizeof(Elem));
  p.main.y_vec = rows_allow_vectors(in.b, in.ldb, kChunkBytes, sizeof(Elem));
  p.main.op = op;
  p.main.interrupt = interrupt_poll_for_depth(in.d);
  p.out = out;
  p.guard = guard.flag;
  p.run_when = guard.run_when;
  std::int64_t const grid_x = (in.n + Kernel::kBN - 1) / Kernel::kBN;
  std::int64_t const grid_y = (in.m + Kernel::kBM - 1) / Kernel::kBM;
  CUDIST_EXPECTS(grid_y <= 65535 && grid_x <= 0x7fffffff,
                 "semiring_product: " << in.m << " x " << in.n
                                      << " is beyond one launch's grid; split a by rows");
  pairwise_tile_kernel<Kernel><<<dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y)),
                                 Kernel::kThreads, 0, stream>>>(p);
  CUDIST_CHECK_LAUNCH();
#if defined(CUDIST_DEBUG_SYNC)
  CUDIST_CUDA_TRY(cudaStreamSynchronize(stream));
#endif
}

/// The product of `p` with the rings of dispatch_ring.hpp, on the inputs as given.
template <class Elem>
void launch_ring_product(SemiringProblem const& p, RangeGuard guard, cudaStream_t stream) {
  ProductOperands<Elem> const in{static_cast<Elem const*>(p.a.data), p.a.stride,
                                 static_cast<Elem const*>(p.b.data), p.b.stride,
                                 p.a.rows, p.b.cols, p.a.cols};
  semiring::dispatch_ring<Elem>(p.semiring, [&](auto ring) {
    semiring::with_product_op(ring, p.witness.data != nullptr, [&](auto op) {
      using Op = decltype(op);
      launch_product<Op, Elem>(in, semiring::product_output<typename Op::Output>(p), op, guard, stream);
    });
  });
}

void semiring_float(SemiringProblem const& p, cudaStream_t stream);
void semiring_double(SemiringProblem const& p, cudaStream_t stream);
void semiring_int32(SemiringProblem const& p, cudaStream_t stream);
void semiring_int16(SemiringProblem const& p, cudaStream_t stream);

}  // namespace cudist::detail::cuda
