// Suite "cpu": case C1 of BENCHMARKS.md, the CPU backend (OpenMP over every core it is given),
// against a floor from this machine's measured rate of the direct L2 formula's step: a subtract
// and an FMA per (i, j, k) element.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "common/dense_check.hpp"
#include "common/suite.hpp"
#include "cudist/distance/pairwise.hpp"
#include "distance/detail/cpu/isa.hpp"

namespace cudist::bench {
namespace {

// The floor counts steps (a subtract and an FMA) in lanes of the width the CPU backend's
// micro-kernel computes in on this machine (the build's own, or the AVX2 / AVX-512 variant it chose
// at run time: src/distance/detail/cpu/isa.hpp), at the rate this CPU issues them. On a CPU with
// AVX-512 a zmm issues about twice the lane-FMAs of a ymm (measured on the 2-core dev box: 130.8
// against 70.7 G/s per core), so a floor at the AVX2 rate would be half too slow. Until 2026-11-29
// the floor timed FMAs alone and counted the subtract as a second FMA: right where subtracts
// share the FMA ports (Intel), twice too slow on AMD Zen, whose subtracts run on add pipes of their
// own (C1 then ran at 0.95x its "floor" on a Zen 3 EPYC; now 2.0x).
// 8 chains of FMAs (their latency, 4 cycles on Zen 3, times 2 pipes) and 6 of subtracts beside
// them, plus 2 constants: 16 registers in AVX2, none spilled. The FMAs set the rate: each step
// needs one, and the subtracts run beside them where they have pipes of their own (Zen: 2.06 FMAs
// a cycle with the 6 subtracts, measured on the dev box's Zen 3); where they share the FMA ports
// (Intel) the loop runs at 8 steps in 7 cycles, 14% faster than the steps could: a floor 14%
// below reach there, never above it.
constexpr int kFmaChains = 8, kSubChains = 6;
constexpr int kStepIters = 1 << 22;

template <int kBytes>
struct FloatLanes {
  typedef float type __attribute__((vector_size(kBytes)));
};

/// One thread's steps on kBytes-wide vectors: independent chains of FMAs and of subtracts,
/// interleaved. Always inlined, into a caller compiled for that width: an OpenMP region is
/// outlined with its own function's target.
template <int kBytes>
__attribute__((always_inline)) inline float step_chains(int thread) {
  using Lanes = typename FloatLanes<kBytes>::type;
  Lanes v[kFmaChains], w[kSubChains];
  for (int c = 0; c < kFmaChains; ++c) v[c] = Lanes{} + float(c + thread);
  for (int c = 0; c < kSubChains; ++c) w[c] = Lanes{} + float(c + thread);
  Lanes const a = Lanes{} + 0.999f, e = Lanes{} + 1e-7f;  // v settles at 999; w drifts by 0.4
  for (int it = 0; it < kStepIters; ++it) {
#pragma GCC unroll 8
    for (int c = 0; c < kFmaChains; ++c) {
      v[c] = v[c] * a + a;
      if (c < kSubChains) w[c] = w[c] - e;
    }
  }
  float s = 0;
  for (int c = 0; c < kFmaChains; ++c) s += v[c][0];
  for (int c = 0; c < kSubChains; ++c) s += w[c][0];
  return s;
}

/// The sum of every thread's chains and the seconds they took.
struct ChainsRun {
  double total, seconds;
};

ChainsRun time_chains(float (*chains)(int)) {
  double total = 0;
  auto const t0 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : total)
  total += chains(omp_get_thread_num());
  return {total, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

float chains_16(int thread) { return step_chains<16>(thread); }
#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) float chains_32(int thread) { return step_chains<32>(thread); }
__attribute__((target("avx512f"))) float chains_64(int thread) { return step_chains<64>(thread); }
#endif

/// The width the contraction computes in here.
int lane_bytes() { return cudist::detail::cpu::vector_bytes(cudist::detail::cpu::cpu_variant()); }

/// Steps (a subtract and an FMA) per second in FP32 lanes over all OpenMP threads, at lane_bytes():
/// the FMAs of step_chains.
double cpu_step_rate() {
  int const bytes = lane_bytes();
  float (*chains)(int) = chains_16;
#if defined(__x86_64__)
  if (bytes == 32) chains = chains_32;
  if (bytes == 64) chains = chains_64;
#endif
  ChainsRun const run = time_chains(chains);
  if (run.total == -1) return 0;  // keeps the loop alive
  return double(omp_get_max_threads()) * kFmaChains * kStepIters * (bytes / sizeof(float)) / run.seconds;
}

std::vector<CaseResult> run_cpu_suite(Options const& opt) {
  if (!opt.wants("C1")) return {};
  std::int64_t const m = opt.quick ? 1000 : 4000, n = opt.quick ? 5000 : 20000, d = 128;
  HostInput const x = random_input(m, d, DType::kFloat32, 1);
  HostInput const y = random_input(n, d, DType::kFloat32, 2);
  Array out = Array::allocate(m, n, DType::kFloat32, Device::cpu());
  Resources const res(Device::cpu());
  std::vector<double> times;
  for (int r = 0; r < std::max(3, opt.repeats / 5) + 1; ++r) {
    auto const t0 = std::chrono::steady_clock::now();
    cdist(res, x.array, y.array, out.view(), Metric::kEuclidean);
    double const us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) times.push_back(us);  // the first run is the warm-up
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  CaseResult c;
  c.id = "C1";
  c.description = "cdist euclidean " + std::to_string(m) + "x" + std::to_string(n) + " d=128 fp32, CPU, " +
                  std::to_string(omp_get_max_threads()) + " threads";
  c.time_us = times[times.size() / 2];
  c.floor_us = 1e6 * double(m) * n * d / cpu_step_rate();
  int const bytes = lane_bytes();
  c.floor_basis = std::string("CPU FP32 subtract + FMA issue (") +
                  (bytes == 64 ? "AVX-512" : bytes == 32 ? "AVX2" : "16-byte") + " lanes, measured)";
  // Copy-free check: the CPU output is host memory.
  std::int64_t const rows[] = {0, m / 2, m - 1};
  c.correct = true;
  for (std::int64_t i : rows)
    for (std::int64_t j = 0; j < n; j += 97) {
      double const want = reference::distance(Metric::kEuclidean, x.values.row(i), y.values.row(j), d, {});
      double const got = out.data_as<float>()[i * n + j];
      if (std::fabs(got - want) > 1e-4 * want + 1e-5) c.correct = false;
    }
  return {c};
}

}  // namespace

Suite cpu_suite() { return {"cpu", run_cpu_suite}; }

}  // namespace cudist::bench
