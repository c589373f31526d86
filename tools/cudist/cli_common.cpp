#include "cli_common.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cudist/core/error.hpp"
#include "cudist/core/interrupt.hpp"
#include "cudist/core/progress.hpp"

namespace cudist::cli {

void add_device_option(CLI::App& cmd, std::string& device) {
  cmd.add_option("--device", device,
                 "cpu, cuda, cuda:N, auto (the GPU when present), or GPUs to split the work over: "
                 "cuda:0,1 or cuda:all (knn, match, radius, cdist, pdist)")
      ->default_val("auto");
}

MetricParams MetricOptions::params() const {
  MetricParams p;
  p.p = this->p;
  p.w = w;
  return p;
}

void add_metric_options(CLI::App& cmd, MetricOptions& opts) {
  cmd.add_option("--metric,-m", opts.metric, "metric name as in scipy (euclidean, cityblock, cosine, ...)")
      ->default_val("euclidean");
  cmd.add_option("--p", opts.p, "minkowski exponent (p > 0)")->default_val(2.0);
  cmd.add_option("--w", opts.w, "per-column weights, comma separated")->delimiter(',');
}

namespace {

namespace fs = std::filesystem;

std::string describe(NamedPath const& f) { return f.argument + std::string(" '") + f.path + "'"; }

/// Whether two paths name one file: the same existing file (hard or symbolic links included),
/// or the same path once "." / ".." / links in the existing part are resolved.
bool same_file(std::string const& a, std::string const& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return true;
  fs::path const ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  fs::path const cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

extern "C" void on_sigint(int) { request_interrupt(); }

}  // namespace

void refuse_clashing_files(std::vector<NamedPath> const& inputs, std::vector<NamedPath> const& outputs) {
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o].path.empty()) continue;
    for (NamedPath const& in : inputs) {
      if (!in.path.empty() && same_file(in.path, outputs[o].path)) {
        throw InvalidArgument("output " + describe(outputs[o]) + " is the input " + describe(in) +
                              ": writing it would destroy the input; choose another output path");
      }
    }
    for (std::size_t p = 0; p < o; ++p) {
      if (!outputs[p].path.empty() && same_file(outputs[p].path, outputs[o].path)) {
        throw InvalidArgument("outputs " + describe(outputs[p]) + " and " + describe(outputs[o]) +
                              " are the same file; give each its own path");
      }
    }
  }
}

void stop_work_on_sigint() {
  struct sigaction action {};
  action.sa_handler = on_sigint;
  action.sa_flags = SA_RESETHAND;  // the second Ctrl-C gets the default action: the process ends
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
}

namespace {

int drawn_percent = -1;  // the bar on screen; -1: none

void draw_progress(char const* who, std::int64_t done, std::int64_t total) {
  int const pct = total > 0 ? static_cast<int>(100 * done / total) : 100;
  if (pct == drawn_percent) return;
  drawn_percent = pct;
  std::fprintf(stderr, "\r%s [%-50s] %3d%%", who, std::string(pct / 2, '#').c_str(), pct);
  std::fflush(stderr);
}

}  // namespace

TerminalProgress::TerminalProgress() {
  if (isatty(STDERR_FILENO)) set_progress_hook(draw_progress);
}

TerminalProgress::~TerminalProgress() {
  set_progress_hook(nullptr);
  if (drawn_percent >= 0) std::fprintf(stderr, "\n");
  drawn_percent = -1;
}

}  // namespace cudist::cli
