// cudist cdist / pdist: distance matrices between .npy / .fvecs / .bvecs files.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli_common.hpp"
#include "commands.hpp"
#include "cudist/core/error.hpp"
#include "cudist/distance/pairwise.hpp"
#include "cudist/io/npy.hpp"

namespace cudist::cli {
namespace {

struct DistanceArgs {
  std::string x, y, output, device;
  MetricOptions metric;
  std::string precision = "exact";
  bool quiet = false;

  MetricParams params() const {
    MetricParams p = metric.params();
    p.precision = precision_from_name(precision);
    return p;
  }
};

/// Resources for a distance command. On the CPU a job expected to run for more than a couple of
/// seconds gets a memory budget of 1/25 of its output (at least two of its rows, of `row_bytes`
/// each), so that it is computed in ~50 windows of rows and the progress bar moves (a GPU streams
/// windows only when the output exceeds its memory). The estimate: 2 instructions per element at
/// 50 G/s.
Resources resources_for(std::string const& device, double elements, double output_bytes, double row_bytes) {
  Resources res(DeviceSet::parse(device));
  constexpr double kCpuInstructionsPerSecond = 50e9;
  constexpr double kSecondsWorthABar = 2.0;
  if (!res.device.is_cuda() && elements * 2 / kCpuInstructionsPerSecond > kSecondsWorthABar) {
    res.memory_budget = static_cast<std::uint64_t>(std::max(output_bytes / 25, 2 * row_bytes));
  }
  return res;
}

void report(DistanceArgs const& a, char const* what, Metric metric, Array const& x, std::string const& shape,
            Resources const& res, double secs) {
  if (a.quiet) return;
  std::printf("%s %s: %s (d=%lld, %s) on %s in %.3f s -> %s\n", what, std::string(metric_name(metric)).c_str(),
              shape.c_str(), static_cast<long long>(x.cols()), std::string(dtype_name(x.dtype())).c_str(),
              (res.is_split() ? res.devices.str() : res.device.str()).c_str(), secs, a.output.c_str());
}

/// cdist / pdist into a .npy written in place (io::NpyFileOutput): a result larger than the GPU
/// streams into the file's pages, and an interrupted or failed job leaves no file behind.
void run_cdist(DistanceArgs const& a) {
  refuse_clashing_files({{"X", a.x}, {"Y", a.y}}, {{"--output", a.output}});
  Array const x = io::read_matrix(a.x);
  Array const y = io::read_matrix(a.y);
  Metric const metric = a.metric.parsed();
  DType const dtype = distance_output_dtype(x.dtype());
  io::NpyFileOutput out(a.output, x.rows(), y.rows(), dtype);
  double const row_bytes = double(y.rows()) * double(size_of(dtype));
  Resources const res = resources_for(a.device, double(x.rows()) * double(y.rows()) * double(x.cols()),
                                      double(x.rows()) * row_bytes, row_bytes);
  auto const start = std::chrono::steady_clock::now();
  {
    TerminalProgress const bar;
    cdist(res, x, y, out.view(), metric, a.params());
  }
  double const secs = seconds_since(start);
  out.commit();
  report(a, "cdist", metric, x, std::to_string(x.rows()) + " x " + std::to_string(y.rows()), res, secs);
}

void run_pdist(DistanceArgs const& a) {
  refuse_clashing_files({{"X", a.x}}, {{"--output", a.output}});
  Array const x = io::read_matrix(a.x);
  Metric const metric = a.metric.parsed();
  DType const dtype = distance_output_dtype(x.dtype());
  std::int64_t const pairs = x.rows() * (x.rows() - 1) / 2;
  io::NpyFileOutput out(a.output, 1, pairs, dtype, io::NpyShape::kVector);
  Resources const res = resources_for(a.device, double(pairs) * double(x.cols()), double(pairs) * double(size_of(dtype)),
                                      double(x.rows()) * double(size_of(dtype)));
  auto const start = std::chrono::steady_clock::now();
  {
    TerminalProgress const bar;
    pdist(res, x, out.view(), metric, a.params());
  }
  double const secs = seconds_since(start);
  out.commit();
  report(a, "pdist", metric, x, std::to_string(x.rows()) + " points -> " + std::to_string(pairs) + " distances",
         res, secs);
}

/// --precision: exact (default) or tf32, the dot-product metrics on the tensor cores (pairwise.hpp).
void add_precision_option(CLI::App& cmd, std::string& precision) {
  cmd.add_option("--precision", precision,
                 "exact (default), or tf32: sqeuclidean / euclidean / inner_product / cosine in float32 on a GPU's "
                 "tensor cores within a stated bound (docs/accuracy.md)")
      ->check(CLI::IsMember({"exact", "tf32"}));
}

}  // namespace

void add_distance_commands(CLI::App& app) {
  auto args = std::make_shared<DistanceArgs>();
  CLI::App* cd = app.add_subcommand("cdist", "distance matrix between the rows of X and of Y (as scipy cdist)");
  cd->add_option("X", args->x, "rows to measure from (.npy, .fvecs, .bvecs)")->required()->check(CLI::ExistingFile);
  cd->add_option("Y", args->y, "rows to measure to")->required()->check(CLI::ExistingFile);
  cd->add_option("-o,--output", args->output, "output .npy (m x n)")->required();
  add_metric_options(*cd, args->metric);
  add_precision_option(*cd, args->precision);
  add_device_option(*cd, args->device);
  cd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  cd->callback([args] { run_cdist(*args); });

  auto pargs = std::make_shared<DistanceArgs>();
  CLI::App* pd = app.add_subcommand("pdist", "condensed distances between the rows of X (as scipy pdist)");
  pd->add_option("X", pargs->x, "points (.npy, .fvecs, .bvecs)")->required()->check(CLI::ExistingFile);
  pd->add_option("-o,--output", pargs->output, "output .npy, 1-D of n(n-1)/2 entries")->required();
  add_metric_options(*pd, pargs->metric);
  add_precision_option(*pd, pargs->precision);
  add_device_option(*pd, pargs->device);
  pd->add_flag("-q,--quiet", pargs->quiet, "print nothing on success");
  pd->callback([pargs] { run_pdist(*pargs); });
}

}  // namespace cudist::cli
