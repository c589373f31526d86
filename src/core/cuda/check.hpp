// CUDIST_CUDA_TRY: every CUDA runtime call and launch goes through it. Clears the sticky error
// and throws CudaError with the call, file:line, error name and text.
#pragma once

#include <cuda_runtime_api.h>

#include "core/detail/expects.hpp"

#define CUDIST_CUDA_TRY(call)                                                                \
  do {                                                                                       \
    cudaError_t const cudist_err_ = (call);                                                  \
    if (cudist_err_ != cudaSuccess) {                                                        \
      cudaGetLastError();                                                                    \
      CUDIST_THROW(::cudist::CudaError, "CUDA error " << cudaGetErrorName(cudist_err_)       \
                                                      << " (" << cudaGetErrorString(cudist_err_) \
                                                      << ") in " #call " at " << __FILE__    \
                                                      << ":" << __LINE__);                   \
    }                                                                                        \
  } while (0)

/// After every kernel launch.
#define CUDIST_CHECK_LAUNCH() CUDIST_CUDA_TRY(cudaPeekAtLastError())
