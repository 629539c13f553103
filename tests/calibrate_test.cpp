// scripts/dev calibrate (scripts/calibrate/RngContention.java): a --quick run prints one JSON
// object with the three model parameters, their derivation and whether each figure is a valid
// measurement (its threads had their CPUs). Timings are not asserted (the machine is shared); the
// structure, the validity rule and the arithmetic that turns measurements into parameters are.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

namespace lbsim {
namespace {

namespace fs = std::filesystem;

struct CalibrateRun {
  int status = -1;  // the program's exit status
  nlohmann::json j;
};

// Runs `scripts/calibrate/run.sh DIR --quick ARGS` and parses its stdout, which is one JSON object.
CalibrateRun calibrate(const std::string& args) {
  const fs::path out = fs::temp_directory_path() / ("lbsim-calibrate-" + std::to_string(::getpid()));
  const std::string cmd = "bash " + std::string(LBSIM_SOURCE_DIR) + "/scripts/calibrate/run.sh " + out.string() +
                          " --quick " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  CalibrateRun r;
  if (p == nullptr) return r;
  std::string text;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  fs::remove_all(out);
  r.j = nlohmann::json::parse(text);  // the whole of stdout is one JSON object, valid or not
  return r;
}

bool have_java() { return std::system("command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1") == 0; }

const char* const kFigures[] = {"thread_local_draw_ns", "shared_draw_ns", "shared_tight_2threads",
                                "thread_local_tight_2threads", "pingpong_handoff_ns", "cas_tight_2threads",
                                "shuffle3 work=50 shared", "shuffle3 work=50 tlr", "shuffle3 work=140 shared",
                                "shuffle3 work=140 tlr"};

// With the CPU check off (--min-cpu-ratio 0) every repetition counts: the figures are numbers and
// the derivations hold to the printed decimals. A negative derived figure is still refused.
TEST(Calibrate, QuickRunPrintsTheMeasuredParametersAsJson) {
  ASSERT_TRUE(have_java()) << "javac/java not found: scripts/dev calibrate installs openjdk-17-jdk-headless";
  const CalibrateRun r = calibrate("--min-cpu-ratio 0");
  const auto& j = r.j;
  for (const char* k : {"cpu", "jdk", "date"}) EXPECT_TRUE(j.at(k).is_string()) << k;
  EXPECT_EQ(j.at("min_cpu_ratio").get<double>(), 0.0);
  for (const char* k : {"thread_local_draw_ns", "shared_draw_ns", "shared_tight_2threads_ns_per_draw",
                        "thread_local_tight_2threads_ns_per_draw", "pingpong_handoff_ns", "handoffs_per_draw",
                        "failed_cas_per_draw"})
    EXPECT_TRUE(j.at(k).is_number()) << k;
  for (const char* f : kFigures) EXPECT_GE(j.at("lowest_cpu_ratio").at(f).get<double>(), 0.0) << f;
  const double tl = j["thread_local_draw_ns"], shared = j["shared_draw_ns"], tight = j["shared_tight_2threads_ns_per_draw"];
  const double h = j["handoffs_per_draw"], failed = j["failed_cas_per_draw"];
  EXPECT_GT(tl, 0);
  EXPECT_GT(shared, 0);
  // Two threads drawing in a loop: some draws find the line on the other core, never more than all.
  EXPECT_GT(h, 0);
  EXPECT_LE(h, 1);
  EXPECT_GE(failed, 0);
  // Only a negative derived figure may make this run invalid.
  for (const auto& why : j.at("invalid")) EXPECT_NE(why.get<std::string>().find("negative"), std::string::npos) << why;
  EXPECT_EQ(r.status, j.at("invalid").empty() ? 0 : 3);
  // The critical-section derivation (configs/README.md, "client"), to the printed decimals.
  if (j["line_transfer_ns"].is_number()) {
    EXPECT_NEAR(j["line_transfer_ns"].get<double>(), tight / 2 - shared, 0.02);
    EXPECT_NEAR(j["model_shuffle3_extra_ns"].get<double>(), j["line_transfer_ns"].get<double>() + 2 * (shared - tl), 0.03);
  } else {
    EXPECT_LT(tight / 2 - shared, 0.01);
    EXPECT_TRUE(j["model_shuffle3_extra_ns"].is_null());
  }
  ASSERT_EQ(j.at("shuffle3_with_work").size(), 2u);
  EXPECT_EQ(j["shuffle3_with_work"][0]["work_us"], 50);
  EXPECT_EQ(j["shuffle3_with_work"][1]["work_us"], 140);
  const double ms = j["shuffle3_with_work"][0]["shared_ns"], mt = j["shuffle3_with_work"][0]["thread_local_ns"];
  if (ms - mt >= 0) EXPECT_NEAR(j["measured_shuffle3_extra_ns"].get<double>(), ms - mt, 0.02);
  else EXPECT_TRUE(j["measured_shuffle3_extra_ns"].is_null());
}

// A run whose threads did not have their CPUs gives no defaults: with a bar no thread can reach
// (CPU time above twice the wall time) every repetition is invalid, every figure and every derived
// parameter is null, each figure is named with its reason, and the program exits 3.
TEST(Calibrate, RefusesDefaultsWhenThreadsWereNotOnTheirCpus) {
  ASSERT_TRUE(have_java());
  const CalibrateRun r = calibrate("--min-cpu-ratio 2");
  EXPECT_EQ(r.status, 3);
  const auto& j = r.j;
  EXPECT_EQ(j.at("valid"), false);
  for (const char* k : {"thread_local_draw_ns", "shared_draw_ns", "shared_tight_2threads_ns_per_draw",
                        "line_transfer_ns", "model_shuffle3_extra_ns", "measured_shuffle3_extra_ns",
                        "pingpong_handoff_ns", "handoffs_per_draw", "failed_cas_per_draw"})
    EXPECT_TRUE(j.at(k).is_null()) << k;
  ASSERT_EQ(j.at("invalid").size(), std::size(kFigures));
  for (std::size_t i = 0; i < std::size(kFigures); ++i)
    EXPECT_EQ(j["invalid"][i].get<std::string>().rfind(std::string(kFigures[i]) + ": 0 of 3 repetitions", 0), 0u)
        << j["invalid"][i];
}

}  // namespace
}  // namespace lbsim
