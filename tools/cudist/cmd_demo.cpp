// cudist demo: a real job on shipped data. The SIFT descriptors of OpenCV's box.png and
// box_in_scene.png (uint8, 604 and 969 x 128) are compared all-against-all on the GPU when one is
// present, else on the CPU; the run is timed against its floor and the distance matrix is used the
// way a robotics pipeline would: nearest neighbours and Lowe's ratio test.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "common/suite.hpp"
#include "cudist/distance/pairwise.hpp"
#include "cudist/io/npy.hpp"

namespace cudist::cli {
namespace {

struct DemoArgs {
  std::string data_dir = CUDIST_DATA_DIR;
  std::string device;
};

/// Median wall time of `fn` over `runs` runs, in seconds (fn synchronizes: host output).
template <class Fn>
double median_seconds(Fn&& fn, int runs) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    auto const start = std::chrono::steady_clock::now();
    fn();
    t.push_back(seconds_since(start));
  }
  std::nth_element(t.begin(), t.begin() + runs / 2, t.end());
  return t[runs / 2];
}

/// Queries whose nearest train descriptor is closer than ratio x the second nearest.
int count_ratio_matches(Array const& d, float ratio) {
  int matches = 0;
  for (std::int64_t i = 0; i < d.rows(); ++i) {
    float best = INFINITY, second = INFINITY;
    for (std::int64_t j = 0; j < d.cols(); ++j) {
      float const v = d.data_as<float>()[i * d.cols() + j];
      if (v < best) {
        second = best;
        best = v;
      } else if (v < second) {
        second = v;
      }
    }
    if (best < ratio * second) ++matches;
  }
  return matches;
}

void run_demo(DemoArgs const& a) {
  Array const query = io::read_npy(a.data_dir + "/descriptors/box_a_sift_u8.npy");
  Array const train = io::read_npy(a.data_dir + "/descriptors/box_b_sift_u8.npy");
  Resources const res(Device::parse(a.device));
  std::printf("cudist demo on %s: SIFT descriptors of box.png (%lld) vs box_in_scene.png (%lld), d=%lld uint8\n",
              res.device.str().c_str(), static_cast<long long>(query.rows()), static_cast<long long>(train.rows()),
              static_cast<long long>(query.cols()));
  Array dist = Array::allocate(query.rows(), train.rows(), DType::kFloat32, Device::cpu());
  Array const q = Array::copy_of(query, res.device), t = Array::copy_of(train, res.device);
  Array dev_out = Array::allocate(query.rows(), train.rows(), DType::kFloat32, res.device);
  auto once = [&] {
    cdist(res, q, t, dev_out.view(), Metric::kEuclidean);
    copy(dev_out.view(), dist.view());  // host copy synchronizes
  };
  once();  // warm-up: module load, allocations
  double const secs = median_seconds(once, 21);
  double const pairs = double(query.rows()) * train.rows();
  std::printf("  euclidean distance matrix, exact integer arithmetic: %.1f us (median of 21, incl. copy to host)\n",
              secs * 1e6);
  if (res.device.is_cuda()) {
    bench::Ceilings const c = bench::measure_ceilings();
    double const floor = std::max(2 * pairs * query.cols() / c.fma_per_s, pairs * 4 / c.write_bytes_per_s);
    std::printf("  floor on %s: %.1f us (2 ops per element at %.1f T/s); this problem is launch-bound at this size\n",
                c.device_name.c_str(), floor * 1e6, c.fma_per_s / 1e12);
  }
  std::printf("  %.2f G distance elements/s\n", pairs * query.cols() / secs / 1e9);
  int const matches = count_ratio_matches(dist, 0.75f);
  std::printf("  Lowe's ratio test at 0.75 keeps %d of %lld query descriptors (OpenCV's reference: 80)\n", matches,
              static_cast<long long>(query.rows()));
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto args = std::make_shared<DemoArgs>();
  CLI::App* cmd = app.add_subcommand("demo", "a real job on the shipped descriptors, on the GPU if present");
  cmd->add_option("--data", args->data_dir, "the repository's data/ folder");
  add_device_option(*cmd, args->device);
  cmd->callback([args] { run_demo(*args); });
}

}  // namespace cudist::cli
