// Suite "semiring": cases M1-M3 of BENCHMARKS.md (min-plus products: fp32 on FADD + FMNMX, int32
// and packed int16 on Hopper DPX) and all-pairs shortest paths (blocked Floyd-Warshall) on a
// 16384-vertex complete graph and on the uscounties graph, with our own repeated squaring
// (ceil(log2(n - 1)) min-plus squarings) measured in the same run as the peer. Every case is
// checked in the run: sampled product rows against plain loops, distances against Dijkstra and
// against the squaring. Floors: n^3 updates at the measured issue rate of the instruction.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/gpu_timer.cuh"
#include "common/suite.hpp"
#include "cudist/graph/apsp.hpp"
#include "cudist/io/matrix_market.hpp"
#include "cudist/semiring/semiring.hpp"

namespace cudist::bench {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// "16.12 T": a rate in units of 10^12.
std::string tera(double per_s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f T", per_s * 1e-12);
  return text;
}

/// rows x cols of random integers in [1, hi] (exact sums in every dtype used), on the host.
Array random_weights(std::int64_t rows, std::int64_t cols, DType dtype, int hi, std::uint64_t seed) {
  Array a = Array::allocate(rows, cols, dtype, Device::cpu());
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(1, hi);
  for (std::int64_t e = 0; e < a.size(); ++e) {
    int const v = value(rng);
    switch (dtype) {
      case DType::kInt32: a.data_as<std::int32_t>()[e] = v; break;
      case DType::kInt16: a.data_as<std::int16_t>()[e] = static_cast<std::int16_t>(v); break;
      default: a.data_as<float>()[e] = static_cast<float>(v); break;
    }
  }
  return a;
}

double at(Array const& a, std::int64_t e) {
  switch (a.dtype()) {
    case DType::kInt32: return a.data_as<std::int32_t>()[e];
    case DType::kInt16: return a.data_as<std::int16_t>()[e];
    case DType::kFloat64: return a.data_as<double>()[e];
    default: return a.data_as<float>()[e];
  }
}

/// Rows 0, m/2 and m-1 of the device product c = a (min, +) b against plain loops.
bool check_product_rows(Array const& a, Array const& b, Array const& c_device) {
  std::int64_t const m = a.rows(), d = a.cols(), n = b.cols();
  for (std::int64_t i : {std::int64_t(0), m / 2, m - 1}) {
    Array row = Array::allocate(1, n, c_device.dtype(), Device::cpu());
    std::size_t const es = size_of(c_device.dtype());
    copy(ConstMatrixView(static_cast<char const*>(c_device.data()) + i * n * es, 1, n, n, c_device.dtype(),
                         Memory::kDevice),
         row.view());
    for (std::int64_t j = 0; j < n; ++j) {
      double best = kInf;
      for (std::int64_t k = 0; k < d; ++k) best = std::min(best, at(a, i * d + k) + at(b, k * n + j));
      if (at(row, j) != best) return false;
    }
  }
  return true;
}

struct ProductCase {
  char const* id;
  std::int64_t n;  // m = d = n
  DType dtype;
  int max_value;    // entries in [1, max_value]: exact, and inside the DPX range for integers
  double rate;      // updates per second of the bounding instruction
  char const* basis;
};

CaseResult run_product_case(ProductCase const& pc, Options const& opt) {
  std::int64_t const n = pc.n;
  Array const a = random_weights(n, n, pc.dtype, pc.max_value, 1);
  Array const b = random_weights(n, n, pc.dtype, pc.max_value, 2);
  Array const ad = Array::copy_of(a, Device::cuda()), bd = Array::copy_of(b, Device::cuda());
  Array c = Array::allocate(n, n, pc.dtype, Device::cuda());
  auto run = [&](cudaStream_t s) {
    semiring_product(Resources(Device::cuda(), s), ad, bd, c.view(), Semiring::kMinPlus);
  };
  CaseResult r;
  r.id = pc.id;
  r.description = "min-plus " + std::to_string(n) + "^2 x " + std::to_string(n) + " " +
                  std::string(dtype_name(pc.dtype));
  r.time_us = median_time_us(run, opt.warmup, opt.repeats);
  double const updates = double(n) * n * n;
  r.floor_us = 1e6 * updates / pc.rate;
  r.floor_basis = pc.basis;
  r.correct = check_product_rows(a, b, c);
  r.note = "achieved " + tera(updates / (r.time_us * 1e-6)) + " updates/s; ceiling " + tera(pc.rate) +
           "/s (" + pc.basis + ")";
  return r;
}

/// Dense weight matrix (host) of a complete directed graph with weights in [1, 1000].
Array complete_graph(std::int64_t n) { return random_weights(n, n, DType::kFloat32, 1000, 3); }

/// Dense weight matrix (host, float32, +inf: no edge) of a Matrix Market graph.
Array graph_from_file(std::string const& path) {
  return sparse::to_dense(io::read_matrix_market_triplets(path), DType::kFloat32, kInf, sparse::Duplicates::kMin);
}

/// Dijkstra on a dense weight matrix (host float32, +inf: none), distances from `source`.
std::vector<double> dijkstra_dense(Array const& w, std::int64_t source) {
  std::int64_t const n = w.rows();
  std::vector<double> dist(n, kInf);
  std::vector<char> done(n, 0);
  dist[source] = 0;
  for (std::int64_t it = 0; it < n; ++it) {
    std::int64_t u = -1;
    for (std::int64_t v = 0; v < n; ++v)
      if (!done[v] && (u < 0 || dist[v] < dist[u])) u = v;
    if (u < 0 || std::isinf(dist[u])) break;
    done[u] = 1;
    float const* row = w.data_as<float>() + u * n;
    for (std::int64_t v = 0; v < n; ++v)
      if (dist[u] + row[v] < dist[v]) dist[v] = dist[u] + row[v];
  }
  return dist;
}

/// ceil(log2(n - 1)) min-plus squarings of w0 (device, zero diagonal: a path may stop early),
/// ping-ponging x and y; returns the one holding the distances.
ConstMatrixView repeated_squaring(Array const& w0, Array& x, Array& y, cudaStream_t s) {
  std::int64_t const n = w0.rows();
  ConstMatrixView from = w0;
  Array* to = &x;
  for (std::int64_t hops = 1; hops < n - 1; hops *= 2) {
    semiring_product(Resources(Device::cuda(), s), from, from, to->view(), Semiring::kMinPlus);
    from = *to;
    to = to == &x ? &y : &x;
  }
  return from;
}

constexpr std::int64_t kLargestSquaringPeer = 16384;

struct ApspCase {
  char const* id;
  std::string description;
  Array weights;  // host float32
  bool directed;
  bool sparse;    // floor and peer of a sparse graph (see run_apsp_case)
};

CaseResult run_apsp_case(ApspCase const& ac, Options const& opt) {
  std::int64_t const n = ac.weights.rows();
  Array const wd = Array::copy_of(ac.weights, Device::cuda());
  Array dist = Array::allocate(n, n, DType::kFloat32, Device::cuda());
  ApspOptions o;
  o.directed = ac.directed;
  auto run = [&](cudaStream_t s) { apsp(Resources(Device::cuda(), s), wd, dist.view(), o); };
  CaseResult r;
  r.id = ac.id;
  r.description = ac.description;
  r.time_us = median_time_us(run, opt.warmup, opt.repeats);
  // Dense graphs: Floyd-Warshall's n^3 min-plus updates. Sparse ones: whatever the algorithm,
  // every source must relax every edge once and the n x n result must be written.
  std::int64_t edges = 0;
  for (std::int64_t e = 0; e < ac.weights.size(); ++e) edges += std::isfinite(ac.weights.data_as<float>()[e]);
  double const write_us = 1e6 * double(n) * n * 4 / opt.ceilings.write_bytes_per_s;
  double const relax_us = 1e6 * double(n) * edges / opt.ceilings.fmnmx_add_per_s;
  r.floor_us = ac.sparse ? std::max(write_us, relax_us) : 1e6 * double(n) * n * n / opt.ceilings.fmnmx_add_per_s;
  r.floor_basis = ac.sparse ? (write_us > relax_us ? "result write" : "one relaxation per edge and source")
                            : "FMNMX issue";

  // The weights as apsp sees them (symmetric for an undirected graph, zero diagonal), for the
  // checks and for the peer: repeated squaring, a few runs (it does log2(n) times the work), up to
  // kLargestSquaringPeer vertices (beyond, scipy's Dijkstra in bench/peers/cpu_peers.py is the peer).
  Array w0 = Array::copy_of(ac.weights, Device::cpu());
  float* w = w0.data_as<float>();
  for (std::int64_t i = 0; i < n; ++i) {
    w[i * n + i] = 0;
    for (std::int64_t j = i + 1; j < n && !ac.directed; ++j) w[i * n + j] = w[j * n + i] = std::min(w[i * n + j], w[j * n + i]);
  }
  Array const got = Array::copy_of(dist, Device::cpu());
  bool ok = true;
  for (std::int64_t s : {std::int64_t(0), n / 2, n - 1}) {  // three sources against Dijkstra
    std::vector<double> const want = dijkstra_dense(w0, s);
    for (std::int64_t t = 0; t < n && ok; ++t) {
      double const g = got.data_as<float>()[s * n + t];
      ok = std::isinf(want[t]) ? g == want[t] : std::fabs(g - want[t]) <= 1e-5 * std::max(1.0, want[t]);
    }
  }
  if (n <= kLargestSquaringPeer) {  // and the whole matrix against the squaring
    Array const w0d = Array::copy_of(w0, Device::cuda());
    Array x = Array::allocate(n, n, DType::kFloat32, Device::cuda());
    Array y = Array::allocate(n, n, DType::kFloat32, Device::cuda());
    ConstMatrixView squared_d;
    r.peer = "squaring";
    r.peer_us = median_time_us([&](cudaStream_t s) { squared_d = repeated_squaring(w0d, x, y, s); }, 1,
                               std::min(opt.repeats, 3));
    Array const squared = Array::copy_of(squared_d, Device::cpu());
    for (std::int64_t e = 0; e < got.size() && ok; ++e) {
      float const g = got.data_as<float>()[e], q = squared.data_as<float>()[e];
      ok = std::isinf(q) ? g == q : std::fabs(g - q) <= 1e-5f * std::max(1.f, q);
    }
  }
  r.correct = ok;
  r.note = std::string(ac.sparse ? "sparse graph (" + std::to_string(edges) + " directed edges)" : "dense graph") +
           "; achieved " + tera(double(n) * n * n / (r.time_us * 1e-6)) + " Floyd-Warshall-equivalent updates/s";
  return r;
}

std::vector<CaseResult> run_semiring_suite(Options const& opt) {
  Ceilings const& c = opt.ceilings;
  std::int64_t const s = opt.quick ? 4 : 1;
  std::vector<ProductCase> const products = {
      {"M1", 4096 / s, DType::kFloat32, 1000000, c.fmnmx_add_per_s, "FADD+FMNMX issue"},
      {"M2", 8192 / s, DType::kFloat32, 1000000, c.fmnmx_add_per_s, "FADD+FMNMX issue"},
      {"M3", 8192 / s, DType::kInt32, 1000000, c.dpx_s32_per_s, "DPX s32 issue"},
      {"M3", 8192 / s, DType::kInt16, 2000, c.dpx_s16x2_per_s, "DPX s16x2 issue"},
  };
  std::vector<CaseResult> results;
  for (auto const& pc : products) {
    if (opt.wants(pc.id)) results.push_back(run_product_case(pc, opt));
  }

  std::int64_t const dense_n = 16384 / s;
  if (opt.wants("A1")) {
    results.push_back(run_apsp_case({"A1", "apsp complete graph " + std::to_string(dense_n) + " fp32",
                                     complete_graph(dense_n), true, false},
                                    opt));
  }
  if (opt.wants("A2")) {
    results.push_back(run_apsp_case({"A2", "apsp uscounties 3111 fp32",
                                     graph_from_file(std::string(CUDIST_DATA_DIR) + "/sparse/uscounties.mtx"), false, true},
                                    opt));
  }
  if (opt.wants("A3")) {
    results.push_back(run_apsp_case({"A3", "apsp road grid 15006 fp32 (bench/make_road_graph.py)",
                                     graph_from_file(std::string(CUDIST_DATA_DIR) + "/sparse/road_grid_15k.mtx"), false, true},
                                    opt));
  }
  return results;
}

}  // namespace

Suite semiring_suite() { return {"semiring", run_semiring_suite}; }

}  // namespace cudist::bench
