// Scenario warnings reach stderr in every output mode (issue 13: under --quiet they vanished), and
// the verdict warnings name the cause that applies (issue 34): failed operations (by kind and
// count), a closed loop's own loads, an open loop's backlog, the model's saturation bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;
using testing_files::slurp;

TEST(CliWarnings, ScenarioWarningsGoToStderrEvenWithQuiet) {
  const fs::path dir = fs::temp_directory_path() / ("lbsim-warn-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // An rf entry for a datacenter without nodes: Cassandra accepts it, lbsim warns.
  std::ofstream(dir / "s.json") << R"({"name": "warn",
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": 3}], "num_tokens": 4},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3, "dcX": 1}},
    "workload": {"ops": 200},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]})";
  for (const std::string mode : {"--quiet", "--json", ""}) {
    const std::string cmd = std::string(LBSIM_BINARY) + " run " + (dir / "s.json").string() + " " + mode + " --out " +
                            (dir / "out").string() + " --force >" + (dir / "stdout").string() + " 2>" +
                            (dir / "stderr").string();
    ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir / "stderr");
    EXPECT_NE(slurp(dir / "stderr").find("lbsim run: warning: /keyspace/rf/dcX: datacenter 'dcX' has no nodes"),
              std::string::npos)
        << "mode '" << mode << "'";
  }
  fs::remove_all(dir);
}

// Three nodes, one shard each, reads at ONE; n2 20x slower from the start. TokenAware RANDOM keeps
// sending a third of the reads to n2, Java 4.x's Default policy steers away from it. `client`,
// `workload` and `extra` (more top-level fields) complete the scenario.
std::string slow_node_scenario(const std::string& client, const std::string& workload, const std::string& extra = "") {
  return R"({"name": "causes",
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": 3}], "num_tokens": 8, "shards": 1},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}},
    "client": )" + client + R"(, "workload": )" + workload + extra + R"(,
    "faults": {"events": [{"at_s": 0, "node": "n2", "kind": "slow", "duration_s": 100, "factor": 20}]},
    "policies": [{"name": "random", "policy": {"type": "TokenAware", "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}},
                 {"name": "java4", "policy": {"type": "Default4x", "local_dc": "dc1"}}]})";
}

class VerdictWarnings : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lbsim-verdict-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // `lbsim run` on the scenario text (plus `options`); its stderr. The exit code must be `rc`.
  std::string run(const std::string& scenario, int rc = 0, const std::string& options = "") {
    std::ofstream(dir_ / "s.json") << scenario;
    const std::string cmd = std::string(LBSIM_BINARY) + " run " + (dir_ / "s.json").string() + " --quiet --force --out " +
                            (dir_ / "out").string() + " " + options + " >/dev/null 2>" + (dir_ / "stderr").string();
    EXPECT_EQ(testing_files::shell(cmd), rc) << slurp(dir_ / "stderr");
    return slurp(dir_ / "stderr");
  }
  // `lbsim compare` on the reports the last run wrote (the warnings `lbsim report` shows too).
  std::string compare() {
    const std::string cmd = std::string(LBSIM_BINARY) + " compare " + (dir_ / "out" / "causes").string() + " >" +
                            (dir_ / "compare").string() + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(dir_ / "compare");
    return slurp(dir_ / "compare");
  }
  fs::path dir_;
};

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// configs/drivers.json's case in small: an open loop whose RANDOM policy fails on client_busy.
// The warning names the errors by policy and kind, not a closed loop.
TEST_F(VerdictWarnings, OpenLoopErrorsAreNamedByKindAndCount) {
  const std::string err = run(slow_node_scenario(R"({"dc": "dc1", "rate_ops_s": 6000, "max_in_flight": 64})",
                                                 R"({"duration_s": 1, "warmup_s": 0, "mix": {"read": 1}, "consistency": {"read": "ONE"}})"));
  for (const std::string& text : {err, compare()}) {
    EXPECT_TRUE(has(text, "although every policy was offered the same open loop of 6,000 op/s")) << text;
    EXPECT_TRUE(has(text, "operations failed in the measurement window (random: client_busy 5,041; java4: none)")) << text;
    EXPECT_TRUE(has(text, "client_busy: more than client.max_in_flight operations outstanding")) << text;
    EXPECT_FALSE(has(text, "closed loop")) << text;
    EXPECT_FALSE(has(text, "fall behind")) << text;
  }
}

