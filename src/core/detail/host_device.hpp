// CUDIST_HD marks the small functions that the CPU backend and the CUDA kernels share (op
// structs, semiring ops, merge-path search): host and device, always inlined, under nvcc; plain
// inline functions in host-only translation units.
#pragma once

#if defined(__CUDACC__)
#define CUDIST_HD __host__ __device__ __forceinline__
#else
#define CUDIST_HD inline
#endif
