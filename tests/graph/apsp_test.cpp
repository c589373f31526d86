// apsp against the independent references (Dijkstra, Bellman-Ford; reference/shortest_paths_ref.hpp)
// on the backend this executable is built for: random graphs (directed and undirected, sparse and
// dense, negative weights without negative cycles), the real uscounties graph, edge lists,
// reconstructed paths, negative cycles, and every invalid argument.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/reduced.hpp"
#include "cudist/graph/apsp.hpp"
#include "cudist/io/matrix_market.hpp"
#include "graph/apsp_test_util.hpp"
#include "reference/shortest_paths_ref.hpp"

namespace cudist::test {
namespace {

/// Each edge i -> j (i != j) present with probability p, with an integer weight in [lo, hi].
reference::Matrix random_graph(std::int64_t n, double p, int lo, int hi, std::uint64_t seed) {
  reference::Matrix m{n, n, std::vector<double>(static_cast<std::size_t>(n * n), kInf)};
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution edge(p);
  std::uniform_int_distribution<int> weight(lo, hi);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      if (i != j && edge(rng)) m.v[static_cast<std::size_t>(i * n + j)] = weight(rng);
  return m;
}

TEST(Apsp, RandomGraphsMatchDijkstra) {
  CUDIST_REQUIRE_BACKEND();
  test::CombinationSampler sample(5);  // reduced runs: a fifth of the combinations
  // Reduced runs stop at 203 vertices: two 128-vertex blocks with a ragged edge already launch
  // every kernel of the blocked algorithm, and the instrumented cost grows as n^3.
  std::vector<std::int64_t> const sizes =
      test::reduced_run() ? std::vector<std::int64_t>{1, 2, 31, 129, 203} : std::vector<std::int64_t>{1, 2, 31, 129, 203, 300};
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (std::int64_t n : sizes) {
      for (double p : {0.005, 0.03, 0.3}) {  // sparse graphs run Bellman-Ford, dense ones Floyd-Warshall
        for (bool directed : {true, false}) {
          if (!sample.keep()) continue;
          SCOPED_TRACE(std::string(dtype_name(dtype)) + " n=" + std::to_string(n) + " p=" + std::to_string(p) +
                       (directed ? " directed" : " undirected") + " backend=" + CUDIST_TEST_BACKEND);
          WeightMatrix const w = weights_from(random_graph(n, p, 1, 20, 1000 * n + 10 * directed), dtype);
          reference::Graph const g = reference::graph_from_weights(w.values, directed);
          Solved const s = solve(w, directed);
          // Integer weights: every path length is exact in float32 too.
          EXPECT_TRUE(distances_match(s.dist, g, [&](std::int64_t src) { return reference::dijkstra(g, src); }, 0));
          EXPECT_TRUE(paths_are_shortest(s, g, all_pairs(n), 0));
          EXPECT_TRUE(same_bytes(distances_only(w, directed), s.dist));
        }
      }
    }
  }
}

TEST(Apsp, NegativeWeightsWithoutNegativeCyclesMatchBellmanFord) {
  CUDIST_REQUIRE_BACKEND();
  // Johnson's reweighting in reverse: w'(i, j) = w(i, j) + h(i) - h(j) with w >= 0 changes every
  // cycle's length by nothing, so there is no negative cycle, yet many edges are negative.
  std::int64_t const n = 150;
  reference::Matrix m = random_graph(n, 0.1, 0, 30, 77);
  std::mt19937_64 rng(78);
  std::vector<double> h(n);
  for (double& x : h) x = std::uniform_int_distribution<int>(-40, 40)(rng);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      if (!std::isinf(m.v[i * n + j])) m.v[i * n + j] += h[i] - h[j];
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    WeightMatrix const w = weights_from(m, dtype);
    reference::Graph const g = reference::graph_from_weights(w.values, true);
    Solved const s = solve(w, true);
    EXPECT_TRUE(distances_match(s.dist, g, [&](std::int64_t src) { return *reference::bellman_ford(g, src); }, 0));
    EXPECT_TRUE(paths_are_shortest(s, g, all_pairs(n), 0));
  }
}

