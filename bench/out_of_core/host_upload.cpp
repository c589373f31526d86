// Copies between pageable host memory and a GPU (src/core/cuda/pinned_stages.hpp) against the
// driver's own pageable copies and against the floor, copies to and from page-locked memory, in
// one run.
//
//   build/bench/bench_host_upload [--megabytes 256] [--download-megabytes 4.8] [--repeats 10]
//
// Uploads: three ways to move the same rows (float32, 512 bytes a row, as knn's 128-column
// databases) to the current GPU, each timed wall-clock until the data is there, the median of
// --repeats after a warm-up: cudist::copy from pageable memory (the path every host input of a
// call takes), a cudaMemcpy from the same pageable memory (the driver stages it with one thread),
// and a cudaMemcpy from page-locked memory (the copy engine's rate: the floor). Downloads: the
// same three ways back for --download-megabytes (default: a 40000 x 10 knn answer's distances and
// indices), each into fresh pageable memory (mapped for the copy and unmapped after it, as a new
// NumPy array is), the floor into page-locked memory. The copies are compared with the source,
// entry for entry. Prints one JSON object on stdout, a table on stderr.
#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cudist/cudist.hpp"
#include "common.hpp"

namespace {

template <class F>
double median_seconds(int repeats, F&& copy_once) {
  copy_once();  // warm-up: contexts, the stages' first allocation
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    auto const start = std::chrono::steady_clock::now();
    copy_once();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Fresh pageable memory for one download: its pages are not there until first written.
struct FreshPages {
  explicit FreshPages(std::size_t bytes) : bytes(bytes) {
    data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data == MAP_FAILED) {
      std::fprintf(stderr, "bench_host_upload: mmap of %zu bytes failed\n", bytes);
      std::exit(1);
    }
  }
  ~FreshPages() { munmap(data, bytes); }
  FreshPages(FreshPages const&) = delete;
  FreshPages& operator=(FreshPages const&) = delete;
  std::size_t bytes;
  void* data;
};

}  // namespace

int main(int argc, char** argv) {
  std::int64_t megabytes = 256;
  double download_megabytes = 4.8;
  int repeats = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string const key = argv[i];
    if (key == "--megabytes") {
      megabytes = std::stoll(argv[i + 1]);
    } else if (key == "--download-megabytes") {
      download_megabytes = std::stod(argv[i + 1]);
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
  bool same = std::memcmp(back.data(), pageable.data(), bytes) == 0;

  // Downloads of the first rows of the uploaded copy, each into fresh pages.
  std::int64_t const down_rows =
      std::clamp<std::int64_t>(static_cast<std::int64_t>(download_megabytes * 1e6) / (cols * 4), 1, rows);
  std::size_t const down_bytes = static_cast<std::size_t>(down_rows * cols) * 4;
  cudist::ConstMatrixView answer = on_gpu.view();
  answer.rows = down_rows;
  double const ours_down = median_seconds(repeats, [&] {
    FreshPages const to(down_bytes);
    cudist::copy(answer, cudist::view(static_cast<float*>(to.data), down_rows, cols));
    same = same && std::memcmp(to.data, pageable.data(), down_bytes) == 0;
  });
  double const driver_down = median_seconds(repeats, [&] {
    FreshPages const to(down_bytes);
    check(cudaMemcpy(to.data, on_gpu.data(), down_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to pageable");
  });
  double const floor_down = median_seconds(repeats, [&] {
    check(cudaMemcpy(pinned, on_gpu.data(), down_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to pinned");
  });

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  double const gb = static_cast<double>(bytes) / 1e9;
  std::fprintf(stderr, "%s, %.0f MB float32 rows of 512 bytes, median of %d:\n", prop.name, gb * 1e3, repeats);
  std::fprintf(stderr, "  cudist copy from pageable   %7.2f ms  %6.1f GB/s  %5.1f%% of the floor\n", ours * 1e3,
               gb / ours, 100.0 * floor / ours);
  std::fprintf(stderr, "  cudaMemcpy from pageable    %7.2f ms  %6.1f GB/s\n", driver * 1e3, gb / driver);
  std::fprintf(stderr, "  cudaMemcpy from page-locked %7.2f ms  %6.1f GB/s  (floor)\n", floor * 1e3, gb / floor);
  double const down_gb = static_cast<double>(down_bytes) / 1e9;
  std::fprintf(stderr, "%.1f MB back, each into fresh pageable pages (page-locked for the floor):\n", down_gb * 1e3);
  std::fprintf(stderr, "  cudist copy to pageable     %7.2f ms  %6.1f GB/s  %5.1f%% of the floor\n", ours_down * 1e3,
               down_gb / ours_down, 100.0 * floor_down / ours_down);
  std::fprintf(stderr, "  cudaMemcpy to pageable      %7.2f ms  %6.1f GB/s\n", driver_down * 1e3, down_gb / driver_down);
  std::fprintf(stderr, "  cudaMemcpy to page-locked   %7.2f ms  %6.1f GB/s  (floor)\n", floor_down * 1e3,
               down_gb / floor_down);
  std::printf("{\"device\": \"%s\", \"bytes\": %zu, \"repeats\": %d, \"cudist_copy_s\": %.6f, "
              "\"driver_pageable_s\": %.6f, \"pinned_floor_s\": %.6f, \"ours_over_floor\": %.3f, "
              "\"driver_over_ours\": %.3f, \"download_bytes\": %zu, \"download_cudist_copy_s\": %.6f, "
              "\"download_driver_pageable_s\": %.6f, \"download_pinned_floor_s\": %.6f, "
              "\"download_ours_over_floor\": %.3f, \"download_driver_over_ours\": %.3f, \"identical\": %s}\n",
              prop.name, bytes, repeats, ours, driver, floor, ours / floor, driver / ours, down_bytes, ours_down,
              driver_down, floor_down, ours_down / floor_down, driver_down / ours_down, same ? "true" : "false");
  cudaFree(device);
  cudaFreeHost(pinned);
  return same ? 0 : 1;
}