// A closed loop without errors: each policy runs at its own load.
TEST_F(VerdictWarnings, ClosedLoopThroughputDifferencesSayClosedLoop) {
  const std::string err = run(slow_node_scenario(R"({"dc": "dc1", "threads": 8})",
                                                 R"({"ops": 6000, "warmup_ops": 0, "mix": {"read": 1}, "consistency": {"read": "ONE"}})"));
  EXPECT_TRUE(has(err, "throughput differs by 941% between policies (random 703 op/s, java4 7,315 op/s): in a closed loop "
                       "each policy runs at its own load"))
      << err;
  EXPECT_FALSE(has(err, "failed")) << err;
  EXPECT_FALSE(has(err, "offered")) << err;
}

// An open loop without timeouts or shedding: RANDOM's queue on n2 grows for the whole run and no
// operation fails; the warning says it falls behind its arrivals.
TEST_F(VerdictWarnings, OpenLoopBacklogWithoutErrorsIsSaturation) {
  const std::string err =
      run(slow_node_scenario(R"({"dc": "dc1", "rate_ops_s": 6000})",
                             R"({"duration_s": 1, "warmup_s": 0, "mix": {"read": 1}, "consistency": {"read": "ONE"}})",
                             R"(, "timeouts": {"read_ms": 60000, "client_ms": 60000, "shed_expired": false})"));
  EXPECT_TRUE(has(err, "some policies complete fewer operations (successes and failures) than arrive (random 4,182 op/s): "
                       "they fall behind their arrivals"))
      << err;
  EXPECT_TRUE(has(err, "compare them at a lower client.rate_ops_s")) << err;
  EXPECT_FALSE(has(err, "closed loop")) << err;
  EXPECT_FALSE(has(err, "failed")) << err;
}

// Near the model's saturation bound (no fault): the saturation warning alone, whose advice fits the
// loop (a closed loop: an open loop at 70% of the bound; an open loop: a lower rate).
TEST_F(VerdictWarnings, SaturationWarningFitsTheLoop) {
  const std::string no_fault = R"("faults": {"events": [{"at_s": 0, "node": "n2", "kind": "slow", "duration_s": 100, "factor": 20}]},)";
  auto without_fault = [&](std::string s) { return s.replace(s.find(no_fault), no_fault.size(), ""); };
  const std::string wl = R"({"ops": 6000, "warmup_ops": 1000, "mix": {"read": 1}, "consistency": {"read": "ONE"}})";
  const std::string closed = run(without_fault(slow_node_scenario(R"({"dc": "dc1", "threads": 64})", wl)));
  EXPECT_TRUE(has(closed, "random runs at 98% of the model's saturation bound (13636 op/s)")) << closed;
  EXPECT_TRUE(has(closed, "compare policies in an open loop well below the bound (client.rate_ops_s, e.g. 9545 op/s: 70%)"))
      << closed;
  EXPECT_FALSE(has(closed, "throughput differs")) << closed;
  const std::string open = run(without_fault(slow_node_scenario(R"({"dc": "dc1", "rate_ops_s": 13000})", wl)));
  EXPECT_TRUE(has(open, "random runs at 92% of the model's saturation bound (13636 op/s)")) << open;
  EXPECT_TRUE(has(open, "compare policies at a lower client.rate_ops_s (now 13000 op/s)")) << open;
}

// Issue 34: the first run a newcomer makes, configs/default.json, printed three saturation warnings
// (a closed loop at 95-97% of the bound). It is an open loop at no more than 70% of the lowest
// bound `lbsim analyze` reports, and its run warns of nothing.
TEST_F(VerdictWarnings, TheDefaultScenarioRunsWellBelowSaturationWithoutWarnings) {
  const std::string file = std::string(LBSIM_SOURCE_DIR) + "/configs/default.json";
  ASSERT_EQ(testing_files::shell(std::string(LBSIM_BINARY) + " analyze " + file + " --json >" +
                                 (dir_ / "model.json").string()),
            0);
  const auto model = nlohmann::json::parse(slurp(dir_ / "model.json"));
  double lowest = 1e300;
  for (const auto& p : model["policies"]) lowest = std::min(lowest, p["saturation_ops_s"].get<double>());
  const auto scenario = nlohmann::json::parse(slurp(file));
  ASSERT_TRUE(scenario["client"].contains("rate_ops_s")) << "an open loop: every policy offered the same load";
  EXPECT_LE(scenario["client"]["rate_ops_s"].get<double>(), 0.7 * lowest);
  const std::string cmd = std::string(LBSIM_BINARY) + " run " + file + " --quiet --force --out " + (dir_ / "out").string() +
                          " >/dev/null 2>" + (dir_ / "stderr").string();
  ASSERT_EQ(testing_files::shell(cmd), 0);
  EXPECT_EQ(slurp(dir_ / "stderr"), "");
}