TEST(Apsp, ALongChainWithABarelyPositiveCycleIsSolved) {
  CUDIST_REQUIRE_BACKEND();
  // 0 -> 1 -> ... -> n-1: the shortest path to n-1 has n-1 edges, Bellman-Ford's most rounds, and
  // the extra edge n-1 -> 0 of weight -(n-1) + 1 makes the only cycle positive by exactly 1.
  std::int64_t const n = 300;
  reference::Matrix m{n, n, std::vector<double>(static_cast<std::size_t>(n * n), kInf)};
  for (std::int64_t i = 0; i + 1 < n; ++i) m.v[i * n + i + 1] = 1;
  m.v[(n - 1) * n] = -double(n - 1) + 1;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    WeightMatrix const w = weights_from(m, dtype);
    reference::Graph const g = reference::graph_from_weights(w.values, true);
    Solved const s = solve(w, true);
    EXPECT_TRUE(distances_match(s.dist, g, [&](std::int64_t src) { return *reference::bellman_ford(g, src); }, 0));
    EXPECT_TRUE(paths_are_shortest(s, g, {{0, n - 1}, {n - 1, n - 2}, {5, 4}}, 0));
  }
}

TEST(Apsp, UsCountiesMatchesDijkstra) {
  CUDIST_REQUIRE_BACKEND();
  if (test::reduced_run()) {
    // 3111^3 relaxations under instrumentation take longer than the whole sanitizer run; the
    // kernels are the ones RandomGraphsMatchDijkstra launches.
    GTEST_SKIP() << "too large for a reduced (sanitizer) run";
  }
  sparse::Triplets const edges = io::read_matrix_market_triplets(data_path("sparse/uscounties.mtx"));
  ASSERT_EQ(edges.rows, 3111);
  for (DType dtype : {DType::kFloat64, DType::kFloat32}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    Device const dev = backend_device();
    std::int64_t const n = edges.rows;
    Array next = Array::allocate(n, n, DType::kInt32, dev);
    ApspOptions o;
    o.directed = false;
    o.next = next.view();
    Solved const s{to_host(apsp(backend_resources(), edges, dtype, o)), to_host(next)};
    // The reference sees the weights as stored in dtype.
    reference::Matrix values{n, n, std::vector<double>(static_cast<std::size_t>(n * n), kInf)};
    for (std::int64_t t = 0; t < edges.size(); ++t) {
      double const v = dtype == DType::kFloat32 ? static_cast<float>(edges.value[t]) : edges.value[t];
      double& e = values.v[static_cast<std::size_t>(edges.row[t] * n + edges.col[t])];
      e = std::min(e, v);
    }
    reference::Graph const g = reference::graph_from_weights(values, false);
    double const tol = dtype == DType::kFloat64 ? 1e-12 : 2e-5;  // sums of up to a few hundred edges
    EXPECT_TRUE(distances_match(s.dist, g, [&](std::int64_t src) { return reference::dijkstra(g, src); }, tol));
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
    std::mt19937_64 rng(5);
    for (int p = 0; p < 2000; ++p) pairs.push_back({static_cast<std::int64_t>(rng() % n), static_cast<std::int64_t>(rng() % n)});
    EXPECT_TRUE(paths_are_shortest(s, g, pairs, tol));
  }
}

