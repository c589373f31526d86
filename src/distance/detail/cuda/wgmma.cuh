// Hopper's warpgroup MMA (wgmma, sm_90a only): a warpgroup of 4 warps multiplies a 64-row tile of
// A by an N-column tile of B, both read by the tensor cores straight from shared memory through
// descriptors, with no ldmatrix and no register fragments, asynchronously. The kernels that use it
// are compiled for sm_90a alone (src/neighbors/CMakeLists.txt); any other image gets traps, and
// their callers launch them only where the device loaded the sm_90a image.
//
// Shared layout (PTX ISA, "matrix descriptor", K-major with the 128-byte swizzle): a tile's rows
// are 128 bytes of K each, 8 rows (1024 bytes) to a swizzle atom, the 16-byte chunk c of row r at
// chunk position c ^ (r % 8) (address bits 4-6 XOR bits 7-9, so atoms must start 1024-byte
// aligned); K beyond 128 bytes continues in a second such block of all the rows.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cudist::detail::cuda::wgmma {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CUDIST_WGMMA_HERE 1
#else
#define CUDIST_WGMMA_HERE 0
#endif

/// The descriptor of the K-major, 128-byte-swizzled operand at shared address `at` (its 1024-byte
/// atom's start, plus 32 k bytes for the k-th 32-byte step inside it): 8-row groups 1024 bytes
/// apart (stride), the leading offset unused with this swizzle (1 by convention). The high word
/// is a constant and the low word linear in the address (shared addresses stay below 2^18), so a
/// kernel makes the low word once and adds each step's offset / 16 to it.
__device__ __forceinline__ std::uint32_t descriptor_low(unsigned at) { return (at >> 4) | (1u << 16); }
__device__ __forceinline__ std::uint64_t descriptor(std::uint32_t low) {
  constexpr std::uint32_t kHigh = (1024 >> 4) | (1u << 30);  // stride 1024; 128-byte swizzle (bits 62-63: 1)
  return (static_cast<std::uint64_t>(kHigh) << 32) | low;
}

/// The 128-byte swizzle of a byte address in the layout above: chunk bits 4-6 XOR row bits 7-9.
__device__ __forceinline__ unsigned swizzled(unsigned at) { return at ^ ((at >> 3) & 0x70u); }

/// Orders this thread's writes of shared memory (ordinary stores, cp.async once waited for)
/// before the tensor cores' reads of it, which go through the async proxy. Each writer fences,
/// then a barrier publishes.
__device__ __forceinline__ void writes_to_async_proxy() {
#if CUDIST_WGMMA_HERE
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
  __trap();
#endif
}

