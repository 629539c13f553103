// Golden and determinism tests. configs/default.json at its seed must give exactly the committed
// reports in tests/golden/ (everything outside "engine"). To regenerate deliberately:
//   LBSIM_UPDATE_GOLDEN=1 ./build/tests/lbsim_tests --gtest_filter='Golden*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "sim/report/report_json.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

std::string golden_path(const std::string& policy) {
  return std::string(LBSIM_SOURCE_DIR) + "/tests/golden/default_" + policy + ".json";
}

TEST(Golden, DefaultScenarioMatchesTheCommittedReports) {
  const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/default.json");
  const bool update = std::getenv("LBSIM_UPDATE_GOLDEN") != nullptr;
  for (const auto& p : sc.policies) {
    const std::string got = report_json_stable(run_simulation(sc, p, sc.seed)).dump(1) + "\n";
    if (update) {
      write_file_atomic(golden_path(p.name), got);
      continue;
    }
    std::ifstream in(golden_path(p.name));
    ASSERT_TRUE(in) << "missing " << golden_path(p.name) << " (regenerate with LBSIM_UPDATE_GOLDEN=1)";
    std::stringstream want;
    want << in.rdbuf();
    EXPECT_EQ(got, want.str()) << p.name << ": the report changed; if deliberate, regenerate the golden files";
  }
}

TEST(Determinism, SameSeedTwiceIsByteIdenticalOutsideEngine) {
  const Scenario sc = testing::build(testing::cluster_doc(6, 32, 20000));
  for (const auto& p : sc.policies) {
    const auto a = report_json_stable(run_simulation(sc, p, 5)).dump();
    const auto b = report_json_stable(run_simulation(sc, p, 5)).dump();
    EXPECT_EQ(a, b) << p.name;
    const auto c = report_json_stable(run_simulation(sc, p, 6)).dump();
    EXPECT_NE(a, c) << "another seed must give another run";
  }
}

TEST(Determinism, TwoSimulationsInParallelThreadsMatchSequentialRuns) {
  const Scenario sc = testing::build(testing::cluster_doc(6, 32, 20000));
  std::string seq[2], par[2];
  for (int i = 0; i < 2; ++i) seq[i] = report_json_stable(run_simulation(sc, sc.policies[i], 9)).dump();
  std::thread t0([&] { par[0] = report_json_stable(run_simulation(sc, sc.policies[0], 9)).dump(); });
  std::thread t1([&] { par[1] = report_json_stable(run_simulation(sc, sc.policies[1], 9)).dump(); });
  t0.join();
  t1.join();
  EXPECT_EQ(seq[0], par[0]);
  EXPECT_EQ(seq[1], par[1]);
}

TEST(ReportJson, HasTheSchemaFieldsAndEngineLast) {
  const Scenario sc = testing::build(testing::cluster_doc(6, 8, 2000));
  const auto j = report_json(testing::run_first(sc));
  EXPECT_EQ(j["schema"], "lbsim.report/1");
  for (const char* k : {"scenario", "policy", "seed", "ops", "errors", "throughput_ops_s", "latency_ms", "by_op", "nodes",
                        "imbalance", "client", "timeline", "histogram", "engine"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ((--j.end()).key(), "engine");
  EXPECT_EQ(j["nodes"].size(), 6u);
  for (const char* k : {"mean", "p50", "p95", "p99", "p999", "max"}) EXPECT_TRUE(j["latency_ms"].contains(k)) << k;
}

TEST(ReportFile, AtomicWriteLeavesNoTemporaryAndFailsCleanly) {
  const std::string dir = ::testing::TempDir() + "lbsim_atomic";
  const std::string file = report_path(dir, "s", "p");
  write_file_atomic(file, "one\n");
  write_file_atomic(file, "two\n");
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "two");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir + "/s")) ++entries;
  EXPECT_EQ(entries, 1u);
  EXPECT_THROW(write_file_atomic("/proc/lbsim/cannot/write.json", "x"), IoError);
}

}  // namespace
}  // namespace lbsim
