// Which instruction set the CPU contraction runs on. A portable build (the Python wheels, any
// build with CUDIST_NATIVE_CPU=OFF) targets the platform's baseline: SSE2 on x86-64, 16-byte
// vectors, no FMA. Its micro-kernel and tile loop are therefore also compiled for AVX2 + FMA and
// for AVX-512 (cpu_kernels_avx2.cpp, cpu_kernels_avx512.cpp: CUDIST_CPU_DISPATCH) and the widest
// that the running CPU supports is chosen at run time: C1 on an AVX2 machine ran 2-3x slower from
// a portable build than from a native one (docs/tuning.md).
//
// Each instruction set's code lives in its own namespace, cudist::detail::cpu::<variant>, named
// by CUDIST_CPU_ISA where the headers are included: the same template compiled for two
// instruction sets must not have one name, or the linker keeps one copy for both and a baseline
// CPU may run AVX-512 code. Everything else those translation units instantiate is compiled for
// the baseline (they include it before switching the target: cpu_kernels_avx2.cpp says how), and
// a test checks the objects for instructions beyond it outside their namespace
// (scripts/check_cpu_variants.sh).
#pragma once

#if !defined(CUDIST_CPU_ISA)
#define CUDIST_CPU_ISA build  // the build's own flags: -march=native, or the platform's baseline
#endif

namespace cudist::detail::cpu {

enum class CpuVariant { kBuild, kAvx2, kAvx512 };

/// The variant the CPU contraction runs: the environment's CUDIST_CPU_ISA (build, avx2, avx512)
/// where set, checked against the CPU; else the widest variant compiled in that the CPU runs,
/// the build's own where it is as wide. Decided once per process.
CpuVariant cpu_variant();

/// Bytes of the SIMD registers a variant's micro-kernel computes in (the build's own: as the
/// library was compiled).
int vector_bytes(CpuVariant v);

}  // namespace cudist::detail::cpu

/// Declares `declaration`, a function of the CPU contraction defined in every variant's namespace,
/// for the variants beyond the build's own (cpu_kernels_*.cpp), inside namespace
/// cudist::detail::cpu.
/// CUDIST_CALL_CPU_VARIANT(function, args...) then calls the one cpu_variant() chose.
#if CUDIST_CPU_DISPATCH
#define CUDIST_DECLARE_CPU_VARIANTS(declaration) \
  namespace avx2 {                               \
  declaration;                                   \
  }                                              \
  namespace avx512 {                             \
  declaration;                                   \
  }
#define CUDIST_CALL_CPU_VARIANT(function, ...)                                     \
  (cpu_variant() == CpuVariant::kAvx512 ? avx512::function(__VA_ARGS__)            \
   : cpu_variant() == CpuVariant::kAvx2 ? avx2::function(__VA_ARGS__)              \
                                        : build::function(__VA_ARGS__))
#else
#define CUDIST_DECLARE_CPU_VARIANTS(declaration)
#define CUDIST_CALL_CPU_VARIANT(function, ...) build::function(__VA_ARGS__)
#endif
