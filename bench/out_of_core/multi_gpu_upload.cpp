// Uploads from host memory to every GPU, each GPU alone and all of them at once: what a device
// set's call pays before its searches start (issue 14: on 2 x H200 the two halves of a 205 MB
// database took 3.5 and 7.6 ms at once, where one GPU took all of it in 4.5 ms; run 117).
//
//   build/bench/bench_multi_gpu_upload [--megabytes 102] [--repeats 10]
//
// For each GPU: its PCI bus and the host memory node the kernel says it sits on; then, each the
// median of --repeats after a warm-up, wall-clock until the data is there: cudist::copy of
// --megabytes of float32 rows from pageable memory (page-locked stages, as every host input of
// a call), and cudaMemcpy from page-locked memory (the copy engine's floor), first on each GPU
// alone, then on all GPUs at once (one host thread per GPU, each from its own buffer, started
// together; the time is each thread's and the slowest's). Then a device set's exchange
// (SharedUpload, src/neighbors/split_select.cpp): with the library's peer access on where the GPUs
// allow it (recorded per pair), each GPU copies every other GPU's staged copy into its own memory
// by cudist::copy, alone and all at once (run 185 held one GPU's search 13.9 ms behind that
// copy). Every copy is checked against its source. Prints one JSON object on stdout, a table on
// stderr.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cudist/cudist.hpp"
#include "common.hpp"
#include "core/detail/cuda_runtime.hpp"

