#include "cli_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace cudist::cli {

void add_device_option(CLI::App& cmd, std::string& device) {
  cmd.add_option("--device", device, "cpu, cuda, cuda:N or auto (the GPU when present)")
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

void run_with_progress(std::int64_t total, double estimated_seconds, char const* label,
                       std::function<void(std::int64_t, std::int64_t)> const& work) {
  bool const show = estimated_seconds > 2.0 && isatty(STDERR_FILENO);
  std::int64_t const chunks = show ? 50 : 1;
  std::int64_t const step = std::max<std::int64_t>(1, (total + chunks - 1) / chunks);
  for (std::int64_t begin = 0; begin < total; begin += step) {
    std::int64_t const end = std::min(total, begin + step);
    work(begin, end);
    if (show) {
      int const pct = static_cast<int>(100 * end / total);
      std::fprintf(stderr, "\r%s [%-50s] %3d%%", label, std::string(pct / 2, '#').c_str(), pct);
      std::fflush(stderr);
    }
  }
  if (show) std::fprintf(stderr, "\n");
}

}  // namespace cudist::cli