TEST(Apsp, EdgeListKeepsTheLightestParallelEdge) {
  CUDIST_REQUIRE_BACKEND();
  sparse::Triplets t;
  t.rows = t.cols = 5;
  auto add = [&](std::int64_t i, std::int64_t j, double w) {
    t.row.push_back(i);
    t.col.push_back(j);
    t.value.push_back(w);
  };
  add(0, 1, 7);
  add(0, 1, 2);  // parallel, lighter
  add(1, 2, 3);
  add(2, 3, 1);
  add(0, 3, 10);
  add(3, 3, 4);  // a positive self-loop changes nothing
  Array const d = to_host(apsp(backend_resources(), t, DType::kFloat64));
  EXPECT_EQ(dist_at(d, 0, 1), 2);
  EXPECT_EQ(dist_at(d, 0, 3), 6);
  EXPECT_EQ(dist_at(d, 3, 3), 0);
  EXPECT_EQ(dist_at(d, 3, 0), kInf);
  EXPECT_EQ(dist_at(d, 4, 4), 0);
}

/// Runs apsp expecting NegativeCycle; returns the vertex it names.
std::int64_t negative_cycle_vertex(reference::Matrix const& m, DType dtype, bool directed) {
  try {
    solve(weights_from(m, dtype), directed);
  } catch (NegativeCycle const& e) {
    EXPECT_NE(std::string(e.what()).find("negative cycle"), std::string::npos) << e.what();
    return e.vertex();
  }
  ADD_FAILURE() << "expected NegativeCycle";
  return -1;
}

TEST(Apsp, NegativeCyclesAreReportedWithAVertexOnOne) {
  CUDIST_REQUIRE_BACKEND();
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    // A negative triangle 5 -> 170 -> 23 -> 5 (across Floyd-Warshall blocks), and vertex 40 that
    // reaches it and is reached from it without lying on it.
    reference::Matrix m = random_graph(200, 0.02, 5, 20, 91);  // >= 5: no other negative cycle
    auto set = [&](std::int64_t i, std::int64_t j, double w) { m.v[i * 200 + j] = w; };
    set(5, 170, 1);
    set(170, 23, 1);
    set(23, 5, -3);
    set(40, 5, 1);
    set(5, 40, 1);
    std::int64_t const v = negative_cycle_vertex(m, dtype, true);
    EXPECT_TRUE(v == 5 || v == 170 || v == 23) << "vertex " << v << " is not on the negative cycle";

    reference::Matrix loop = random_graph(50, 0.1, 1, 9, 92);
    loop.v[9 * 50 + 9] = -1;  // a negative self-loop
    EXPECT_EQ(negative_cycle_vertex(loop, dtype, true), 9);

    reference::Matrix undirected = random_graph(50, 0.1, 1, 9, 93);
    undirected.v[3 * 50 + 8] = -2;  // undirected, a negative edge is a negative 2-cycle
    std::int64_t const u = negative_cycle_vertex(undirected, dtype, false);
    EXPECT_TRUE(u == 3 || u == 8) << "vertex " << u;
  }
}

TEST(Apsp, EmptyGraphIsANoOp) {
  CUDIST_REQUIRE_BACKEND();
  Array const d = apsp(backend_resources(), Array::allocate(0, 0, DType::kFloat32, backend_device()));
  EXPECT_EQ(d.rows(), 0);
}

TEST(ApspPath, FollowsHopsAndRejectsBrokenMatrices) {
  // 0 -> 1 -> 2, 3 unreachable; then a next matrix with a loop towards 2.
  std::int32_t hops[16] = {0, 1, 1, -1,  //
                           -1, 1, 2, -1,  //
                           -1, -1, 2, -1,  //
                           -1, -1, -1, 3};
  ConstMatrixView const next(hops, 4, 4, 4, DType::kInt32);
  EXPECT_EQ(apsp_path(next, 0, 2), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(apsp_path(next, 2, 2), (std::vector<std::int64_t>{2}));
  EXPECT_TRUE(apsp_path(next, 0, 3).empty());
  EXPECT_THROW(apsp_path(next, 0, 4), InvalidArgument);
  hops[1 * 4 + 2] = 0;  // 1 -> 0 -> 1 -> ... never reaches 2
  EXPECT_THROW(apsp_path(next, 0, 2), InvalidArgument);
}

}  // namespace
}  // namespace cudist::test
