// scripts/dev calibrate (scripts/calibrate/RngContention.java): a --quick run prints one JSON
// object with the three model parameters and their derivation. Timings are not asserted (the
// machine is shared); the structure and the arithmetic that turns measurements into parameters are.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace lbsim {
namespace {

namespace fs = std::filesystem;

TEST(Calibrate, QuickRunPrintsTheMeasuredParametersAsJson) {
  ASSERT_EQ(std::system("command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1"), 0)
      << "javac/java not found: scripts/dev calibrate installs openjdk-17-jdk-headless";
  const fs::path out = fs::temp_directory_path() / ("lbsim-calibrate-" + std::to_string(::getpid()));
  const std::string cmd = "bash " + std::string(LBSIM_SOURCE_DIR) + "/scripts/calibrate/run.sh " + out.string() +
                          " --quick 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string text;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << text;
  fs::remove_all(out);

  const auto j = nlohmann::json::parse(text);  // the whole of stdout is one JSON object
  for (const char* k : {"cpu", "jdk", "date"}) EXPECT_TRUE(j.at(k).is_string()) << k;
  for (const char* k : {"thread_local_draw_ns", "shared_draw_ns", "shared_tight_2threads_ns_per_draw",
                        "thread_local_tight_2threads_ns_per_draw", "line_transfer_ns", "model_shuffle3_extra_ns",
                        "measured_shuffle3_extra_ns", "pingpong_handoff_ns"})
    EXPECT_TRUE(j.at(k).is_number()) << k;
  const double tl = j["thread_local_draw_ns"], shared = j["shared_draw_ns"], tight = j["shared_tight_2threads_ns_per_draw"];
  EXPECT_GT(tl, 0);
  EXPECT_GT(shared, 0);
  // The critical-section derivation (configs/README.md, "client"), to the printed 2 decimals.
  EXPECT_NEAR(j["line_transfer_ns"].get<double>(), std::max(0.0, tight / 2 - shared), 0.02);
  EXPECT_NEAR(j["model_shuffle3_extra_ns"].get<double>(), j["line_transfer_ns"].get<double>() + 2 * (shared - tl), 0.03);
  ASSERT_EQ(j.at("shuffle3_with_work").size(), 2u);
  EXPECT_EQ(j["shuffle3_with_work"][0]["work_us"], 50);
  EXPECT_EQ(j["shuffle3_with_work"][1]["work_us"], 140);
  EXPECT_NEAR(j["measured_shuffle3_extra_ns"].get<double>(),
              j["shuffle3_with_work"][0]["shared_ns"].get<double>() - j["shuffle3_with_work"][0]["thread_local_ns"].get<double>(),
              0.02);
}

}  // namespace
}  // namespace lbsim
