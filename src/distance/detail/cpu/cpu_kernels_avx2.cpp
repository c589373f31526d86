// The CPU contraction for AVX2 + FMA (Haswell, Zen and later), chosen at run time (isa.hpp).
#define CUDIST_CPU_ISA avx2
#define CUDIST_CPU_VECTOR_BYTES 32
#define CUDIST_CPU_VECTOR_REGISTERS 16
#define CUDIST_CPU_TARGET "avx2,fma,bmi,bmi2,popcnt"
#include "distance/detail/cpu/variant_kernels.hpp"
