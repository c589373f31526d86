// Host-to-device uploads of pageable memory (src/core/cuda/pinned_upload.hpp) against the driver's
// own pageable copy and against the floor, a copy from page-locked memory, in one run.
//
//   build/bench/bench_host_upload [--megabytes 256] [--repeats 10]
//
// Three ways to move the same rows (float32, 512 bytes a row, as knn's 128-column databases) to
// the current GPU, each timed wall-clock until the data is there, the median of --repeats after a
// warm-up: cudist::copy from pageable memory (the path every host input of a call takes), a
// cudaMemcpy from the same pageable memory (the driver stages it with one thread), and a
// cudaMemcpy from page-locked memory (the copy engine's rate: the floor). The upload's copy is
// compared with the source, entry for entry. Prints one JSON object on stdout, a table on stderr.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cudist/cudist.hpp"

namespace {

void check(cudaError_t err, char const* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "bench_host_upload: %s: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

template <class F>
double median_seconds(int repeats, F&& upload) {
  upload();  // warm-up: contexts, the stages' first allocation
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    auto const start = std::chrono::steady_clock::now();
    upload();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t megabytes = 256;
  int repeats = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string const key = argv[i];
    if (key == "--megabytes") {
      megabytes = std::stoll(argv[i + 1]);
    } else if (key == "--repeats") {
      repeats = std::stoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "bench_host_upload: unknown option %s\n", key.c_str());
      return 2;
    }
  }
  if (cudist::cuda_device_count() == 0) {
    std::fprintf(stderr, "bench_host_upload: no CUDA GPU\n");
    return 1;
  }
  std::int64_t const cols = 128;
  std::int64_t const rows = megabytes * (1 << 20) / (cols * 4);
  std::size_t const bytes = static_cast<std::size_t>(rows * cols) * 4;
  std::vector<float> pageable(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < pageable.size(); ++i) pageable[i] = static_cast<float>(i % 1000003);
  void* pinned = nullptr;
  check(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
  std::memcpy(pinned, pageable.data(), bytes);
  void* device = nullptr;
  check(cudaMalloc(&device, bytes), "cudaMalloc");

  cudist::ConstMatrixView const from = cudist::view(pageable.data(), rows, cols);
  cudist::Array on_gpu;
  double const ours = median_seconds(repeats, [&] { on_gpu = cudist::Array::copy_of(from, cudist::Device::cuda()); });
  double const driver = median_seconds(repeats, [&] {
    check(cudaMemcpy(device, pageable.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy pageable");
  });
  double const floor = median_seconds(repeats, [&] {
    check(cudaMemcpy(device, pinned, bytes, cudaMemcpyHostToDevice), "cudaMemcpy pinned");
  });

  std::vector<float> back(pageable.size());
  cudist::copy(on_gpu.view(), cudist::view(back.data(), rows, cols));
  bool const same = std::memcmp(back.data(), pageable.data(), bytes) == 0;

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  double const gb = static_cast<double>(bytes) / 1e9;
  std::fprintf(stderr, "%s, %.0f MB float32 rows of 512 bytes, median of %d:\n", prop.name, gb * 1e3, repeats);
  std::fprintf(stderr, "  cudist copy from pageable   %7.2f ms  %6.1f GB/s  %5.1f%% of the floor\n", ours * 1e3,
               gb / ours, 100.0 * floor / ours);
  std::fprintf(stderr, "  cudaMemcpy from pageable    %7.2f ms  %6.1f GB/s\n", driver * 1e3, gb / driver);
  std::fprintf(stderr, "  cudaMemcpy from page-locked %7.2f ms  %6.1f GB/s  (floor)\n", floor * 1e3, gb / floor);
  std::printf("{\"device\": \"%s\", \"bytes\": %zu, \"repeats\": %d, \"cudist_copy_s\": %.6f, "
              "\"driver_pageable_s\": %.6f, \"pinned_floor_s\": %.6f, \"ours_over_floor\": %.3f, "
              "\"driver_over_ours\": %.3f, \"identical\": %s}\n",
              prop.name, bytes, repeats, ours, driver, floor, ours / floor, driver / ours, same ? "true" : "false");
  cudaFree(device);
  cudaFreeHost(pinned);
  return same ? 0 : 1;
}
