// What the out-of-core and upload benchmarks share: one error rule (a failed CUDA call ends the
// program with the call named) and the median they report.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <vector>

/// Exits with "<program>: <what>: <error>" on stderr where err is an error.
inline void check(cudaError_t err, char const* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, cudaGetErrorString(err));
    std::exit(1);
  }
}

/// The median of `v` (the upper one of an even count).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
