// The CPU contraction's code compiled for one more instruction set (isa.hpp). Included by
// cpu_kernels_avx2.cpp and cpu_kernels_avx512.cpp, which first define CUDIST_CPU_ISA (the
// namespace), CUDIST_CPU_VECTOR_BYTES and CUDIST_CPU_VECTOR_REGISTERS (the registers), and
// CUDIST_CPU_TARGET (GCC's target string, which isa.cpp checks the CPU for).
//
// Every header the tiles use is included first, at the build's baseline: a template defined
// under the target pragma would be compiled for it wherever this file instantiates it, under the
// name it has everywhere else (std::vector's, the op structs'), and the linker keeps one copy for
// all. Only what is defined below the pragma (the micro-kernel, the tile loop and the two
// contractions, all in namespace CUDIST_CPU_ISA) is compiled for the target; the baseline's small
// functions (the ops' steps) are inlined into it, as GCC allows for a callee of a subset of the
// caller's instruction set. scripts/check_cpu_variants.sh checks the objects for target
// instructions outside that namespace.
#pragma once

#include <omp.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/detail/interrupt_check.hpp"
#include "distance/detail/backend.hpp"
#include "distance/detail/cpu/isa.hpp"
#include "distance/detail/dispatch_op.hpp"
#include "distance/detail/ops.hpp"
#include "semiring/detail/backend.hpp"
#include "semiring/detail/dispatch_ring.hpp"
#include "semiring/detail/store_entry.hpp"

#define CUDIST_DO_PRAGMA(text) _Pragma(#text)
#define CUDIST_TARGET_PRAGMA(isa) CUDIST_DO_PRAGMA(GCC target(isa))

#pragma GCC push_options
CUDIST_TARGET_PRAGMA(CUDIST_CPU_TARGET)
#include "distance/detail/cpu/pairwise_tiles.hpp"
#include "semiring/detail/cpu/semiring_tiles.hpp"
#pragma GCC pop_options
