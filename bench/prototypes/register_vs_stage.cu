// Prototype (not built): uploading 107 MB of pageable rows to each GPU, alone and all at once, by
// page-locking them in place (cudaHostRegister, copy, cudaHostUnregister), through 8 MiB
// page-locked stages filled by 4-16 OpenMP threads (as pinned_stages.cpp), and the driver's own
// pageable copy; with the page-locked floor and a bare host memcpy. Runs 195-196 (2 x H200,
// bench/results/2026-11-29-2xH200-runs193-198.md): registering cost 4-10 ms and unregistering 2-3,
// more than staging's whole copy, and the host's memory bounds the stages at ~35-45 GB/s for all
// GPUs together, which is why knn streams its database instead (streamed_database.hpp).
//
//   nvcc -O2 -std=c++17 -Xcompiler -fopenmp register_vs_stage.cu -o /tmp/rvs && /tmp/rvs
#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;
static double now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(err_)); std::exit(1);} } while (0)

constexpr size_t kBytes = size_t{107} << 20;

struct Gpu {
  int id;
  char* pageable;  // THP or not
  void* pinned;
  void* stage[4];
  void* dev;
  cudaStream_t s;
  double reg = 0, copy = 0, unreg = 0;
};

static char* make(bool huge) {
  void* p = nullptr;
  if (posix_memalign(&p, 2 << 20, kBytes) != 0) std::exit(1);
  madvise(p, kBytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  std::memset(p, 1, kBytes);
  return static_cast<char*>(p);
}

static void registered(Gpu& g) {
  double t0 = now();
  CK(cudaHostRegister(g.pageable, kBytes, cudaHostRegisterPortable));
  double t1 = now();
  CK(cudaMemcpyAsync(g.dev, g.pageable, kBytes, cudaMemcpyHostToDevice, g.s));
  CK(cudaStreamSynchronize(g.s));
  double t2 = now();
  CK(cudaHostUnregister(g.pageable));
  double t3 = now();
  g.reg = t1 - t0; g.copy = t2 - t1; g.unreg = t3 - t2;
}

static void staged(Gpu& g, int threads, bool rows2d = false) {
  constexpr size_t kStage = 8 << 20, kPiece = 1 << 20;
  cudaEvent_t ev[4];
  for (auto& e : ev) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  bool rec[4] = {};
  size_t steps = (kBytes + kStage - 1) / kStage;
  for (size_t s = 0; s < steps; ++s) {
    int i = s % 4;
    if (rec[i]) CK(cudaEventSynchronize(ev[i]));
    size_t b0 = s * kStage, n = std::min(kStage, kBytes - b0);
    char* st = static_cast<char*>(g.stage[i]);
    long pieces = (n + kPiece - 1) / kPiece;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long p = 0; p < pieces; ++p) {
      size_t o = p * kPiece;
      std::memcpy(st + o, g.pageable + b0 + o, std::min(kPiece, n - o));
    }
    if (rows2d) {
      CK(cudaMemcpy2DAsync(static_cast<char*>(g.dev) + b0, 512, st, 512, 512, n / 512, cudaMemcpyHostToDevice, g.s));
    } else {
      CK(cudaMemcpyAsync(static_cast<char*>(g.dev) + b0, st, n, cudaMemcpyHostToDevice, g.s));
    }
    CK(cudaEventRecord(ev[i], g.s));
    rec[i] = true;
  }
  CK(cudaStreamSynchronize(g.s));
  for (auto& e : ev) cudaEventDestroy(e);
}

static void host_memcpy(Gpu& g, int threads) {
  long pieces = kBytes >> 20;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long p = 0; p < pieces; ++p) std::memcpy(static_cast<char*>(g.pinned) + (p << 20), g.pageable + (p << 20), 1 << 20);
}

