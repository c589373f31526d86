// Helpers shared by the subcommands: device and metric options, progress on a terminal, timing.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

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

/// A file a command reads or writes, with the argument that named it ("X", "--output").
struct NamedPath {
  char const* argument;
  std::string path;  ///< empty: not given
};

/// Refuses (InvalidArgument naming both arguments and paths) an output that is the same file as
/// an input, through any link or spelling, or as another output: writing it would replace the
/// input with the result, or one result with another.
void refuse_clashing_files(std::vector<NamedPath> const& inputs, std::vector<NamedPath> const& outputs);

/// Makes Ctrl-C (SIGINT) request an interrupt of the running cudist call (see
/// cudist/core/interrupt.hpp) instead of killing the process, so that no output is written; a
/// second Ctrl-C kills it at once.
void stop_work_on_sigint();

/// While it lives, the library's stepped calls (out-of-core cdist / pdist windows) draw a
/// progress bar on stderr when stderr is a terminal; the bar's line is ended when it goes.
class TerminalProgress {
 public:
  TerminalProgress();
  ~TerminalProgress();
  TerminalProgress(TerminalProgress const&) = delete;
  TerminalProgress& operator=(TerminalProgress const&) = delete;
};

/// Seconds since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace cudist::cli
