// cudist cdist / pdist: distance matrices between .npy / .fvecs / .bvecs files.
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
  bool quiet = false;
};

/// A rough time estimate for the progress bar: 2 instructions per element at 30 T/s on a GPU,
/// 50 G/s on a CPU.
double estimate_seconds(double elements, Device device) {
  return elements * 2 / (device.is_cuda() ? 30e12 : 50e9);
}

void run_cdist(DistanceArgs const& a) {
  refuse_clashing_files({{"X", a.x}, {"Y", a.y}}, {{"--output", a.output}});
  Array const x = io::read_matrix(a.x);
  Array const y = io::read_matrix(a.y);
  Resources const res(Device::parse(a.device));
  Metric const metric = a.metric.parsed();
  Array out = Array::allocate(x.rows(), y.rows(), distance_output_dtype(x.dtype()), Device::cpu());
  auto const start = std::chrono::steady_clock::now();
  double const elements = double(x.rows()) * y.rows() * x.cols();
  std::size_t const esize = size_of(x.dtype());
  std::size_t const osize = size_of(out.dtype());
  run_with_progress(x.rows(), estimate_seconds(elements, res.device), "cdist", [&](std::int64_t b, std::int64_t e) {
    ConstMatrixView const xs(static_cast<char const*>(x.data()) + b * x.cols() * esize, e - b, x.cols(), x.cols(),
                             x.dtype(), Memory::kHost);
    MatrixView const os(static_cast<char*>(out.data()) + b * out.cols() * osize, e - b, out.cols(), out.cols(),
                        out.dtype(), Memory::kHost);
    cdist(res, xs, y, os, metric, a.metric.params());
  });
  double const secs = seconds_since(start);
  io::write_npy(a.output, out);
  if (!a.quiet) {
    std::printf("cdist %s: %lld x %lld (d=%lld, %s) on %s in %.3f s -> %s\n", std::string(metric_name(metric)).c_str(),
                static_cast<long long>(x.rows()), static_cast<long long>(y.rows()), static_cast<long long>(x.cols()),
                std::string(dtype_name(x.dtype())).c_str(), res.device.str().c_str(), secs, a.output.c_str());
  }
}

void run_pdist(DistanceArgs const& a) {
  refuse_clashing_files({{"X", a.x}}, {{"--output", a.output}});
  Array const x = io::read_matrix(a.x);
  Resources const res(Device::parse(a.device));
  Metric const metric = a.metric.parsed();
  auto const start = std::chrono::steady_clock::now();
  Array const out = pdist(res, x, metric, a.metric.params());
  double const secs = seconds_since(start);
  io::write_npy(a.output, out, io::NpyShape::kVector);
  if (!a.quiet) {
    std::printf("pdist %s: %lld points (d=%lld, %s) -> %lld distances on %s in %.3f s -> %s\n",
                std::string(metric_name(metric)).c_str(), static_cast<long long>(x.rows()),
                static_cast<long long>(x.cols()), std::string(dtype_name(x.dtype())).c_str(),
                static_cast<long long>(out.cols()), res.device.str().c_str(), secs, a.output.c_str());
  }
}

}  // namespace

void add_distance_commands(CLI::App& app) {
  auto args = std::make_shared<DistanceArgs>();
  CLI::App* cd = app.add_subcommand("cdist", "distance matrix between the rows of X and of Y (as scipy cdist)");
  cd->add_option("X", args->x, "rows to measure from (.npy, .fvecs, .bvecs)")->required()->check(CLI::ExistingFile);
  cd->add_option("Y", args->y, "rows to measure to")->required()->check(CLI::ExistingFile);
  cd->add_option("-o,--output", args->output, "output .npy (m x n)")->required();
  add_metric_options(*cd, args->metric);
  add_device_option(*cd, args->device);
  cd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  cd->callback([args] { run_cdist(*args); });

  auto pargs = std::make_shared<DistanceArgs>();
  CLI::App* pd = app.add_subcommand("pdist", "condensed distances between the rows of X (as scipy pdist)");
  pd->add_option("X", pargs->x, "points (.npy, .fvecs, .bvecs)")->required()->check(CLI::ExistingFile);
  pd->add_option("-o,--output", pargs->output, "output .npy, 1-D of n(n-1)/2 entries")->required();
  add_metric_options(*pd, pargs->metric);
  add_device_option(*pd, pargs->device);
  pd->add_flag("-q,--quiet", pargs->quiet, "print nothing on success");
  pd->callback([pargs] { run_pdist(*pargs); });
}

}  // namespace cudist::cli