// median over 7 rounds of the slowest thread's time, running `f` on each of `gs` at once.
static double at_once(std::vector<Gpu*> gs, std::function<void(Gpu&)> f, std::vector<double>* parts = nullptr) {
  std::vector<double> slow, reg, cp, un;
  for (int r = -1; r < 7; ++r) {
    std::vector<std::thread> th;
    double t0 = now();
    for (Gpu* g : gs) th.emplace_back([&, g] { CK(cudaSetDevice(g->id)); f(*g); });
    for (auto& t : th) t.join();
    if (r < 0) continue;
    slow.push_back(now() - t0);
    reg.push_back(gs[0]->reg); cp.push_back(gs[0]->copy); un.push_back(gs[0]->unreg);
  }
  auto med = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2] * 1e3; };
  if (parts) *parts = {med(reg), med(cp), med(un)};
  return med(slow);
}

int main() {
  int n = 0;
  CK(cudaGetDeviceCount(&n));
  std::vector<Gpu> gpus(n);
  for (int i = 0; i < n; ++i) {
    Gpu& g = gpus[i];
    g.id = i;
    CK(cudaSetDevice(i));
    CK(cudaMallocHost(&g.pinned, kBytes));
    for (auto& s : g.stage) CK(cudaHostAlloc(&s, 8 << 20, cudaHostAllocPortable));
    CK(cudaMalloc(&g.dev, kBytes));
    CK(cudaStreamCreate(&g.s));
  }
  std::printf("%zu MB per GPU, %u host threads; ms, median of 7, slowest GPU\n", kBytes >> 20, std::thread::hardware_concurrency());
  for (bool huge : {true, false}) {
    for (Gpu& g : gpus) g.pageable = make(huge);
    std::vector<Gpu*> all;
    for (Gpu& g : gpus) all.push_back(&g);
    for (int which = 0; which <= n; ++which) {
      std::vector<Gpu*> gs = which < n ? std::vector<Gpu*>{&gpus[which]} : all;
      char const* who = which < n ? (which ? "gpu1 alone" : "gpu0 alone") : "all at once";
      std::vector<double> parts;
      double const floor = at_once(gs, [](Gpu& g) { CK(cudaMemcpyAsync(g.dev, g.pinned, kBytes, cudaMemcpyHostToDevice, g.s)); CK(cudaStreamSynchronize(g.s)); });
      double const reg = at_once(gs, registered, &parts);
      double const st8 = at_once(gs, [](Gpu& g) { staged(g, 8); });
      double const st16 = at_once(gs, [](Gpu& g) { staged(g, 16); });
      double const st4 = at_once(gs, [](Gpu& g) { staged(g, 4); });
      double const st12 = at_once(gs, [](Gpu& g) { staged(g, 12); });
      double const st2d = at_once(gs, [](Gpu& g) { staged(g, 8, true); });
      double const mc8 = at_once(gs, [](Gpu& g) { host_memcpy(g, 8); });
      double const mc16 = at_once(gs, [](Gpu& g) { host_memcpy(g, 16); });
      double const drv = at_once(gs, [](Gpu& g) { CK(cudaMemcpyAsync(g.dev, g.pageable, kBytes, cudaMemcpyHostToDevice, g.s)); CK(cudaStreamSynchronize(g.s)); });
      std::printf("%s pages, %s: floor %.2f | register+copy+unregister %.2f (gpu%d: reg %.2f copy %.2f unreg %.2f) | staged 8 thr %.2f, 16 thr %.2f, 4 thr %.2f, 12 thr %.2f, 8 thr 2D 512-B rows %.2f | host memcpy 8 thr %.2f, 16 thr %.2f | driver pageable %.2f\n",
                  huge ? "huge" : "4K", who, floor, reg, gs[0]->id, parts[0], parts[1], parts[2], st8, st16, st4, st12, st2d, mc8, mc16, drv);
    }
    for (Gpu& g : gpus) std::free(g.pageable);
  }
  return 0;
}