// A run in which no operation succeeds (its only node is down throughout) prints its table of
// zeros, keeps its report, and exits 1 naming the policy and its errors: never 0.
TEST_F(VerdictWarnings, RunWithoutASuccessfulOperationExitsOne) {
  const std::string scenario = R"({"name": "causes",
    "cluster": {"datacenters": [{"name": "dc1", "racks": 1, "nodes": 1}], "num_tokens": 4, "shards": 1},
    "keyspace": {"class": "SimpleStrategy", "rf": 1},
    "client": {"dc": "dc1", "threads": 4},
    "workload": {"ops": 200, "warmup_ops": 0, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
    "faults": {"driver_detection_ms": 0, "events": [{"at_s": 0, "node": "n1", "kind": "down", "duration_s": 1000}]},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]})";
  const std::string one = run(scenario, 1);
  EXPECT_TRUE(has(one, "lbsim run: error: no operation completed successfully in the measurement window: rr (failed: "
                       "no_host_available 200)"))
      << one;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "causes" / "rr.json"));
  const std::string seeds = run(scenario, 1, "--seeds 2");
  EXPECT_TRUE(has(seeds, "rr seed 1 (failed: no_host_available 200), rr seed 2 (failed: no_host_available 200)")) << seeds;
  // A sweep likewise: every point's runs are named (the node is down at both thread counts), the
  // sweep document is still written, and the exit code is 1.
  const std::string cmd = std::string(LBSIM_BINARY) + " sweep " + (dir_ / "s.json").string() +
                          " --set client.threads=2,4 --quiet --out " + (dir_ / "sweep").string() + " >/dev/null 2>" +
                          (dir_ / "stderr").string();
  EXPECT_EQ(testing_files::shell(cmd), 1) << slurp(dir_ / "stderr");
  const std::string sweep = slurp(dir_ / "stderr");
  EXPECT_TRUE(has(sweep, "lbsim sweep: error: no operation completed successfully in the measurement window of 2 run(s)"))
      << sweep;
  EXPECT_TRUE(has(sweep, "rr seed 1 (failed: no_host_available 200)")) << sweep;
  EXPECT_TRUE(fs::exists(dir_ / "sweep" / "sweep.json"));
}

// Issue 44: a change at or after a timed run's end does nothing; a shorter run may cut a scenario
// before its change on purpose (sim/mech/placement/streaming_scenarios_test.cpp measures before a
// join so), so it is a warning on stderr, once for all such changes, and the run goes on (exit 0).
TEST_F(VerdictWarnings, AChangeAfterTheRunsEndIsWarnedAboutOnce) {
  const std::string scenario = R"({"name": "late",
    "cluster": {"datacenters": [{"name": "dc1", "racks": 2, "nodes": 4}], "num_tokens": 4, "shards": 1},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 2}},
    "client": {"dc": "dc1", "threads": 2},
    "workload": {"duration_s": 0.5, "warmup_s": 0.5},
    "changes": {"events": [{"at_s": 0.2, "action": "add_node", "nodes": [{"dc": "dc1", "rack": "r2"}]},
                           {"at_s": 1000000, "action": "add_node", "nodes": [{"dc": "dc1", "rack": "r1"}]},
                           {"at_s": 1, "action": "decommission", "node": "n3"}], "streaming_s": 0.1},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]})";
  const std::string err = run(scenario, 0);
  const std::string warning = "lbsim run: warning: /changes/events/1/at_s: 1e+06 s is not before the run's end, 1 s "
                              "(workload.warmup_s + duration_s): this change and 1 more does nothing in this run";
  EXPECT_TRUE(has(err, warning)) << err;
  EXPECT_EQ(err.find("/changes/events/", err.find(warning) + warning.size()), std::string::npos) << err;
  // Before the end: no warning.
  const std::string early = run(scenario, 0, "--set changes.events.1.at_s=0.9 --set changes.events.2.at_s=0.95");
  EXPECT_FALSE(has(early, "/changes/events/")) << early;
}

}  // namespace
}  // namespace lbsim
