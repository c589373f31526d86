// The CPU backend's semiring products for one instruction set: the pairwise contraction's tile
// loop and micro-kernel (distance/detail/cpu/tiled_contraction.hpp) over columns of B, every
// entry written through store_entry. Included once per instruction set, as pairwise_tiles.hpp
// (distance/detail/cpu/isa.hpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "distance/detail/cpu/tiled_contraction.hpp"
#include "semiring/detail/backend.hpp"
#include "semiring/detail/dispatch_ring.hpp"
#include "semiring/detail/store_entry.hpp"

namespace cudist::detail::cpu::CUDIST_CPU_ISA {
namespace {

template <class Op, class Elem>
void run_tiles(SemiringProblem const& p, Op const& op) {
  using C = typename Op::Compute;
  using Acc = typename Op::Acc;
  auto const* a = static_cast<Elem const*>(p.a.data);
  auto const* b = static_cast<Elem const*>(p.b.data);
  std::int64_t const m = p.a.rows, n = p.b.cols, d = p.a.cols;
  auto const out = semiring::product_output<typename Op::Output>(p);

  // B's own layout is k-major: a group reads kNR consecutive entries of each row of B.
  auto const pack_columns_of_b = [&](C* dst, std::int64_t jg, std::int64_t j_last) {
    for (std::int64_t k = 0; k < d; ++k) {
      Elem const* src = b + k * p.b.stride;
      for (int c = 0; c < kNR; ++c) dst[k * kNR + c] = static_cast<C>(src[std::min(jg + c, j_last)]);
    }
  };
  contract_tiles(op, a, p.a.stride, m, n, d, static_cast<C const*>(nullptr), pack_columns_of_b,
                 [](std::int64_t, std::int64_t, std::int64_t) { return false; },
                 [&](std::int64_t i, std::int64_t j, int count, Acc const (&acc)[kNR]) {
                   for (int c = 0; c < count; ++c) semiring::store_entry(out, op, acc[c], i, j + c);
                 });
}

template <class Elem>
void run_for_dtype(SemiringProblem const& p) {
  semiring::dispatch_ring<Elem>(p.semiring, [&](auto ring) {
    semiring::with_product_op(ring, p.witness.data != nullptr,
                              [&](auto op) { run_tiles<decltype(op), Elem>(p, op); });
  });
}

}  // namespace

/// The product p on this instruction set (p has entries).
void semiring_tiles(SemiringProblem const& p) {
  switch (p.a.dtype) {
    case DType::kFloat32: return run_for_dtype<float>(p);
    case DType::kFloat64: return run_for_dtype<double>(p);
    case DType::kInt32: return run_for_dtype<std::int32_t>(p);
    case DType::kInt16: return run_for_dtype<std::int16_t>(p);
    default: break;  // the API layer admits no other dtype
  }
}

}  // namespace cudist::detail::cpu::CUDIST_CPU_ISA
