// The out-of-core and upload benchmarks' one error rule: a failed CUDA call ends the program with
// the call named.
#pragma once

#include <cuda_runtime_api.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

/// Exits with "<program>: <what>: <error>" on stderr where err is an error.
inline void check(cudaError_t err, char const* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, cudaGetErrorString(err));
    std::exit(1);
  }
}
