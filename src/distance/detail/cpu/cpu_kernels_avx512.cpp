// The CPU contraction for AVX-512 (F, BW, DQ, VL: Skylake-SP, Zen 4 and later), chosen at run
// time (isa.hpp).
#define CUDIST_CPU_ISA avx512
#define CUDIST_CPU_VECTOR_BYTES 64
#define CUDIST_CPU_VECTOR_REGISTERS 32
#define CUDIST_CPU_TARGET "avx2,fma,bmi,bmi2,popcnt,avx512f,avx512bw,avx512dq,avx512vl"
#include "distance/detail/cpu/variant_kernels.hpp"
