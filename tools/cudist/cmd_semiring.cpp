// cudist minplus / apsp: semiring products of .npy matrices, and all-pairs shortest paths of a
// Matrix Market graph with optional next hops and one printed path.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "cudist/core/error.hpp"
#include "cudist/graph/apsp.hpp"
#include "cudist/io/matrix_market.hpp"
#include "cudist/io/npy.hpp"
#include "cudist/semiring/semiring.hpp"

namespace cudist::cli {
namespace {

struct ProductArgs {
  std::string a, b, output, witness, semiring, device;
  bool quiet = false;
};

void run_product(ProductArgs const& args) {
  refuse_clashing_files({{"A", args.a}, {"B", args.b}}, {{"--output", args.output}, {"--witness", args.witness}});
  Array const a = io::read_npy(args.a);
  Array const b = io::read_npy(args.b);
  Semiring const semiring = semiring_from_name(args.semiring);
  Resources const res(DeviceSet::parse(args.device));
  Array c = Array::allocate(a.rows(), b.cols(), a.dtype(), Device::cpu());
  Array witness;
  SemiringOptions options;
  if (!args.witness.empty()) {
    witness = Array::allocate(a.rows(), b.cols(), DType::kInt32, Device::cpu());
    options.witness = witness.view();
  }
  auto const start = std::chrono::steady_clock::now();
  semiring_product(res, a, b, c.view(), semiring, options);
  double const secs = seconds_since(start);
  io::write_npy(args.output, c);
  if (!args.witness.empty()) io::write_npy(args.witness, witness);
  if (!args.quiet) {
    std::printf("%s product: (%lld x %lld) (x) (%lld x %lld), %s, on %s in %.3f s -> %s%s%s\n",
                std::string(semiring_name(semiring)).c_str(), static_cast<long long>(a.rows()),
                static_cast<long long>(a.cols()), static_cast<long long>(b.rows()),
                static_cast<long long>(b.cols()), std::string(dtype_name(a.dtype())).c_str(),
                res.devices.str().c_str(), secs, args.output.c_str(),
                args.witness.empty() ? "" : ", witness -> ", args.witness.c_str());
  }
}

struct ApspArgs {
  std::string graph, output, next, dtype, device;
  std::vector<std::int64_t> path;  // FROM TO
  bool directed = false;
  bool quiet = false;
};

double entry(Array const& d, std::int64_t i, std::int64_t j) {
  std::int64_t const e = i * d.cols() + j;
  return d.dtype() == DType::kFloat64 ? d.data_as<double>()[e] : d.data_as<float>()[e];
}

void print_path(Array const& dist, Array const& next, std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> const path = apsp_path(next, from, to);
  if (path.empty()) {
    std::printf("no path from %lld to %lld\n", static_cast<long long>(from), static_cast<long long>(to));
    return;
  }
  std::printf("path from %lld to %lld (%zu edges, length %.17g):", static_cast<long long>(from),
              static_cast<long long>(to), path.size() - 1, entry(dist, from, to));
  for (std::int64_t v : path) std::printf(" %lld", static_cast<long long>(v));
  std::printf("\n");
}

void run_apsp(ApspArgs const& args) {
  refuse_clashing_files({{"G", args.graph}}, {{"--output", args.output}, {"--next", args.next}});
  sparse::Triplets const edges = io::read_matrix_market_triplets(args.graph);
  DType const dtype = dtype_from_name(args.dtype);
  Resources const res(DeviceSet::parse(args.device));
  bool const want_next = !args.next.empty() || !args.path.empty();
  Array next;
  ApspOptions options;
  options.directed = args.directed;
  if (want_next) {
    next = Array::allocate(edges.rows, edges.rows, DType::kInt32, Device::cpu());
    options.next = next.view();
  }
  auto const start = std::chrono::steady_clock::now();
  Array const dist = Array::copy_of(apsp(res, edges, dtype, options), Device::cpu());
  double const secs = seconds_since(start);
  io::write_npy(args.output, dist);
  if (!args.next.empty()) io::write_npy(args.next, next);
  if (!args.quiet) {
    std::printf("apsp: %lld vertices, %lld edges (%s, %s) on %s in %.3f s -> %s%s%s\n",
                static_cast<long long>(edges.rows), static_cast<long long>(edges.size()),
                args.directed ? "directed" : "undirected", args.dtype.c_str(), res.devices.str().c_str(),
                secs, args.output.c_str(), args.next.empty() ? "" : ", next hops -> ", args.next.c_str());
  }
  if (!args.path.empty()) print_path(dist, next, args.path[0], args.path[1]);
}

}  // namespace

void add_semiring_commands(CLI::App& app) {
  auto pargs = std::make_shared<ProductArgs>();
  CLI::App* mp = app.add_subcommand(
      "minplus", "semiring matrix product C = A (x) B (min-plus: C[i][j] = min_k A[i][k] + B[k][j])");
  mp->add_option("A", pargs->a, "left factor (.npy, m x d; float32, float64, int32 or int16)")
      ->required()
      ->check(CLI::ExistingFile);
  mp->add_option("B", pargs->b, "right factor (.npy, d x n, same dtype)")->required()->check(CLI::ExistingFile);
  mp->add_option("-o,--output", pargs->output, "output .npy (m x n)")->required();
  mp->add_option("--semiring", pargs->semiring, "min-plus, max-plus, min-max, max-min, or-and or plus-times")
      ->default_val("min-plus");
  mp->add_option("--witness", pargs->witness, "also write the k achieving each entry (.npy, int32; -1: none)");
  add_device_option(*mp, pargs->device);
  mp->add_flag("-q,--quiet", pargs->quiet, "print nothing on success");
  mp->callback([pargs] { run_product(*pargs); });

  auto aargs = std::make_shared<ApspArgs>();
  CLI::App* ap = app.add_subcommand("apsp", "all-pairs shortest paths of a graph (Bellman-Ford from every source when sparse, else blocked Floyd-Warshall)");
  ap->add_option("G", aargs->graph, "graph as a Matrix Market file (.mtx; entry (i, j) = edge i -> j)")
      ->required()
      ->check(CLI::ExistingFile);
  ap->add_option("-o,--output", aargs->output, "distances (.npy, n x n; inf: unreachable)")->required();
  ap->add_option("--next", aargs->next, "next hops (.npy, n x n int32; next[i][j] follows i towards j)");
  ap->add_flag("--directed", aargs->directed, "edges go one way only (default: both ways)");
  ap->add_option("--path", aargs->path, "print a shortest path and its length (0-based vertices, as in D.npy)")
      ->expected(2);
  ap->add_option("--dtype", aargs->dtype, "float32 or float64")->default_val("float64");
  add_device_option(*ap, aargs->device);
  ap->add_flag("-q,--quiet", aargs->quiet, "print nothing but the path on success");
  ap->callback([aargs] { run_apsp(*aargs); });
}

}  // namespace cudist::cli
