// The sm_80 instructions the warp-level tensor-core contractions share: asynchronous copies into
// shared memory, ldmatrix, the MMAs, and where a tile row sits in the MMA order. Images for older GPUs
// compile to traps: their callers check the loaded image's architecture (kernel_image_has_sm80)
// and never launch them there.
#pragma once

#include <cuda_runtime.h>

namespace cudist::detail::cuda::mma {

/// cp.async of kBytes (16: bypassing L1, 4: through it) of which the first `bytes` are read and
/// the rest zero-filled.
template <int kBytes>
__device__ __forceinline__ void copy_async(unsigned to, void const* src, int bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(src), "r"(bytes));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to), "l"(src), "r"(bytes));
  }
#else
  __trap();
#endif
}

__device__ __forceinline__ void wait_async_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::);
#else
  __trap();
#endif
}

/// Four 8 x 8 matrices of 16-bit elements (8 x 16 bytes each); lane l gives the address of row
/// l % 8 of matrix l / 8.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], void const* row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  auto const at = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(at));
#else
  r[0] = r[1] = r[2] = r[3] = 0;
  __trap();
#endif
}

/// mma.sync m16n8k32 of bytes, int8 x int8 (kSigned) or uint8 x uint8 -> int32 (exact): c += a b.
template <bool kSigned>
__device__ __forceinline__ void mma_bytes(int (&c)[4], unsigned const (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CUDIST_MMA_BYTES(type)                                                                               \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32." type "." type ".s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
               "{%8,%9}, {%0,%1,%2,%3};\n"                                                                   \
               : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])                                              \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))
  if constexpr (kSigned) {
    CUDIST_MMA_BYTES("s8");
  } else {
    CUDIST_MMA_BYTES("u8");
  }
#undef CUDIST_MMA_BYTES
#else
  __trap();
#endif
}

/// mma.sync m16n8k256 of single bits, AND then population count -> int32 (exact): c += popc(a & b)
/// over 256-bit steps. Its fragments hold 32-bit words where m16n8k32's hold four bytes, so the same
/// byte tiles and ldmatrix pattern feed it: one step covers 32 bytes of each row either way. It
/// issues at the rate of the byte MMA (H200, run 143: 2.5 K multiply-adds of bytes or 20 K of
/// bits a cycle and SM), eight times the bits a cycle of the byte MMA's products.
__device__ __forceinline__ void mma_bits_and(int (&c)[4], unsigned const (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  __trap();
#endif
}

/// mma.sync m16n8k16, float16 x float16 with float32 accumulation: c += a b.
__device__ __forceinline__ void mma_f16(float (&c)[4], unsigned const (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  __trap();
#endif
}

/// The MMAs as callables, for code written once for bytes and float16.
template <bool kSignedBytes>
struct MmaBytes {
  static constexpr bool kSigned = kSignedBytes;
  __device__ void operator()(int (&c)[4], unsigned const (&a)[4], unsigned b0, unsigned b1) const {
    mma_bytes<kSigned>(c, a, b0, b1);
  }
};
struct MmaBitsAnd {
  __device__ void operator()(int (&c)[4], unsigned const (&a)[4], unsigned b0, unsigned b1) const {
    mma_bits_and(c, a, b0, b1);
  }
};
struct MmaF16 {
  __device__ void operator()(float (&c)[4], unsigned const (&a)[4], unsigned b0, unsigned b1) const {
    mma_f16(c, a, b0, b1);
  }
};

/// The fused consumers' row layout (fused_select_kernel.cuh): warp w owns the 16 tile rows
/// fragment(2w + r / 8, r % 8), r = 0..15, and computes them as its MMA rows r. Shared row of
/// the tile's row t (0..127) in that order: warp w = ty / 2, MMA row 8 (ty % 2) + i for the
/// thread's i-th row.
__device__ __forceinline__ int mma_row_slot(int t) {
  int const group = t % 64;
  int const ty = group / 4, i = (t / 64) * 4 + group % 4;
  return 16 * (ty / 2) + 8 * (ty % 2) + i;
}

}  // namespace cudist::detail::cuda::mma
