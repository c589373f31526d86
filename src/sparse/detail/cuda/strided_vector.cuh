// x or y of an SpMV as the thread-per-row and merge-path kernels address it: element i at byte
// offset i * stride_bytes from data. Its indices are never negative (CSR columns are checked
// against [0, cols), rows count up from 0), so an index as an unsigned 32-bit value times the
// 64-bit byte stride plus the base is one IMAD.WIDE.U32 and one IMAD; DenseOperand::at's signed
// 64-bit element product and scaling take seven instructions, and a gather of x has two of its
// own.
#pragma once

#include <cstdint>
#include <type_traits>

#include "sparse/detail/dense_operand.hpp"

namespace cudist::sparse::detail::cuda {

template <class T>
struct StridedVector {
  using Byte = std::conditional_t<std::is_const_v<T>, unsigned char const, unsigned char>;

  Byte* data;
  std::uint64_t stride_bytes;

  /// Column 0 of `operand`.
  static StridedVector column_of(DenseOperand<T> const& operand) {
    return {reinterpret_cast<Byte*>(operand.data),
            static_cast<std::uint64_t>(operand.row_stride) * sizeof(T)};
  }

  /// Element i >= 0; an index of 4 bytes or fewer is multiplied as 32 bits.
  template <class Index>
  __device__ __forceinline__ T& operator[](Index i) const {
    using Unsigned = std::conditional_t<sizeof(Index) <= 4, std::uint32_t, std::uint64_t>;
    return *reinterpret_cast<T*>(data + std::uint64_t{static_cast<Unsigned>(i)} * stride_bytes);
  }
};

}  // namespace cudist::sparse::detail::cuda
