// The GPU's Bellman-Ford from every source searches several sources per block, as many as its
// shared memory holds (graph/detail/relax_plan.hpp), or one in global memory when not even one
// fits. For each plan the device's shared memory gives (CUDIST_FORCE_PORTABLE=1: Turing's 64 KB,
// so that the smaller plans and global memory come within reach), a road-like graph of a size it
// applies to, never a multiple of its sources per block (a partial last group), against Dijkstra
// or Bellman-Ford from sampled sources, and bit for bit against the CPU backend's Jacobi rounds:
// the same distances and the same next hops, ties included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/backend.hpp"
#include "common/reduced.hpp"
#include "cudist/graph/apsp.hpp"
#include "graph/apsp_test_util.hpp"
#include "graph/detail/relax_plan.hpp"
#include "reference/shortest_paths_ref.hpp"
#if CUDIST_WITH_CUDA
#include "core/cuda/device_features.hpp"
#endif

namespace cudist::test {
namespace {

/// For each plan of graphs of 2 .. largest vertices (sources per block; in shared memory or not),
/// the largest size it applies to that is not a multiple of its sources per block.
std::vector<std::int64_t> one_size_per_plan(std::size_t value_bytes, bool hops, std::size_t budget,
                                            std::int64_t largest) {
  std::map<std::pair<int, bool>, std::int64_t> sizes;
  auto plan_of = [&](std::int64_t n) {
    detail::RelaxPlan const p = detail::relax_plan(n, value_bytes, hops, budget);
    return std::make_pair(p.sources_per_block, p.in_shared);
  };
  for (std::int64_t n = largest; n >= 2; --n) {
    auto const plan = plan_of(n);
    bool const partial_group = plan.first == 1 || n % plan.first != 0;
    if (partial_group && sizes.count(plan) == 0) sizes[plan] = n;
  }
  std::vector<std::int64_t> out;
  for (auto const& [plan, n] : sizes) out.push_back(n);
  return out;
}

/// A road-like graph: vertex v at (v / width, v % width) of a square grid, joined to its right and
/// lower neighbours with integer weights 1 .. 9 (93% of the roads; directed: each way on its own,
/// 80% each); a few long roads; every 97th vertex cut off; some non-edges NaN. Directed graphs get
/// Johnson's potentials in reverse (w + h(u) - h(v)): negative edges, no negative cycle.
reference::Matrix road_like_graph(std::int64_t n, bool directed, std::uint64_t seed) {
  reference::Matrix m{n, n, std::vector<double>(static_cast<std::size_t>(n * n), kInf)};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> weight(1, 9), potential(-5, 5);
  std::bernoulli_distribution keep(directed ? 0.8 : 0.93), nan(0.01);
  std::vector<int> h(static_cast<std::size_t>(n));
  for (int& x : h) x = directed ? potential(rng) : 0;
  auto road = [&](std::int64_t u, std::int64_t v) {
    if (u % 97 == 0 || v % 97 == 0) return;
    auto one_way = [&](std::int64_t a, std::int64_t b) {
      m.v[static_cast<std::size_t>(a * n + b)] = weight(rng) + h[a] - h[b];
    };
    if (!directed) {
      if (keep(rng)) one_way(u, v);  // apsp makes it two-way
      return;
    }
    if (keep(rng)) one_way(u, v);
    if (keep(rng)) one_way(v, u);
  };
  std::int64_t const width = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(std::sqrt(double(n)))));
  for (std::int64_t v = 0; v < n; ++v) {
    if ((v + 1) % width != 0 && v + 1 < n) road(v, v + 1);
    if (v + width < n) road(v, v + width);
  }
  std::uniform_int_distribution<std::int64_t> vertex(0, n - 1);
  for (std::int64_t r = 0; r < n / 100; ++r) road(vertex(rng), vertex(rng));
  for (double& w : m.v)
    if (std::isinf(w) && nan(rng)) w = std::numeric_limits<double>::quiet_NaN();
  return m;
}

/// The first and last nine sources (the first group and the partial last one), and eight more.
std::vector<std::int64_t> sampled_sources(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> s;
  for (std::int64_t v = 0; v < n; ++v)
    if (v < 9 || v >= n - 9) s.push_back(v);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n)));
  return s;
}

std::size_t device_shared_budget() {
#if CUDIST_WITH_CUDA
  return detail::cuda::max_block_shared_memory();
#else
  return 0;
#endif
}

TEST(ApspRelaxPlans, EachPlanMatchesTheReferencesAndTheCpuBackendBitForBit) {
  CUDIST_REQUIRE_BACKEND();
  if (!backend_device().is_cuda()) GTEST_SKIP() << "the plans are the CUDA backend's";
  // Reduced (sanitizer) runs: graphs of up to 1100 vertices, still more than 32 mask words per
  // warp pass at 1024 threads.
  std::int64_t const largest = reduced_run() ? 1100 : 4200;
  std::size_t const budget = device_shared_budget();
  int covered = 0;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (bool hops : {true, false}) {
      bool const directed = hops == (dtype == DType::kFloat32);  // each dtype both ways
      for (std::int64_t n : one_size_per_plan(size_of(dtype), hops, budget, largest)) {
        detail::RelaxPlan const plan = detail::relax_plan(n, size_of(dtype), hops, budget);
        SCOPED_TRACE(std::string(dtype_name(dtype)) + " n=" + std::to_string(n) + (hops ? " next hops" : "") +
                     (directed ? " directed" : " undirected") + ": " + std::to_string(plan.sources_per_block) +
                     " sources per block" + (plan.in_shared ? " in shared memory" : " in global memory"));
        ++covered;
        WeightMatrix const w = weights_from(road_like_graph(n, directed, 7 * n + hops), dtype);
        reference::Graph const g = reference::graph_from_weights(w.values, directed);
        auto const reference = [&](std::int64_t s) {
          return directed ? *reference::bellman_ford(g, s) : reference::dijkstra(g, s);
        };
        std::vector<std::int64_t> const sources = sampled_sources(n, n);
        // Integer weights: every path length is exact in float32 too.
        if (hops) {
          Solved const got = solve(w, directed);
          EXPECT_TRUE(distances_match(got.dist, g, reference, 0, sources));
          std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
          for (std::int64_t s : sources)
            for (std::int64_t t = 0; t < n; t += 1 + n / 64) pairs.push_back({s, t});
          EXPECT_TRUE(paths_are_shortest(got, g, pairs, 0));
          Solved const cpu = solve(w, directed, Device::cpu());
          EXPECT_TRUE(same_bytes(got.dist, cpu.dist));
          EXPECT_TRUE(same_bytes(got.next, cpu.next));
        } else {
          Array const got = distances_only(w, directed);
          EXPECT_TRUE(distances_match(got, g, reference, 0, sources));
          EXPECT_TRUE(same_bytes(got, distances_only(w, directed, Device::cpu())));
        }
      }
    }
  }
  EXPECT_GE(covered, reduced_run() ? 4 : 8);  // every dtype and hops; two plans each in full runs
}

}  // namespace
}  // namespace cudist::test
