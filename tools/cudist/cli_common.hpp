// Helpers shared by the subcommands: device and metric options, progress on a terminal, timing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "cudist/core/device.hpp"
#include "cudist/distance/pairwise.hpp"

namespace cudist::cli {

/// --device cpu|cuda|cuda:N|auto (default auto: the GPU when there is one).
void add_device_option(CLI::App& cmd, std::string& device);

/// --metric, --p, --w (comma-separated) options filling a MetricParams.
struct MetricOptions {
  std::string metric = "euclidean";
  double p = 2.0;
  std::vector<double> w;
  Metric parsed() const { return metric_from_name(metric); }
  MetricParams params() const;
};
void add_metric_options(CLI::App& cmd, MetricOptions& opts);

/// Runs work(begin, end) over [0, total) in chunks, drawing a progress bar on stderr when it is a
/// terminal and the whole job is expected to take more than a couple of seconds.
void run_with_progress(std::int64_t total, double estimated_seconds, char const* label,
                       std::function<void(std::int64_t, std::int64_t)> const& work);

/// Seconds since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace cudist::cli
