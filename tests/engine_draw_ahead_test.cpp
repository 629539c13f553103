// Drawing operations ahead (RunOptions::draw_ahead, issue 14) is a prefetching device only: the
// k-th operation started gets the k-th draw with or without it, so every report must be the same
// byte for byte, whatever the policy, the client model or the faults. Debug builds also check
// at each start that the range found ahead is the operation's range.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/report/report_json.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace draw_ahead_test {

using testing::build;
using testing::cluster_doc;

RunResult run_with(const Scenario& sc, const PolicyEntry& e, DrawAhead mode) {
  RunOptions o;
  o.draw_ahead = mode;
  return run_simulation(sc, e, sc.seed, o);
}

// Every policy of `sc`, drawn ahead and not: identical reports (outside "engine").
void expect_same_reports(const Scenario& sc, std::uint64_t expect_measured) {
  for (const PolicyEntry& e : sc.policies) {
    const RunResult on = run_with(sc, e, DrawAhead::On), off = run_with(sc, e, DrawAhead::Off);
    EXPECT_TRUE(on.engine.draw_ahead) << e.name;
    EXPECT_FALSE(off.engine.draw_ahead) << e.name;
    EXPECT_EQ(on.measured_ops() + on.measured_errors(), expect_measured) << e.name;
    EXPECT_GT(on.measured_ops(), 0u) << e.name;
    EXPECT_EQ(report_json_stable(on).dump(), report_json_stable(off).dump()) << e.name;
  }
}

jsonin::Json many_policies(jsonin::Json doc) {
  doc["policies"] = jsonin::Json::parse(R"([
    {"name": "random", "policy": {"type": "TokenAware", "ordering": "RANDOM",
                                  "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}},
    {"name": "neutral", "policy": {"type": "TokenAware", "ordering": "NEUTRAL",
                                   "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}},
    {"name": "default4x", "policy": {"type": "Default4x", "local_dc": "dc1"}},
    {"name": "latency", "policy": {"type": "LatencyAware",
                                   "child": {"type": "TokenAware", "ordering": "RANDOM",
                                             "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}}},
    {"name": "rr", "policy": {"type": "RoundRobin"}}
  ])");
  return doc;
}

TEST(EngineDrawAhead, ClosedLoopReportsAreIdenticalForEveryPolicy) {
  expect_same_reports(build(many_policies(cluster_doc(30, 64, 8000))), 8000);
}

TEST(EngineDrawAhead, ShardAwareConnectionsAndQuorumsAreIdentical) {
  expect_same_reports(build(many_policies(cluster_doc(12, 48, 6000)),
                            {"client.connections=shard_aware", "workload.consistency.read=LOCAL_QUORUM",
                             "workload.consistency.write=LOCAL_QUORUM"}),
                      6000);
}

TEST(EngineDrawAhead, AnOverloadedOpenLoopWithBusyPoolFailuresIsIdentical) {
  // Operations refused by the in-flight cap still consume their draw.
  jsonin::Json doc = many_policies(cluster_doc(12, 1, 6000));
  doc["client"].erase("threads");
  doc["client"]["rate_ops_s"] = 200000;
  doc["client"]["max_in_flight"] = 64;
  const Scenario sc = build(std::move(doc));
  const RunResult on = run_with(sc, sc.policies.front(), DrawAhead::On);
  EXPECT_GT(on.measured_errors(), 0u);  // the cap did refuse operations
  expect_same_reports(sc, 6000);
}

TEST(EngineDrawAhead, ANodeGoingDownAndUpIsIdentical) {
  jsonin::Json doc = many_policies(cluster_doc(12, 48, 20000));
  doc["faults"] = jsonin::Json::parse(R"({"driver_detection_ms": 50, "server_detection_ms": 80,
      "events": [{"at_s": 0.2, "node": "n3", "kind": "down", "duration_s": 0.3}]})");
  doc["timeouts"] = jsonin::Json::parse(R"({"client_ms": 20})");
  const Scenario sc = build(std::move(doc));
  // The fault is inside the run: attempts sent to n3 before the driver noticed were retried.
  EXPECT_GT(run_with(sc, sc.policies.front(), DrawAhead::On).client.retries, 0u);
  expect_same_reports(sc, 20000);
}

TEST(EngineDrawAhead, AutoDrawsAheadExactlyWhenTheRingsTablesExceedOneMebibyte) {
  // 6 nodes x 16 tokens: a few KB of tables.
  const Scenario small = build(cluster_doc(6, 16, 2000));
  EXPECT_FALSE(testing::run_first(small).engine.draw_ahead);
  // 400 nodes x 256 tokens: 102,400 tokens, 820 KB of tokens, 512 KB of bucket bounds and
  // 2 x 1.2 MB of replica rows.
  jsonin::Json doc = cluster_doc(400, 64, 3000);
  doc["cluster"]["num_tokens"] = 256;
  const Scenario big = build(std::move(doc));
  EXPECT_GT(big.placement().lookup_bytes(), std::size_t{1} << 20);
  const RunResult autoed = testing::run_first(big);
  EXPECT_TRUE(autoed.engine.draw_ahead);
  const RunResult off = run_with(big, big.policies.front(), DrawAhead::Off);
  EXPECT_EQ(report_json_stable(autoed).dump(), report_json_stable(off).dump());
}

}  // namespace draw_ahead_test
}  // namespace lbsim
