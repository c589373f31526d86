// Suite "dense": cases D1-D9 (and D3u, D3i) of BENCHMARKS.md, cdist / pdist on the GPU, each timed (median,
// cold L2), checked against the float64 reference on sampled rows, and put against its floor.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/dense_check.hpp"
#include "common/gpu_timer.cuh"
#include "common/suite.hpp"
#include "cudist/distance/pairwise.hpp"

namespace cudist::bench {
namespace {

// Instructions per (i, j, k) and their pipe; kInt8Mma: one multiply-add at cuBLAS's int8 GEMM rate;
// kBitMma: one AND + popcount of a bit (d in bytes) at Ceilings::mma_bits_per_s.
enum class Bound { kFma2, kFma1, kAddMin, kInt8Mma, kTf32Mma, kBitMma };

struct DenseCase {
  char const* id;
  std::int64_t m, n, d;  // d in elements (bytes for hamming_bits)
  Metric metric;
  bool self;       // y is x
  bool condensed;  // pdist
  Bound bound;
  char const* note;
  DType dtype = DType::kFloat32;  // uint8 for hamming_bits (packed bits) and D3u, int8 for D3i
  Precision precision = Precision::kExact;
};

double issue_floor_s(DenseCase const& c, Ceilings const& ceil) {
  double const pairs = c.condensed ? c.m * (c.m - 1) / 2.0 : double(c.m) * c.n;
  switch (c.bound) {
    case Bound::kFma2: return 2 * pairs * c.d / ceil.fma_per_s;
    case Bound::kFma1: return pairs * c.d / ceil.fma_per_s;
    case Bound::kAddMin: return pairs * c.d / ceil.fmnmx_add_per_s;
    case Bound::kInt8Mma: return pairs * c.d / ceil.mma_int8_per_s;
    case Bound::kTf32Mma: return pairs * c.d / ceil.mma_tf32_per_s;
    case Bound::kBitMma: return pairs * (8 * c.d) / ceil.mma_bits_per_s();
  }
  return 0;
}

CaseResult run_case(DenseCase const& c, Options const& opt) {
  bool const bits = c.metric == Metric::kHammingBits;
  DType const dtype = c.dtype;
  HostInput const x = random_input(c.m, c.d, dtype, 1);
  HostInput const y = c.self ? x : random_input(c.n, c.d, dtype, 2);
  Array const xd = Array::copy_of(x.array, Device::cuda());
  Array const yd = c.self ? xd : Array::copy_of(y.array, Device::cuda());
  std::int64_t const out_cols = c.condensed ? c.m * (c.m - 1) / 2 : c.n;
  Array out = Array::allocate(c.condensed ? 1 : c.m, out_cols, DType::kFloat32, Device::cuda());

  MetricParams params;
  params.precision = c.precision;
  auto run = [&](cudaStream_t s) {
    Resources const res(Device::cuda(), s);
    if (c.condensed) {
      pdist(res, xd, out.view(), c.metric, params);
    } else {
      cdist(res, xd, yd, out.view(), c.metric, params);
    }
  };
  CaseResult r;
  r.id = c.id;
  r.description = std::string(c.condensed ? "pdist " : "cdist ") + std::string(metric_name(c.metric)) +
                  " " + std::to_string(c.m) + "x" + std::to_string(c.condensed ? c.m : c.n) +
                  " d=" + std::to_string(bits ? c.d * 8 : c.d) +
                  (bits ? " bits" : dtype == DType::kUInt8 ? " uint8" : dtype == DType::kInt8 ? " int8" : " fp32") +
                  (c.precision == Precision::kTf32 ? " tf32" : "");
  r.time_us = median_time_us(run, opt.warmup, opt.repeats);
  double const bytes = double(out.bytes()) + double(xd.bytes()) + (c.self ? 0.0 : double(yd.bytes()));
  double const bw_s = bytes / opt.ceilings.write_bytes_per_s;
  double const issue_s = issue_floor_s(c, opt.ceilings);
  r.floor_us = 1e6 * std::max(bw_s, issue_s);
  r.floor_basis = bw_s > issue_s                  ? "write bandwidth"
                  : c.bound == Bound::kAddMin      ? "FMNMX issue"
                  : c.bound == Bound::kBitMma      ? "bit MMA rate"
                  : c.bound == Bound::kInt8Mma     ? "int8 GEMM rate"
                  : c.bound == Bound::kTf32Mma     ? "tf32 GEMM rate"
                                                   : "FP32 issue";
  // precision tf32: a sanity check (tests/distance/tf32_test.cpp tests the bound entry by entry).
  double const tolerance = c.precision == Precision::kTf32 ? 1e-2 : 1e-4;
  r.correct = c.condensed ? check_condensed_rows(out, x, c.metric, tolerance) : check_rows(out, x, y, c.metric, tolerance);
  r.note = c.note;
  return r;
}

std::vector<CaseResult> run_dense_suite(Options const& opt) {
  std::int64_t const s = opt.quick ? 4 : 1;  // quick mode: every dimension a quarter
  std::vector<DenseCase> const cases = {
      {"D1", 2048, 1024, 16, Metric::kEuclidean, false, false, Bound::kFma2, "8 MB output, L2-resident"},
      {"D2", 2048, 1024, 1, Metric::kEuclidean, false, false, Bound::kFma2, ""},
      {"D3", 4000 / s, 20000 / s, 128, Metric::kSqEuclidean, false, false, Bound::kFma2, "exact direct formula"},
      {"D3u", 4000 / s, 20000 / s, 128, Metric::kSqEuclidean, false, false, Bound::kInt8Mma,
       "uint8 rows, exact (int8 tensor cores)", DType::kUInt8},
      {"D3i", 4000 / s, 20000 / s, 128, Metric::kSqEuclidean, false, false, Bound::kInt8Mma,
       "int8 rows (quantised embeddings), exact (int8 tensor cores)", DType::kInt8},
      {"D4", 30336 / s, 30336 / s, 2, Metric::kEuclidean, true, false, Bound::kFma2, "self-distances, full matrix"},
      {"D4c", 30336 / s, 30336 / s, 2, Metric::kEuclidean, true, true, Bound::kFma2, "condensed upper triangle"},
      {"D5", 10000 / s, 10000 / s, 3, Metric::kEuclidean, false, false, Bound::kFma2, ""},
      {"D6", 10000 / s, 10000 / s, 128, Metric::kCityblock, false, false, Bound::kFma2, ""},
      {"D7", 10000 / s, 10000 / s, 128, Metric::kChebyshev, false, false, Bound::kAddMin, ""},
      {"D8", 10000 / s, 10000 / s, 512, Metric::kCosine, false, false, Bound::kFma1, "exact fp32"},
      {"D3t", 4000 / s, 20000 / s, 128, Metric::kSqEuclidean, false, false, Bound::kTf32Mma,
       "precision tf32 (opt-in; docs/accuracy.md's bound)", DType::kFloat32, Precision::kTf32},
      {"D8t", 10000 / s, 10000 / s, 512, Metric::kCosine, false, false, Bound::kTf32Mma,
       "precision tf32 (opt-in; docs/accuracy.md's bound)", DType::kFloat32, Precision::kTf32},
      {"D9", 100000 / (s * s), 100000 / (s * s), 32, Metric::kHammingBits, false, false, Bound::kBitMma,
       "256-bit ORB-like rows (single-bit tensor cores)", DType::kUInt8},
  };
  std::vector<CaseResult> results;
  for (auto const& c : cases) {
    if (opt.wants(c.id)) results.push_back(run_case(c, opt));
  }
  return results;
}

}  // namespace

Suite dense_suite() { return {"dense", run_dense_suite}; }

}  // namespace cudist::bench
