// Determinism: every shipped scenario (configs/*.json, shortened) gives the same reports when run
// twice with `lbsim run`, and `lbsim sweep` gives the same reports with 1 and with 2 threads.
// Reports are compared byte for byte after removing every "engine" object (wall time, events/s,
// peak memory: the only fields that depend on the machine); the sweep's report of each policy must
// also equal the run's. Under the sanitizers each scenario is run once and swept once (kSanitized).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;

using ::lbsim::testing_files::slurp;

void strip_engine(nlohmann::ordered_json& j) {
  if (j.is_object()) {
    j.erase("engine");
    for (auto& [k, v] : j.items()) strip_engine(v);
  } else if (j.is_array()) {
    for (auto& v : j) strip_engine(v);
  }
}

// Every .json under `dir` (relative path -> text without "engine").
std::map<std::string, std::string> reports(const fs::path& dir) {
  std::map<std::string, std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    auto j = nlohmann::ordered_json::parse(slurp(e.path()));
    strip_engine(j);
    out[fs::relative(e.path(), dir).string()] = j.dump(1);
  }
  return out;
}

int lbsim(const std::string& args, const fs::path& log) {
  const std::string cmd = "cd '" + std::string(LBSIM_SOURCE_DIR) + "' && '" + std::string(LBSIM_BINARY) + "' " + args +
                          " >'" + log.string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A --set that keeps each scenario to a few thousand operations per policy (duration scenarios
// keep their faults inside the shortened window).
std::string shorten(const fs::path& scenario) {
  const auto doc = nlohmann::json::parse(slurp(scenario));
  const auto& w = doc.at("workload");
  if (w.contains("duration_s")) {
    // node-down: the fault at 2 s stays inside the window; fewer threads, fewer operations.
    const bool open_loop = doc.at("client").contains("rate_ops_s");
    return "--set workload.duration_s=2" + std::string(open_loop ? "" : " --set client.threads=16") +
           std::string(w.contains("warmup_s") ? " --set workload.warmup_s=0.5" : "");
  }
  return "--set workload.ops=3000" + std::string(w.contains("warmup_ops") ? " --set workload.warmup_ops=300" : "");
}

// Under the sanitizers (scripts/dev check) every lbsim process costs several times more, and this
// test was a quarter of that suite's time. The optimized suite checks all of it; the sanitizer
// suite runs each scenario once and sweeps it once with 2 jobs (the threaded path under ASan and
// UBSan), and the sweep's reports must still equal the run's.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

class ShippedDeterminism : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedDeterminism, RunTwiceAndSweepWithOneAndTwoThreadsGiveIdenticalReports) {
  const fs::path scenario = fs::path("configs") / (GetParam() + ".json");
  const fs::path tmp = fs::temp_directory_path() / ("lbsim-det-" + std::to_string(::getpid()) + "-" + GetParam());
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const std::string set = shorten(fs::path(LBSIM_SOURCE_DIR) / scenario);

  const std::vector<std::string> runs = kSanitized ? std::vector<std::string>{"run1"} : std::vector<std::string>{"run1", "run2"};
  for (const std::string& run : runs)
    ASSERT_EQ(lbsim("run " + scenario.string() + " " + set + " --quiet --out '" + (tmp / run).string() + "'",
                    tmp / (run + ".log")),
              0)
        << slurp(tmp / (run + ".log"));
  const auto r1 = reports(tmp / "run1");
  const auto policies = nlohmann::json::parse(slurp(fs::path(LBSIM_SOURCE_DIR) / scenario)).at("policies").size();
  ASSERT_EQ(r1.size(), policies) << "expected one report per policy";
  if (!kSanitized) {
    const auto r2 = reports(tmp / "run2");
    EXPECT_EQ(r1.size(), r2.size());
    for (const auto& [name, text] : r1) {
      ASSERT_TRUE(r2.count(name)) << name;
      EXPECT_TRUE(text == r2.at(name)) << "run twice: " << name << " differs";
    }
  }

  const std::vector<std::string> jobs = kSanitized ? std::vector<std::string>{"2"} : std::vector<std::string>{"1", "2"};
  for (const std::string& threads : jobs) {
    const fs::path out = tmp / (std::string("sweep-t") + threads);
    ASSERT_EQ(lbsim("sweep " + scenario.string() + " " + set + " --jobs " + threads + " --out '" + out.string() + "'",
                    tmp / "sweep.log"),
              0)
        << slurp(tmp / "sweep.log");
  }
  const auto s1 = reports(tmp / ("sweep-t" + jobs.front())), s2 = reports(tmp / ("sweep-t" + jobs.back()));
  ASSERT_GE(s1.size(), r1.size() + 1) << "expected the per-policy reports and sweep.json";
  if (!kSanitized) {
    EXPECT_EQ(s1.size(), s2.size());
    for (const auto& [name, text] : s1) {
      ASSERT_TRUE(s2.count(name)) << name;
      EXPECT_TRUE(text == s2.at(name)) << "sweep --jobs 1 vs 2: " << name << " differs";
    }
  }
  // The sweep's report of each policy is the run's report (one grid point, the same seed).
  for (const auto& [name, text] : r1) {
    const std::string policy = fs::path(name).stem().string();
    int matched = 0;
    for (const auto& [sname, stext] : s1)
      if (sname.find("/" + policy + "/seed-") != std::string::npos) {
        ++matched;
        EXPECT_TRUE(stext == text) << "run vs sweep: " << name << " vs " << sname << " differ";
      }
    EXPECT_EQ(matched, 1) << policy;
  }
  fs::remove_all(tmp);
}

std::vector<std::string> shipped() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(LBSIM_SOURCE_DIR) / "configs"))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

INSTANTIATE_TEST_SUITE_P(Configs, ShippedDeterminism, ::testing::ValuesIn(shipped()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(ShippedDeterminismTable, CoversEveryShippedScenario) { EXPECT_GE(shipped().size(), 9u); }

}  // namespace