/// Keeps the compiler from moving accesses of the accumulators across the asynchronous MMA:
/// between wgmma's issue and wait_all() the registers belong to the tensor cores.
template <int kN>
__device__ __forceinline__ void pin(int (&c)[kN][4]) {
#pragma unroll
  for (int i = 0; i < kN; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+r"(c[i][e])::"memory");
}
template <int kN>
__device__ __forceinline__ void pin(float (&c)[kN][4]) {
#pragma unroll
  for (int i = 0; i < kN; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+f"(c[i][e])::"memory");
}

/// Before the first wgmma that reads accumulators written by ordinary instructions.
__device__ __forceinline__ void fence() {
#if CUDIST_WGMMA_HERE
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
  __trap();
#endif
}

/// Closes the issued wgmmas into a group.
__device__ __forceinline__ void commit() {
#if CUDIST_WGMMA_HERE
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
  __trap();
#endif
}

/// Waits for every group of this warpgroup.
__device__ __forceinline__ void wait_all() {
#if CUDIST_WGMMA_HERE
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#else
  __trap();
#endif
}

/// Closes the issued wgmmas into a group and waits for every group of this warpgroup.
__device__ __forceinline__ void commit_and_wait_all() {
  commit();
  wait_all();
}

/// c += A B for the warpgroup's 64 rows of A and 64 columns of B, one 32-byte K step of `shape`'s
/// integer MMA (int32 accumulation: exact): "m64n64k32.s32.u8.u8" or ".s8.s8" (bytes), or
/// "m64n64k256.s32.b1.b1.and.popc" (bits: the popcount of A AND B). c[i] holds, for the thread's
/// lane l of warp w in the group, rows 16 w + l / 4 and 16 w + l / 4 + 8 and columns
/// 8 i + 2 (l % 4) + {0, 1}: mma.sync m16n8's layout, tiled.
#if CUDIST_WGMMA_HERE
#define CUDIST_WGMMA_INT(shape, c, a, b)                                                                      \
  asm volatile(                                                                                               \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                                            \
      "wgmma.mma_async.sync.aligned." shape                                                                   \
      " {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27," \
      "%28,%29,%30,%31}, %32, %33, p;\n}\n"                                                                   \
      : "+r"(c[0][0]), "+r"(c[0][1]), "+r"(c[0][2]), "+r"(c[0][3]), "+r"(c[1][0]), "+r"(c[1][1]),             \
        "+r"(c[1][2]), "+r"(c[1][3]), "+r"(c[2][0]), "+r"(c[2][1]), "+r"(c[2][2]), "+r"(c[2][3]),             \
        "+r"(c[3][0]), "+r"(c[3][1]), "+r"(c[3][2]), "+r"(c[3][3]), "+r"(c[4][0]), "+r"(c[4][1]),             \
        "+r"(c[4][2]), "+r"(c[4][3]), "+r"(c[5][0]), "+r"(c[5][1]), "+r"(c[5][2]), "+r"(c[5][3]),             \
        "+r"(c[6][0]), "+r"(c[6][1]), "+r"(c[6][2]), "+r"(c[6][3]), "+r"(c[7][0]), "+r"(c[7][1]),             \
        "+r"(c[7][2]), "+r"(c[7][3])                                                                          \
      : "l"(a), "l"(b), "r"(1))
#endif

/// Bytes: int8 x int8 when kSigned, else uint8 x uint8.
template <bool kSigned>
__device__ __forceinline__ void mma_bytes_m64n64(int (&c)[8][4], std::uint64_t a, std::uint64_t b) {
#if CUDIST_WGMMA_HERE
  if constexpr (kSigned) {
    CUDIST_WGMMA_INT("m64n64k32.s32.s8.s8", c, a, b);
  } else {
    CUDIST_WGMMA_INT("m64n64k32.s32.u8.u8", c, a, b);
  }
#else
  __trap();
#endif
}

/// Bits: 256 of K a step, the count of the bits set in both rows.
__device__ __forceinline__ void mma_bits_and_m64n64(int (&c)[8][4], std::uint64_t a, std::uint64_t b) {
#if CUDIST_WGMMA_HERE
  CUDIST_WGMMA_INT("m64n64k256.s32.b1.b1.and.popc", c, a, b);
#else
  __trap();
#endif
}

#if CUDIST_WGMMA_HERE
#undef CUDIST_WGMMA_INT
#endif

/// c += A B (kFirst: c = A B, c's old values unread) for the warpgroup's 64 rows of A and 64
/// columns of B: one 32-byte K step of float16 (16 values), float32 accumulation, both operands
/// K-major; c's layout as mma_bytes_m64n64's.
template <bool kFirst>
__device__ __forceinline__ void mma_f16_m64n64(float (&c)[8][4], std::uint64_t a, std::uint64_t b) {
#if CUDIST_WGMMA_HERE
#define CUDIST_WGMMA_F16(out)                                                                                  \
  asm volatile(                                                                                                \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                                             \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"                                                     \
      " {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27," \
      "%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"                                                        \
      : out(c[0][0]), out(c[0][1]), out(c[0][2]), out(c[0][3]), out(c[1][0]), out(c[1][1]), out(c[1][2]),     \
        out(c[1][3]), out(c[2][0]), out(c[2][1]), out(c[2][2]), out(c[2][3]), out(c[3][0]), out(c[3][1]),     \
        out(c[3][2]), out(c[3][3]), out(c[4][0]), out(c[4][1]), out(c[4][2]), out(c[4][3]), out(c[5][0]),     \
        out(c[5][1]), out(c[5][2]), out(c[5][3]), out(c[6][0]), out(c[6][1]), out(c[6][2]), out(c[6][3]),     \
        out(c[7][0]), out(c[7][1]), out(c[7][2]), out(c[7][3])                                                \
      : "l"(a), "l"(b), "r"(kFirst ? 0 : 1))
  if constexpr (kFirst) {
    CUDIST_WGMMA_F16("=f");
  } else {
    CUDIST_WGMMA_F16("+f");
  }
#undef CUDIST_WGMMA_F16
#else
  __trap();
#endif
}

}  // namespace cudist::detail::cuda::wgmma
