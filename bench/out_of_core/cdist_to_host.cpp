// Issue 14's out-of-core measurement: a cdist whose output is at least 1.1x the GPU's memory,
// streamed into host memory, as a share of the device-to-host bandwidth measured in the same run.
//
//   build/bench/bench_out_of_core [--factor 1.1] [--cols 16] [--repeats 3] [--modes pinned,pageable]
//
// Modes: "pinned" writes into page-locked host memory (the windows are copied straight into it),
// "pageable" into ordinary memory (through page-locked staging buffers and a copy on all cores).
// Both are compared with the pinned device-to-host copy bandwidth (cudaMemcpyAsync of 1 GiB into
// page-locked memory, median of 10). The inputs are on the GPU before timing starts; a call's time
// is wall-clock around cdist (which synchronizes), the median of --repeats calls. A sample of
// 4096 entries is checked against float64 on the host. Prints one JSON object on stdout and a
// table on stderr. Needs host memory for the output (+ a little): it says so and stops when the
// machine lacks it.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cudist/cudist.hpp"
#include "common.hpp"

namespace {

struct Args {
  double factor = 1.1;
  std::int64_t cols = 16;
  int repeats = 3;
  std::vector<std::string> modes{"pinned", "pageable"};
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string const key = argv[i], value = argv[i + 1];
    if (key == "--factor") {
      a.factor = std::stod(value);
    } else if (key == "--cols") {
      a.cols = std::stoll(value);
    } else if (key == "--repeats") {
      a.repeats = std::stoi(value);
    } else if (key == "--modes") {
      a.modes.clear();
      std::istringstream list(value);
      for (std::string m; std::getline(list, m, ',');) a.modes.push_back(m);
    } else {
      std::fprintf(stderr, "bench_out_of_core: unknown option %s\n", key.c_str());
      std::exit(2);
    }
  }
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Pinned device-to-host bandwidth: 1 GiB copies into `host` (page-locked), median of 10.
double pinned_d2h_bytes_per_s(void* host) {
  constexpr std::size_t kBytes = std::size_t(1) << 30;
  void* dev = nullptr;
  check(cudaMalloc(&dev, kBytes), "cudaMalloc");
  check(cudaMemset(dev, 1, kBytes), "cudaMemset");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> rates;
  for (int r = 0; r < 12; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    check(cudaMemcpyAsync(host, dev, kBytes, cudaMemcpyDeviceToHost), "cudaMemcpyAsync");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (r >= 2) rates.push_back(kBytes / (ms * 1e-3));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(dev);
  return median(rates);
}

/// rows x cols uniform floats in [-1, 1) on the host.
cudist::Array random_matrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  cudist::Array a = cudist::Array::allocate(rows, cols, cudist::DType::kFloat32, cudist::Device::cpu());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<float>()[i] = uniform(rng);
  return a;
}

/// Largest relative error of `samples` random entries of out against float64 euclidean distances.
double sampled_error(cudist::Array const& x, cudist::Array const& y, float const* out, std::int64_t samples) {
  std::mt19937_64 rng(7);
  std::int64_t const d = x.cols();
  double worst = 0;
  for (std::int64_t s = 0; s < samples; ++s) {
    std::int64_t const i = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(x.rows()));
    std::int64_t const j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(y.rows()));
    double acc = 0;
    for (std::int64_t k = 0; k < d; ++k) {
      double const diff = double(x.data_as<float>()[i * d + k]) - double(y.data_as<float>()[j * d + k]);
      acc += diff * diff;
    }
    double const want = std::sqrt(acc);
    worst = std::max(worst, std::abs(out[i * y.rows() + j] - want) / std::max(want, 1e-30));
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cudist;
  Args const args = parse(argc, argv);
  if (cuda_device_count() == 0) {
    std::fprintf(stderr, "bench_out_of_core: no CUDA GPU\n");
    return 1;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");

  // n columns of the output; m rows so that m * n * 4 bytes >= factor * the GPU's memory.
  std::int64_t const n = 100000;
  auto const m = static_cast<std::int64_t>(std::ceil(args.factor * double(total_b) / (4.0 * double(n))));
  double const out_bytes = 4.0 * double(m) * double(n);
  double const host_needed = out_bytes + 4.0 * double(m + n) * double(args.cols) + (1u << 30);
  double const host_available = double(available_memory(Device::cpu()));
  std::fprintf(stderr, "%s: %.1f GB of GPU memory; output %lld x %lld fp32 = %.1f GB (%.2fx); host has %.1f GB available\n",
               prop.name, total_b / 1e9, (long long)m, (long long)n, out_bytes / 1e9, out_bytes / double(total_b),
               host_available / 1e9);
  if (host_needed > host_available) {
    std::fprintf(stderr, "bench_out_of_core: the output needs %.1f GB of host memory but only %.1f GB is available; "
                         "run on a machine with more memory (e.g. the 2 x H200 machine, 256 GiB)\n",
                 host_needed / 1e9, host_available / 1e9);
    return 1;
  }

  Array const x = random_matrix(m, args.cols, 1);
  Array const y = random_matrix(n, args.cols, 2);
  Resources const res(Device::cuda(0));
  Array const xd = Array::copy_of(x.view(), res.device), yd = Array::copy_of(y.view(), res.device);

  double pinned_bw = 0;
  std::printf("{\"device\": \"%s\", \"gpu_memory_bytes\": %zu, \"output\": [%lld, %lld], \"cols\": %lld, "
              "\"output_bytes\": %.0f, \"output_over_gpu_memory\": %.3f, \"runs\": [",
              prop.name, total_b, (long long)m, (long long)n, (long long)args.cols, out_bytes,
              out_bytes / double(total_b));
  for (std::size_t mi = 0; mi < args.modes.size(); ++mi) {
    std::string const& mode = args.modes[mi];
    bool const pinned = mode == "pinned";
    float* out = nullptr;
    auto const alloc_start = std::chrono::steady_clock::now();
    if (pinned) {
      check(cudaHostAlloc(reinterpret_cast<void**>(&out), static_cast<std::size_t>(out_bytes), cudaHostAllocDefault),
            "cudaHostAlloc (output)");
    } else {
      out = static_cast<float*>(std::malloc(static_cast<std::size_t>(out_bytes)));
      if (out == nullptr) {
        std::fprintf(stderr, "bench_out_of_core: malloc of the output failed\n");
        return 1;
      }
    }
    double const alloc_s = seconds_since(alloc_start);
    if (pinned_bw == 0) {
      float* probe = out;
      if (!pinned) check(cudaHostAlloc(reinterpret_cast<void**>(&probe), std::size_t(1) << 30, 0), "cudaHostAlloc");
      pinned_bw = pinned_d2h_bytes_per_s(probe);
      if (!pinned) cudaFreeHost(probe);
    }
    std::vector<double> times;
    for (int r = 0; r < args.repeats; ++r) {
      auto const start = std::chrono::steady_clock::now();
      cdist(res, xd, yd, view(out, m, n, -1, Memory::kHost), Metric::kEuclidean);
      times.push_back(seconds_since(start));
    }
    double const t = median(times);
    double const error = sampled_error(x, y, out, 4096);
    bool const correct = error < 1e-5;
    std::fprintf(stderr, "%-9s output: %.3f s (median of %d; first %.3f s; allocation %.1f s) = %.1f GB/s = %.1f%% of the "
                         "pinned device-to-host %.1f GB/s; sampled max rel. error %.2g %s\n",
                 mode.c_str(), t, args.repeats, times.front(), alloc_s, out_bytes / t / 1e9,
                 100 * out_bytes / t / pinned_bw, pinned_bw / 1e9, error, correct ? "ok" : "WRONG");
    std::printf("%s{\"mode\": \"%s\", \"seconds\": %.4f, \"first_seconds\": %.4f, \"bytes_per_s\": %.4g, "
                "\"d2h_pinned_bytes_per_s\": %.4g, \"percent_of_d2h\": %.1f, \"max_rel_error\": %.3g, \"correct\": %s}",
                mi ? ", " : "", mode.c_str(), t, times.front(), out_bytes / t, pinned_bw, 100 * out_bytes / t / pinned_bw,
                error, correct ? "true" : "false");
    if (pinned) {
      cudaFreeHost(out);
    } else {
      std::free(out);
    }
  }
  std::printf("]}\n");
  return 0;
}
