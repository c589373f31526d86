// The benchmark suite's common vocabulary: a case's measured result against its floor and its
// peer, the ceilings measured in the same run, and the suite registry behind `cudist bench`.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace cudist::bench {

/// Machine ceilings measured at the start of every run (BENCHMARKS.md: ratios, not absolutes).
struct Ceilings {
  double write_bytes_per_s = 0;   ///< write-only kernel
  double copy_bytes_per_s = 0;    ///< device-to-device copy, read + write counted
  double fma_per_s = 0;           ///< fp32 FFMA instructions (x32 lanes counted per warp lane)
  double fmnmx_add_per_s = 0;     ///< fp32 add + min updates (min-plus inner step)
  double popc_per_s = 0;          ///< 32-bit popc
  double dpx_s32_per_s = 0;       ///< __viaddmin_s32 updates
  double dpx_s16x2_per_s = 0;     ///< __viaddmin_s16x2 updates (2 per instruction)
  double mma_int8_per_s = 0;      ///< int8 x int8 -> int32 multiply-adds, cuBLAS GEMM (tensor cores)
  double mma_bf16_per_s = 0;      ///< bf16 x bf16 -> fp32 multiply-adds, cuBLAS GEMM
  double mma_tf32_per_s = 0;      ///< tf32 multiply-adds (fp32 in and out), cuBLAS GEMM
  std::string device_name;

  /// Bit products (AND + popcount) a second: mma.sync's single-bit MMA issues at its byte MMA's
  /// rate with eight times the bits (H200 probe, run 143: bench/prototypes/bit_mma_probe.cu).
  double mma_bits_per_s() const { return 8 * mma_int8_per_s; }
};

struct CaseResult {
  std::string id;           ///< BENCHMARKS.md id: D1, K2, S1, ...
  std::string description;  ///< "cdist euclidean 2048x1024 d=16 fp32"
  double time_us = 0;       ///< median over the timed runs
  double floor_us = 0;      ///< max(bytes / bandwidth, instructions / issue rate)
  std::string floor_basis;  ///< what sets the floor: "write bandwidth", "FMA issue", ...
  std::string peer;         ///< peer measured in-process (e.g. "cuSPARSE"); empty if none
  double peer_us = 0;
  bool correct = false;     ///< checked against a reference in the same run
  std::string note;         ///< anything a reader must know (accuracy of the peer, sizes, ...)
};

struct Options {
  int repeats = 20;        ///< timed runs per case (median reported)
  int warmup = 3;
  bool quick = false;      ///< smaller sizes, for a smoke test
  Ceilings ceilings;       ///< measured before the suites run
  std::vector<std::string> cases;  ///< ids to run (`--case`); empty: every case

  /// Whether the case `id` runs: a suite checks before it builds a case's inputs.
  bool wants(std::string const& id) const {
    return cases.empty() || std::find(cases.begin(), cases.end(), id) != cases.end();
  }
};

struct Suite {
  std::string name;  ///< "dense", "knn", "semiring", "sparse", "cpu"
  std::function<std::vector<CaseResult>(Options const&)> run;
};

/// Every suite compiled into this build (GPU suites only when CUDA is built).
std::vector<Suite> const& all_suites();

/// Measures the ceilings of the current CUDA device (empty Ceilings without one).
Ceilings measure_ceilings();

}  // namespace cudist::bench
