#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/backend.hpp"
#include "cudist/core/error.hpp"
#include "cudist/core/timeline.hpp"
#include "cudist/neighbors/knn.hpp"

namespace cudist {
namespace {

/// The trace's spans named `name`.
std::vector<nlohmann::json> spans_named(nlohmann::json const& trace, std::string const& name) {
  std::vector<nlohmann::json> found;
  for (nlohmann::json const& e : trace.at("traceEvents")) {
    if (e.at("name") == name) found.push_back(e);
  }
  return found;
}

TEST(Timeline, ACallsStepsGoToAChromeTrace) {
  CUDIST_REQUIRE_BACKEND();
  std::string const path = testing::TempDir() + "cudist_timeline_test.json";
  timeline_record_to(path);
  std::vector<float> x(50 * 8), y(300 * 8);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(i % 11);
  KnnResult const r = knn(test::backend_resources(), view(x.data(), 50, 8), view(y.data(), 300, 8), 3,
                          Metric::kSqEuclidean);
  timeline_write();
  timeline_record_to("");

  nlohmann::json const trace = nlohmann::json::parse(std::ifstream(path));
  for (nlohmann::json const& e : trace.at("traceEvents")) {
    EXPECT_EQ(e.at("ph"), "X");
    EXPECT_GE(e.at("ts").get<double>(), 0.0);
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
  }
  std::vector<nlohmann::json> const calls = spans_named(trace, "knn");
  std::vector<nlohmann::json> const plans = spans_named(trace, "plan (inputs staged where the device reads them)");
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_EQ(plans.size(), 1u);
  // The plan is a step of the call: same thread, inside its span.
  nlohmann::json const& call = calls[0];
  nlohmann::json const& plan = plans[0];
  EXPECT_EQ(plan.at("tid"), call.at("tid"));
  EXPECT_LE(call.at("ts").get<double>(), plan.at("ts").get<double>());
  EXPECT_LE(plan.at("ts").get<double>() + plan.at("dur").get<double>(),
            call.at("ts").get<double>() + call.at("dur").get<double>() + 1e-3);
  if (test::backend_device().is_cuda()) {  // the host inputs' uploads, with their sizes
    std::vector<std::int64_t> bytes;
    for (nlohmann::json const& e : spans_named(trace, "copy to the GPU")) bytes.push_back(e.at("args").at("bytes"));
    EXPECT_NE(std::find(bytes.begin(), bytes.end(), 50 * 8 * 4), bytes.end());
    EXPECT_NE(std::find(bytes.begin(), bytes.end(), 300 * 8 * 4), bytes.end());
  }
}

TEST(Timeline, NothingIsRecordedWhenOff) {
  std::string const path = testing::TempDir() + "cudist_timeline_off_test.json";
  timeline_record_to(path);
  timeline_record_to("");
  EXPECT_FALSE(timeline_on());
  { TimelineSpan const span("not recorded"); }
  timeline_record_to(path);  // recording again drops what came before: nothing
  timeline_write();
  timeline_record_to("");
  nlohmann::json const trace = nlohmann::json::parse(std::ifstream(path));
  EXPECT_TRUE(trace.at("traceEvents").empty());
}

TEST(Timeline, NamesOfAnyTextStayValidJson) {
  std::string const path = testing::TempDir() + "cudist_timeline_names_test.json";
  timeline_record_to(path);
  std::string const name = "a \"quoted\" step\\ with\ta tab";
  { TimelineSpan const span(name.c_str()); }
  timeline_write();
  timeline_record_to("");
  nlohmann::json const trace = nlohmann::json::parse(std::ifstream(path));
  ASSERT_EQ(trace.at("traceEvents").size(), 1u);
  EXPECT_EQ(trace.at("traceEvents")[0].at("name"), name);
}

TEST(Timeline, PercentPInTheNameIsTheProcessId) {
  std::string const dir = testing::TempDir();
  timeline_record_to(dir + "cudist_timeline_%p.json");
  timeline_write();
  timeline_record_to("");
  std::ifstream const named(dir + "cudist_timeline_" + std::to_string(getpid()) + ".json");
  EXPECT_TRUE(named.good());
}

TEST(Timeline, AFileThatCannotBeWrittenIsNamed) {
  timeline_record_to("/nonexistent-cudist-dir/timeline.json");
  try {
    timeline_write();
    ADD_FAILURE() << "timeline_write did not throw";
  } catch (FileError const& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-cudist-dir/timeline.json"), std::string::npos) << e.what();
  }
  timeline_record_to("");
}

}  // namespace
}  // namespace cudist
