// cudist knn / match / radius: nearest neighbours, descriptor matching and radius search between
// .npy / .fvecs / .bvecs files, without the distance matrix; merge-knn: the answers of knn over
// shards of one database (other machines, other runs) into one knn's answer.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "cudist/core/error.hpp"
#include "cudist/io/npy.hpp"
#include "cudist/neighbors/knn.hpp"

namespace cudist::cli {
namespace {

struct NeighborArgs {
  std::string x, y, device, indices, distances, output;
  MetricOptions metric;
  std::int64_t k = 1;
  bool include_self = false;
  bool pad = false;
  std::int64_t first_row = 0;  // Y's rows are rows first_row.. of a sharded database
  bool rank_values = false;
  double ratio = 0.75;
  bool mutual = false;
  double max_distance = std::numeric_limits<double>::infinity();
  double r = 0;
  bool quiet = false;
};

std::string shape_of(Array const& a) {
  return std::to_string(a.rows()) + " x " + std::to_string(a.cols()) + " " + std::string(dtype_name(a.dtype()));
}

void run_knn(NeighborArgs const& a) {
  if (a.indices.empty() && a.distances.empty()) throw InvalidArgument("knn: give --indices and/or --distances");
  refuse_clashing_files({{"X", a.x}, {"Y", a.y}}, {{"--indices", a.indices}, {"--distances", a.distances}});
  if (a.first_row != 0 && a.y.empty()) throw InvalidArgument("knn: --first-row " + std::to_string(a.first_row) + " needs Y (a shard of the database)");
  if (a.first_row < 0) throw InvalidArgument("knn: --first-row " + std::to_string(a.first_row) + " is negative");
  Array const x = io::read_matrix(a.x);
  Resources const res(DeviceSet::parse(a.device));
  KnnOptions opt;
  opt.params = a.metric.params();
  opt.pad = a.pad;
  opt.rank_values = a.rank_values;
  auto const start = std::chrono::steady_clock::now();
  KnnResult r;
  if (a.y.empty()) {
    r = self_knn(res, x, a.k, a.metric.parsed(), a.include_self ? SelfJoin::kIncludeSelf : SelfJoin::kExcludeSelf, opt);
  } else {
    TerminalProgress const bar;  // a database larger than the GPU is searched in chunks
    r = knn(res, x, io::read_matrix(a.y), a.k, a.metric.parsed(), opt);
  }
  Array indices = Array::copy_of(r.indices, Device::cpu(), res.stream);
  Array const distances = Array::copy_of(r.distances, Device::cpu(), res.stream);
  double const secs = seconds_since(start);
  if (a.first_row != 0) {  // the shard's rows to the database's (-1, a padded slot, stays)
    std::int64_t* const j = indices.data_as<std::int64_t>();
    for (std::int64_t e = 0; e < indices.size(); ++e) j[e] += j[e] >= 0 ? a.first_row : 0;
  }
  if (!a.indices.empty()) io::write_npy(a.indices, indices);
  if (!a.distances.empty()) io::write_npy(a.distances, distances);
  if (!a.quiet) {
    std::printf("knn %s k=%lld: %s against %s on %s in %.3f s\n", a.metric.metric.c_str(),
                static_cast<long long>(a.k), shape_of(x).c_str(),
                a.y.empty() ? (a.include_self ? "itself" : "itself, each point excluded") : a.y.c_str(),
                res.devices.str().c_str(), secs);
  }
}

void run_match(NeighborArgs const& a) {
  refuse_clashing_files({{"X", a.x}, {"Y", a.y}}, {{"--output", a.output}, {"--distances", a.distances}});
  Array const x = io::read_matrix(a.x), y = io::read_matrix(a.y);
  Resources const res(DeviceSet::parse(a.device));
  MatchOptions opt;
  opt.ratio = a.ratio;
  opt.mutual = a.mutual;
  opt.max_distance = a.max_distance;
  opt.params = a.metric.params();
  auto const start = std::chrono::steady_clock::now();
  MatchResult const r = match(res, x, y, a.metric.parsed(), opt);
  double const secs = seconds_since(start);
  Array const pairs = Array::copy_of(r.pairs, Device::cpu());
  Array out = Array::allocate(pairs.rows(), 2, DType::kInt32, Device::cpu());  // (query, train)
  for (std::int64_t e = 0; e < pairs.size(); ++e) {
    out.data_as<std::int32_t>()[e] = static_cast<std::int32_t>(pairs.data_as<std::int64_t>()[e]);
  }
  io::write_npy(a.output, out);
  if (!a.distances.empty()) io::write_npy(a.distances, r.distances, io::NpyShape::kVector);
  if (!a.quiet) {
    std::printf("match %s ratio=%g%s: %lld of %lld queries matched on %s in %.3f s -> %s\n",
                a.metric.metric.c_str(), a.ratio, a.mutual ? " mutual" : "", static_cast<long long>(pairs.rows()),
                static_cast<long long>(x.rows()), res.devices.str().c_str(), secs, a.output.c_str());
  }
}

void run_radius(NeighborArgs const& a) {
  refuse_clashing_files({{"X", a.x}, {"Y", a.y}}, {{"--output (_offsets.npy)", a.output + "_offsets.npy"},
                                                   {"--output (_indices.npy)", a.output + "_indices.npy"},
                                                   {"--output (_distances.npy)", a.output + "_distances.npy"}});
  Array const x = io::read_matrix(a.x), y = io::read_matrix(a.y);
  Resources const res(DeviceSet::parse(a.device));
  auto const start = std::chrono::steady_clock::now();
  RadiusResult const r = radius(res, x, y, a.r, a.metric.parsed(), a.metric.params());
  double const secs = seconds_since(start);
  io::write_npy(a.output + "_offsets.npy", r.offsets, io::NpyShape::kVector);
  io::write_npy(a.output + "_indices.npy", r.indices, io::NpyShape::kVector);
  io::write_npy(a.output + "_distances.npy", r.distances, io::NpyShape::kVector);
  if (!a.quiet) {
    std::printf("radius %s r=%g: %lld pairs among %s x %lld rows on %s in %.3f s -> %s_{offsets,indices,distances}.npy\n",
                a.metric.metric.c_str(), a.r, static_cast<long long>(r.indices.cols()), shape_of(x).c_str(),
                static_cast<long long>(y.rows()), res.devices.str().c_str(), secs, a.output.c_str());
  }
}

struct MergeArgs {
  std::vector<std::string> distances_in, indices_in;
  std::string indices, distances;
  MetricOptions metric;
  std::int64_t k = 1;
  bool pad = false;
  bool quiet = false;
};

void run_merge_knn(MergeArgs const& a) {
  if (a.indices.empty() && a.distances.empty()) throw InvalidArgument("merge-knn: give --indices and/or --distances");
  if (a.distances_in.size() != a.indices_in.size()) {
    throw InvalidArgument("merge-knn: " + std::to_string(a.distances_in.size()) + " files of --parts-distances but " +
                          std::to_string(a.indices_in.size()) + " of --parts-indices; give one of each per shard, in the same order");
  }
  std::vector<NamedPath> inputs;
  for (std::string const& f : a.distances_in) inputs.push_back({"--parts-distances", f});
  for (std::string const& f : a.indices_in) inputs.push_back({"--parts-indices", f});
  refuse_clashing_files(inputs, {{"--indices", a.indices}, {"--distances", a.distances}});
  std::vector<Array> parts;
  std::vector<ConstMatrixView> d, i;
  for (std::size_t s = 0; s < a.distances_in.size(); ++s) {
    parts.push_back(io::read_npy(a.distances_in[s]));
    d.push_back(parts.back().view());
    parts.push_back(io::read_npy(a.indices_in[s]));
    i.push_back(parts.back().view());
  }
  std::int64_t columns = 0;
  for (ConstMatrixView const& v : d) columns += v.cols;
  std::int64_t const m = d.empty() ? 0 : d.front().rows;
  if (!a.pad && a.k > columns) {
    throw InvalidArgument("merge-knn: k = " + std::to_string(a.k) + " but the parts hold " + std::to_string(columns) +
                          " candidates a row; pass --pad to pad the missing neighbours with index -1");
  }
  Array distances = Array::allocate(m, a.k, d.empty() ? DType::kFloat32 : d.front().dtype, Device::cpu());
  Array indices = Array::allocate(m, a.k, DType::kInt64, Device::cpu());
  KnnMergeOptions opt;
  opt.params = a.metric.params();
  opt.parts_rank_values = true;  // the parts come from knn --rank-values: merged as one call ranks
  try {
    merge_knn(d, i, a.k, a.metric.parsed(), distances.view(), indices.view(), opt);
  } catch (InvalidArgument const& e) {  // the library numbers the parts: name their files
    std::string files;
    for (std::size_t s = 0; s < d.size(); ++s) {
      files += "; part " + std::to_string(s) + ": " + a.distances_in[s] + ", " + a.indices_in[s];
    }
    throw InvalidArgument(std::string(e.what()) + files);
  }
  if (!a.indices.empty()) io::write_npy(a.indices, indices);
  if (!a.distances.empty()) io::write_npy(a.distances, distances);
  if (!a.quiet) {
    std::printf("merge-knn %s k=%lld: %zu parts of %lld rows merged\n", a.metric.metric.c_str(),
                static_cast<long long>(a.k), d.size(), static_cast<long long>(m));
  }
}

CLI::App* add_inputs(CLI::App& app, char const* name, char const* help, NeighborArgs& args, bool y_required) {
  CLI::App* cmd = app.add_subcommand(name, help);
  cmd->add_option("X", args.x, "query rows (.npy, .fvecs, .bvecs)")->required()->check(CLI::ExistingFile);
  auto* y = cmd->add_option("Y", args.y, y_required ? "rows to search" : "rows to search (default: X itself)");
  y->check(CLI::ExistingFile);
  if (y_required) y->required();
  add_metric_options(*cmd, args.metric);
  add_device_option(*cmd, args.device);
  cmd->add_flag("-q,--quiet", args.quiet, "print nothing on success");
  return cmd;
}

}  // namespace

void add_neighbor_commands(CLI::App& app) {
  auto kargs = std::make_shared<NeighborArgs>();
  CLI::App* kn = add_inputs(app, "knn", "the k nearest rows of Y for each row of X, nearest first", *kargs, false);
  kn->add_option("-k", kargs->k, "neighbours per row")->required();
  kn->add_option("--indices", kargs->indices, "output .npy: (m, k) int64 row indices of Y");
  kn->add_option("--distances", kargs->distances, "output .npy: (m, k) distances");
  kn->add_flag("--include-self", kargs->include_self, "without Y: count each point among its neighbours");
  kn->add_flag("--pad", kargs->pad, "allow k above the rows of Y: missing neighbours get index -1, NaN");
  kn->add_option("--first-row", kargs->first_row,
                 "Y is a shard of a database, starting at this row of it: indices count from the database's start");
  kn->add_flag("--rank-values", kargs->rank_values,
               "write the values knn ranks (euclidean's squares) instead of distances: what merge-knn merges exactly");
  kn->callback([kargs] { run_knn(*kargs); });

  auto gargs = std::make_shared<MergeArgs>();
  CLI::App* mk = app.add_subcommand(
      "merge-knn", "one knn answer from the answers of knn --rank-values --first-row over shards of a database");
  mk->add_option("--parts-distances", gargs->distances_in, "each shard's --distances .npy (written with --rank-values)")
      ->required()
      ->check(CLI::ExistingFile);
  mk->add_option("--parts-indices", gargs->indices_in, "each shard's --indices .npy, in the same order")
      ->required()
      ->check(CLI::ExistingFile);
  mk->add_option("-k", gargs->k, "neighbours per row")->required();
  mk->add_option("--indices", gargs->indices, "output .npy: (m, k) int64 row indices of the whole database");
  mk->add_option("--distances", gargs->distances, "output .npy: (m, k) distances");
  mk->add_flag("--pad", gargs->pad, "allow k above the parts' candidates: missing neighbours get index -1, NaN");
  add_metric_options(*mk, gargs->metric);
  mk->add_flag("-q,--quiet", gargs->quiet, "print nothing on success");
  mk->callback([gargs] { run_merge_knn(*gargs); });

  auto margs = std::make_shared<NeighborArgs>();
  CLI::App* mt = add_inputs(app, "match", "descriptor matching: best match per row of X that passes Lowe's ratio test",
                            *margs, true);
  mt->add_option("--ratio", margs->ratio, "Lowe's ratio in (0, 1]: keep d1 < ratio d2")->default_val(0.75);
  mt->add_flag("--mutual", margs->mutual, "keep a match only if the query is also the train row's best");
  mt->add_option("--max-distance", margs->max_distance, "keep only matches with d1 <= this");
  mt->add_option("-o,--output", margs->output, "output .npy: (matches, 2) int32 (query, train), by query")->required();
  mt->add_option("--distances", margs->distances, "output .npy: the matches' distances");
  mt->callback([margs] { run_match(*margs); });

  auto rargs = std::make_shared<NeighborArgs>();
  CLI::App* rd = add_inputs(app, "radius", "every pair within distance r, as CSR (offsets, indices, distances)",
                            *rargs, true);
  rd->add_option("--r", rargs->r, "the radius (inner_product: the smallest similarity kept)")->required();
  rd->add_option("-o,--output", rargs->output, "output prefix: PREFIX_offsets.npy, _indices.npy, _distances.npy")
      ->required();
  rd->callback([rargs] { run_radius(*rargs); });
}

}  // namespace cudist::cli