namespace {

using Clock = std::chrono::steady_clock;

/// The host memory node the kernel reports for the GPU's PCI device (-1: unknown).
int numa_node(int gpu, std::string& bus) {
  char id[32] = {};
  check(cudaDeviceGetPCIBusId(id, sizeof id, gpu), "cudaDeviceGetPCIBusId");
  bus = id;
  std::transform(bus.begin(), bus.end(), bus.begin(), [](unsigned char c) { return std::tolower(c); });
  std::ifstream file("/sys/bus/pci/devices/" + bus + "/numa_node");
  int node = -1;
  return file >> node ? node : -1;
}

/// One GPU's buffers: pageable and page-locked sources, the device copy of the staged path and a
/// device buffer for the floor's copies.
struct GpuBuffers {
  int gpu;
  std::vector<float> pageable;
  void* pinned = nullptr;
  void* device = nullptr;
  cudist::Array staged_copy;
};

/// Times `copy(g)` on every GPU of `gpus` at once, --repeats times after a warm-up: per GPU the
/// median of its own times, and the median of the slowest per round.
std::pair<std::vector<double>, double> at_once(std::vector<GpuBuffers*> const& gpus, int repeats,
                                               std::function<void(GpuBuffers&)> const& copy) {
  std::size_t const n = gpus.size();
  std::vector<std::vector<double>> own(n);
  std::vector<double> slowest;
  for (int r = -1; r < repeats; ++r) {
    std::vector<double> took(n);
    std::vector<std::thread> threads;
    auto const start = Clock::now();
    for (std::size_t g = 0; g < n; ++g) {
      threads.emplace_back([&, g] {
        check(cudaSetDevice(gpus[g]->gpu), "cudaSetDevice");
        copy(*gpus[g]);
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        took[g] = std::chrono::duration<double>(Clock::now() - start).count();
      });
    }
    for (auto& t : threads) t.join();
    if (r < 0) continue;  // warm-up
    for (std::size_t g = 0; g < n; ++g) own[g].push_back(took[g]);
    slowest.push_back(*std::max_element(took.begin(), took.end()));
  }
  std::vector<double> medians;
  for (auto& t : own) medians.push_back(median(t));
  return {medians, median(slowest)};
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t megabytes = 102;
  int repeats = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string const key = argv[i];
    if (key == "--megabytes") {
      megabytes = std::stoll(argv[i + 1]);
    } else if (key == "--repeats") {
      repeats = std::stoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "bench_multi_gpu_upload: unknown option %s\n", key.c_str());
      return 2;
    }
  }
  int const count = cudist::cuda_device_count();
  if (count == 0 || megabytes < 1 || repeats < 1) {
    std::fprintf(stderr, "bench_multi_gpu_upload: %s\n",
                 count == 0 ? "no CUDA GPU" : "--megabytes and --repeats must be at least 1");
    return 1;
  }
  std::int64_t const cols = 128, rows = megabytes * (1 << 20) / (cols * 4);
  std::size_t const bytes = static_cast<std::size_t>(rows * cols) * 4;

  std::vector<GpuBuffers> gpus(static_cast<std::size_t>(count));
  for (int g = 0; g < count; ++g) {
    GpuBuffers& b = gpus[static_cast<std::size_t>(g)];
    b.gpu = g;
    b.pageable.resize(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < b.pageable.size(); ++i) b.pageable[i] = static_cast<float>((i + g) % 1000003);
    check(cudaSetDevice(g), "cudaSetDevice");
    check(cudaMallocHost(&b.pinned, bytes), "cudaMallocHost");
    std::memcpy(b.pinned, b.pageable.data(), bytes);
    check(cudaMalloc(&b.device, bytes), "cudaMalloc");
  }
  auto const staged = [&](GpuBuffers& b) {
    b.staged_copy = cudist::Array::copy_of(cudist::view(b.pageable.data(), rows, cols), cudist::Device::cuda(b.gpu));
  };
  auto const floor = [&](GpuBuffers& b) {
    check(cudaMemcpy(b.device, b.pinned, bytes, cudaMemcpyHostToDevice), "cudaMemcpy pinned");
  };

  // GPU g takes every other GPU's staged copy into one buffer of its own.
  std::vector<cudist::Array> pulled;
  for (int g = 0; g < count; ++g) {
    pulled.push_back(cudist::Array::allocate(rows * (count - 1), cols, cudist::DType::kFloat32, cudist::Device::cuda(g)));
  }
  // f(other GPU's buffers, GPU g's rows for them), the others in order.
  auto const for_each_other = [&](int g, auto const& f) {
    float* part = pulled[static_cast<std::size_t>(g)].data_as<float>();
    for (GpuBuffers const& other : gpus) {
      if (other.gpu == g) continue;
      f(other, cudist::view(part, rows, cols));
      part += rows * cols;
    }
  };
  auto const exchange = [&](GpuBuffers& b) {
    for_each_other(b.gpu, [](GpuBuffers const& other, cudist::MatrixView into) {
      cudist::copy(other.staged_copy.view(), into);
    });
  };
  std::string peers;
  for (int r = 0; r < count; ++r) {
    for (int o = 0; o < count; ++o) {
      if (r == o) continue;
      bool const on = cudist::detail::cuda_peer_access(r, o);
      std::fprintf(stderr, "peer access of cuda:%d to cuda:%d: %s\n", r, o, on ? "on" : "off");
      peers += std::string(peers.empty() ? "" : ", ") + "{\"reader\": " + std::to_string(r) +
               ", \"owner\": " + std::to_string(o) + ", \"peer_access\": " + (on ? "true" : "false") + "}";
    }
  }

  std::vector<GpuBuffers*> all;
  for (GpuBuffers& b : gpus) all.push_back(&b);
  double const gb = static_cast<double>(bytes) / 1e9;
  std::string json = "{\"megabytes\": " + std::to_string(bytes / 1e6) + ", \"repeats\": " + std::to_string(repeats) +
                     ", \"gpus\": [";
  std::fprintf(stderr, "%.0f MB float32 rows per GPU, median of %d (ms, GB/s):\n", gb * 1e3, repeats);
  std::vector<double> alone_staged, alone_floor, alone_exchange;
  for (GpuBuffers* b : all) {
    alone_staged.push_back(at_once({b}, repeats, staged).second);
    alone_floor.push_back(at_once({b}, repeats, floor).second);
  }
  auto const [together_staged, slowest_staged] = at_once(all, repeats, staged);
  auto const [together_floor, slowest_floor] = at_once(all, repeats, floor);
  for (GpuBuffers* b : all) alone_exchange.push_back(at_once({b}, repeats, exchange).second);
  auto const [together_exchange, slowest_exchange] = at_once(all, repeats, exchange);
  double const exchanged_gb = gb * (count - 1);

  bool same = true;
  for (int g = 0; g < count; ++g) {
    GpuBuffers const& b = gpus[static_cast<std::size_t>(g)];
    std::vector<float> back(b.pageable.size());
    cudist::copy(b.staged_copy.view(), cudist::view(back.data(), rows, cols));
    same = same && std::memcmp(back.data(), b.pageable.data(), bytes) == 0;
    for_each_other(g, [&](GpuBuffers const& other, cudist::MatrixView taken) {  // the rows it took
      cudist::copy(taken, cudist::view(back.data(), rows, cols));
      same = same && std::memcmp(back.data(), other.pageable.data(), bytes) == 0;
    });
    std::string bus;
    int const node = numa_node(g, bus);
    std::fprintf(stderr,
                 "  cuda:%d (%s, node %d): alone staged %6.2f (%5.1f) floor %6.2f (%5.1f); "
                 "all at once staged %6.2f (%5.1f) floor %6.2f (%5.1f); "
                 "the others' copies alone %6.2f (%5.1f), all at once %6.2f (%5.1f)\n",
                 g, bus.c_str(), node, alone_staged[g] * 1e3, gb / alone_staged[g], alone_floor[g] * 1e3,
                 gb / alone_floor[g], together_staged[g] * 1e3, gb / together_staged[g], together_floor[g] * 1e3,
                 gb / together_floor[g], alone_exchange[g] * 1e3, exchanged_gb / alone_exchange[g],
                 together_exchange[g] * 1e3, exchanged_gb / together_exchange[g]);
    char entry[640];
    std::snprintf(entry, sizeof entry,
                  "%s{\"gpu\": %d, \"pci_bus\": \"%s\", \"numa_node\": %d, \"alone_staged_s\": %.6f, "
                  "\"alone_floor_s\": %.6f, \"together_staged_s\": %.6f, \"together_floor_s\": %.6f, "
                  "\"alone_exchange_s\": %.6f, \"together_exchange_s\": %.6f}",
                  g ? ", " : "", g, bus.c_str(), node, alone_staged[g], alone_floor[g], together_staged[g],
                  together_floor[g], alone_exchange[g], together_exchange[g]);
    json += entry;
  }
  std::fprintf(stderr, "  all at once, the slowest: staged %6.2f ms, floor %6.2f ms, the others' copies %6.2f ms\n",
               slowest_staged * 1e3, slowest_floor * 1e3, slowest_exchange * 1e3);
  char tail[320];
  std::snprintf(tail, sizeof tail,
                "], \"together_slowest_staged_s\": %.6f, \"together_slowest_floor_s\": %.6f, "
                "\"together_slowest_exchange_s\": %.6f, \"host_threads\": %u, \"identical\": %s, \"peers\": [",
                slowest_staged, slowest_floor, slowest_exchange, std::thread::hardware_concurrency(),
                same ? "true" : "false");
  json += tail + peers + "]}\n";
  std::fputs(json.c_str(), stdout);
  for (GpuBuffers& b : gpus) {
    cudaFree(b.device);
    cudaFreeHost(b.pinned);
  }
  return same ? 0 : 1;
}
