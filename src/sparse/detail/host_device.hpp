// CUDIST_HD marks the small functions that the CPU backend and the CUDA kernels share.
#pragma once

#ifndef CUDIST_HD
#if defined(__CUDACC__)
#define CUDIST_HD __host__ __device__ __forceinline__
#else
#define CUDIST_HD inline
#endif
#endif
