// cudist demo: a real job on shipped data. The descriptors of OpenCV's box.png (an object) and
// box_in_scene.png (the object in clutter) are matched the way a robotics pipeline matches them,
// on the GPU when one is present, else on the CPU:
//  - SIFT (uint8, 604 and 969 x 128) under L2 and ORB (256-bit, 1589 and 1999 rows) under bit
//    Hamming, best and second-best per query with Lowe's ratio test at 0.75, fused into one pass
//    (the distance matrix is never written), then the same with the mutual check;
//  - each result is compared with the matches OpenCV's BFMatcher keeps on the same descriptors;
//  - for scale, the full SIFT distance matrix (cdist) that an unfused pipeline would write.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "common/suite.hpp"
#include "cudist/distance/pairwise.hpp"
#include "cudist/io/npy.hpp"
#include "cudist/neighbors/knn.hpp"

namespace cudist::cli {
namespace {

struct DemoArgs {
  std::string data_dir = CUDIST_DATA_DIR;
  std::string device;
};

constexpr int kRuns = 21;

/// Median wall time of `fn` over kRuns runs after one warm-up, in seconds (fn synchronizes).
template <class Fn>
double median_seconds(Fn&& fn) {
  fn();  // warm-up: module load, allocations
  std::vector<double> t;
  for (int r = 0; r < kRuns; ++r) {
    auto const start = std::chrono::steady_clock::now();
    fn();
    t.push_back(seconds_since(start));
  }
  std::nth_element(t.begin(), t.begin() + kRuns / 2, t.end());
  return t[kRuns / 2];
}

using PairSet = std::set<std::pair<std::int64_t, std::int64_t>>;

/// The (query, train) rows of a (count, 2) host array of index type T.
template <class T>
PairSet pairs_in(Array const& rows) {
  PairSet pairs;
  for (std::int64_t r = 0; r < rows.rows(); ++r) {
    pairs.emplace(rows.data_as<T>()[2 * r], rows.data_as<T>()[2 * r + 1]);
  }
  return pairs;
}

std::int64_t shared_count(PairSet const& a, PairSet const& b) {
  return std::count_if(a.begin(), a.end(), [&](auto const& p) { return b.count(p) > 0; });
}

struct MatchJob {
  char const* title;    ///< what is matched, for the report
  char const* kind;     ///< file infix: "sift_u8" or "orb"
  char const* opencv;   ///< OpenCV's ratio-0.75 matches
  Metric metric;
};

void run_match_job(Resources const& res, std::string const& data_dir, MatchJob const& job) {
  std::string const dir = data_dir + "/descriptors/";
  Array const query = Array::copy_of(io::read_npy(dir + "box_a_" + job.kind + ".npy"), res.device);
  Array const train = Array::copy_of(io::read_npy(dir + "box_b_" + job.kind + ".npy"), res.device);
  std::printf("\n%s: %lld query x %lld train descriptors of %lld bytes\n", job.title,
              static_cast<long long>(query.rows()), static_cast<long long>(train.rows()),
              static_cast<long long>(query.cols()));
  PairSet const reference = pairs_in<std::int32_t>(io::read_npy(dir + job.opencv));  // OpenCV's
  for (bool const mutual : {false, true}) {
    MatchOptions options;
    options.mutual = mutual;
    MatchResult result;
    double const secs = median_seconds([&] { result = match(res, query, train, job.metric, options); });
    PairSet const got = pairs_in<std::int64_t>(Array::copy_of(result.pairs, Device::cpu()));
    std::printf("  ratio test 0.75%s: %4zu matches in %8.1f us", mutual ? " + mutual check" : "",
                got.size(), secs * 1e6);
    if (mutual) {
      std::printf(" (every one also the train descriptor's best query)\n");
    } else {
      std::printf("; OpenCV's BFMatcher keeps %zu, %lld of them the same pairs\n", reference.size(),
                  static_cast<long long>(shared_count(got, reference)));
    }
  }
}

/// The matrix an unfused pipeline writes before it selects: the SIFT cdist, timed to the host.
void run_distance_matrix(Resources const& res, std::string const& data_dir) {
  Array const query = Array::copy_of(io::read_npy(data_dir + "/descriptors/box_a_sift_u8.npy"), res.device);
  Array const train = Array::copy_of(io::read_npy(data_dir + "/descriptors/box_b_sift_u8.npy"), res.device);
  Array dist = Array::allocate(query.rows(), train.rows(), DType::kFloat32, res.device);
  Array host = Array::allocate(query.rows(), train.rows(), DType::kFloat32, Device::cpu());
  double const secs = median_seconds([&] {
    cdist(res, query, train, dist.view(), Metric::kEuclidean);
    copy(dist.view(), host.view());  // the copy to the host synchronizes
  });
  double const pairs = double(query.rows()) * train.rows();
  std::printf("\nfull SIFT distance matrix (cdist, exact integer arithmetic): %.1f us incl. the copy "
              "to the host, %.2f G element ops/s\n", secs * 1e6, pairs * query.cols() / secs / 1e9);
  if (res.device.is_cuda()) {
    bench::Ceilings const c = bench::measure_ceilings();
    double const floor = std::max(2 * pairs * query.cols() / c.fma_per_s, pairs * 4 / c.write_bytes_per_s);
    std::printf("  its floor on %s: %.1f us (2 ops per element at the measured %.1f T FMA/s): at this "
                "size the job is bound by launches and copies, not by the arithmetic\n",
                c.device_name.c_str(), floor * 1e6, c.fma_per_s / 1e12);
  }
}

void run_demo(DemoArgs const& a) {
  Resources const res(DeviceSet::parse(a.device));
  std::printf("cudist demo on %s: matching the descriptors of box.png against box_in_scene.png "
              "(times: median of %d runs)\n", res.devices.str().c_str(), kRuns);
  run_match_job(res, a.data_dir, {"SIFT, L2", "sift_u8", "box_sift_ratio075_matches.npy", Metric::kEuclidean});
  run_match_job(res, a.data_dir, {"ORB, bit Hamming", "orb", "box_orb_ratio075_matches.npy", Metric::kHammingBits});
  run_distance_matrix(res, a.data_dir);
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto args = std::make_shared<DemoArgs>();
  CLI::App* cmd = app.add_subcommand("demo", "match the shipped SIFT and ORB descriptors, on the GPU if present");
  cmd->add_option("--data", args->data_dir, "the repository's data/ folder");
  add_device_option(*cmd, args->device);
  cmd->callback([args] { run_demo(*args); });
}

}  // namespace cudist::cli
