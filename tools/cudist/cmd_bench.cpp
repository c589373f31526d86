// cudist bench: runs the benchmark suites, prints the table of BENCHMARKS.md (time, floor,
// % of floor, peer, speed-up) and writes it as JSON.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common/suite.hpp"
#include "cudist/core/device.hpp"
#include "cudist/core/error.hpp"

namespace cudist::cli {
namespace {

struct BenchArgs {
  std::vector<std::string> suites;
  std::vector<std::string> cases;
  std::string json;
  std::string plot;
  bool quick = false;
  int repeats = 20;
};

void print_row(bench::CaseResult const& r) {
  std::printf("%-4s %-46s %10.1f %10.1f %6.0f%%  %-16s", r.id.c_str(), r.description.substr(0, 46).c_str(),
              r.time_us, r.floor_us, r.time_us > 0 ? 100.0 * r.floor_us / r.time_us : 0.0,
              r.floor_basis.substr(0, 16).c_str());
  if (!r.peer.empty()) std::printf(" %-10s %10.1f %6.2fx", r.peer.c_str(), r.peer_us, r.peer_us / r.time_us);
  std::printf("  %s\n", r.correct ? "ok" : "WRONG");
}

nlohmann::json to_json(bench::CaseResult const& r, std::string const& suite) {
  return {{"suite", suite},        {"id", r.id},           {"description", r.description},
          {"time_us", r.time_us},  {"floor_us", r.floor_us}, {"floor_basis", r.floor_basis},
          {"peer", r.peer},        {"peer_us", r.peer_us},   {"correct", r.correct},
          {"note", r.note}};
}

/// Runs bench/plot.py on the results file (python3 with matplotlib on PATH); the command line
/// run, or "" when it succeeded.
std::string draw_plot(std::string const& json, std::string const& picture) {
  auto quoted = [](std::string const& path) {  // one shell word: '...' with ' written as '\''
    std::string q = "'";
    for (char ch : path) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
  };
  std::string const command = "python3 " + quoted(CUDIST_PLOT_SCRIPT) + " " + quoted(json) + " " + quoted(picture);
  std::fflush(stdout);
  return std::system(command.c_str()) == 0 ? "" : command;
}

void run_bench(BenchArgs const& a) {
  bench::Options opt;
  opt.quick = a.quick;
  opt.repeats = a.repeats;
  opt.cases = a.cases;
  opt.ceilings = bench::measure_ceilings();
  nlohmann::json doc;
  auto const& c = opt.ceilings;
  doc["device"] = c.device_name.empty() ? "cpu only" : c.device_name;
  doc["ceilings"] = {{"write_bytes_per_s", c.write_bytes_per_s}, {"copy_bytes_per_s", c.copy_bytes_per_s},
                     {"fma_per_s", c.fma_per_s}, {"fmnmx_add_per_s", c.fmnmx_add_per_s},
                     {"popc_per_s", c.popc_per_s}, {"dpx_s32_per_s", c.dpx_s32_per_s},
                     {"dpx_s16x2_per_s", c.dpx_s16x2_per_s}, {"mma_int8_per_s", c.mma_int8_per_s},
                     {"mma_bf16_per_s", c.mma_bf16_per_s}, {"mma_tf32_per_s", c.mma_tf32_per_s}};
  std::printf("device: %s; write %.2f TB/s, copy %.2f TB/s, FFMA %.1f T/s, add+min %.1f T/s, POPC %.2f T/s;"
              " GEMM multiply-adds: int8 %.0f T/s, bf16 %.0f T/s, tf32 %.0f T/s\n",
              doc["device"].get<std::string>().c_str(), c.write_bytes_per_s / 1e12, c.copy_bytes_per_s / 1e12,
              c.fma_per_s / 1e12, c.fmnmx_add_per_s / 1e12, c.popc_per_s / 1e12, c.mma_int8_per_s / 1e12,
              c.mma_bf16_per_s / 1e12, c.mma_tf32_per_s / 1e12);
  std::printf("%-4s %-46s %10s %10s %7s  %-16s %-10s %10s %7s\n", "id", "case", "ours us", "floor us", "floor%",
              "floor basis", "peer", "peer us", "peer/us");
  nlohmann::json cases = nlohmann::json::array();
  int ran = 0;
  for (bench::Suite const& suite : bench::all_suites()) {
    bool const wanted = a.suites.empty() || std::find(a.suites.begin(), a.suites.end(), suite.name) != a.suites.end();
    if (!wanted) continue;
    ++ran;
    for (bench::CaseResult const& r : suite.run(opt)) {
      print_row(r);
      cases.push_back(to_json(r, suite.name));
      std::fflush(stdout);
    }
  }
  if (ran == 0) throw InvalidArgument("bench: no suite matches the --suite names given");
  if (cases.empty() && !a.cases.empty()) {
    throw InvalidArgument("bench: no case of the suites run matches the --case ids given");
  }
  doc["cases"] = cases;
  // The picture is drawn by bench/plot.py (matplotlib) from the JSON: --json's file, or a
  // scratch file beside the picture.
  std::string const json = !a.json.empty() ? a.json : (a.plot.empty() ? "" : a.plot + ".json");
  if (!json.empty()) {
    std::ofstream f(json);
    if (!(f << doc.dump(2) << "\n")) throw FileError("bench: cannot write '" + json + "'");
  }
  if (!a.plot.empty()) {
    std::string const failed = draw_plot(json, a.plot);
    if (a.json.empty()) std::remove(json.c_str());
    if (!failed.empty()) {
      throw Error("bench: --plot failed: `" + failed + "` (needs python3 with matplotlib: scripts/setup.sh)");
    }
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "run the benchmark suites against their floors and peers");
  cmd->add_option("--suite", args->suites, "suite names (dense, knn, semiring, sparse, cpu); default all");
  cmd->add_option("--case", args->cases, "case ids to run (D1, K4, S3, ...; repeatable); default every case");
  cmd->add_option("--json", args->json, "write the results as JSON");
  cmd->add_option("--plot", args->plot, "draw the results as a roofline-style picture (.png, .svg; bench/plot.py)");
  cmd->add_option("--repeats", args->repeats, "timed runs per case (median reported)")->default_val(20);
  cmd->add_flag("--quick", args->quick, "smaller sizes: a smoke test, not a measurement");
  cmd->callback([args] { run_bench(*args); });
}

}  // namespace cudist::cli
