// Issue 44, point 12: one warning per mechanism whose warm-up the run's end falls short of
// (sim/config/scenario_warmup.cpp): the percentile speculative_retry threshold's first refresh
// (Cassandra, ScyllaDB), the dynamic snitch's first scores, HWLB's first meter tick.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/config/scenario.hpp"
#include "sim_test_util.hpp"

namespace lbsim::warmup_warnings_test {

using testing::build;
using testing::run_first;

bool has_warning(const std::vector<std::string>& ws, const std::string& fragment) {
  return std::any_of(ws.begin(), ws.end(), [&](const std::string& w) { return w.find(fragment) != std::string::npos; });
}

// A duration-mode run (its end, warm-up + duration, is known when the scenario loads).
jsonin::Json short_run(const std::string& server, double duration_s) {
  auto doc = testing::cluster_doc(3, 8, 100);
  doc["workload"].erase("ops");
  doc["workload"].erase("warmup_ops");
  doc["workload"]["duration_s"] = duration_s;
  doc["workload"]["warmup_s"] = 0;
  if (!server.empty()) doc["cluster"]["server"] = server;
  return doc;
}

TEST(WarmupWarnings, CassandraPercentileSpeculativeRetryBeforeItsFirstRefresh) {
  auto doc = short_run("cassandra-4.1", 3);
  doc["cluster"]["speculative_retry"] = "99.0PERCENTILE";
  doc["cluster"]["dynamic_snitch"] = false;
  const Scenario sc = build(doc);
  EXPECT_TRUE(has_warning(sc.warnings,
                          "cluster.speculative_retry '99.0PERCENTILE' warms up at 5 s: under cluster.server "
                          "'cassandra-4.1' the threshold is read_request_timeout / 2 (2.5 s) until its first refresh "
                          "one read_request_timeout (timeouts.read_ms) after the start; the run ends at 3 s"))
      << ::testing::PrintToString(sc.warnings);
  EXPECT_EQ(std::count_if(sc.warnings.begin(), sc.warnings.end(),
                          [](const std::string& w) { return w.find("warms up") != std::string::npos; }),
            1);
  doc["workload"]["duration_s"] = 6;
  EXPECT_FALSE(has_warning(build(doc).warnings, "warms up"));
}

TEST(WarmupWarnings, ScyllaPercentileSpeculativeRetryBeforeItsFirstRecomputation) {
  auto doc = short_run("scylla-2025.1", 0.5);
  doc["cluster"]["speculative_retry"] = "99.0PERCENTILE";
  EXPECT_TRUE(has_warning(build(doc).warnings,
                          "cluster.speculative_retry '99.0PERCENTILE' warms up at 1 s: under cluster.server "
                          "'scylla-2025.1' a coordinator's threshold, computed at its first read from an empty "
                          "histogram, is the 1 ms floor until it is recomputed more than 1 s later; the run ends at "
                          "0.5 s"));
  doc["workload"]["duration_s"] = 2;
  EXPECT_FALSE(has_warning(build(doc).warnings, "warms up"));
}

TEST(WarmupWarnings, DynamicSnitchBeforeItsFirstScores) {
  auto doc = short_run("cassandra-3.11", 0.05);
  EXPECT_TRUE(has_warning(build(doc).warnings,
                          "cluster.dynamic_snitch warms up at 0.1 s: its first scores come at the first update "
                          "(dynamic_snitch_update_interval, cluster.dynamic_snitch.update_interval_ms), before which "
                          "replicas keep the proximity order; the run ends at 0.05 s"));
  doc["workload"]["warmup_s"] = 0.1;  // ends at 0.15 s
  EXPECT_FALSE(has_warning(build(doc).warnings, "warms up"));
  // A run of a number of operations: the engine warns at its end (the report's warnings).
  auto ops = short_run("cassandra-3.11", 1);
  ops["workload"].erase("duration_s");
  ops["workload"].erase("warmup_s");
  ops["workload"]["ops"] = 200;
  const Scenario sc = build(ops);
  EXPECT_FALSE(has_warning(sc.warnings, "warms up"));
  const RunResult r = run_first(sc);
  EXPECT_TRUE(has_warning(r.warnings, "cluster.dynamic_snitch warms up at 0.1 s"));
  EXPECT_LT(to_sec(r.window_start + r.window), 0.1);
}

TEST(WarmupWarnings, HeatWeightedBalancingBeforeTheMetersFirstTick) {
  auto doc = short_run("scylla-2025.1", 5);
  doc["cluster"]["cache"] = jsonin::Json::parse(R"({"capacity_mb": 64, "partition_size": 1000, "initial": "warm"})");
  EXPECT_TRUE(has_warning(build(doc).warnings,
                          "cluster.cache_hit_rate_read_balancing warms up at 10 s: the row cache's hit and miss "
                          "meters (1-minute moving averages) first tick at 10 s and read 0 before it, so no hit rate "
                          "is known; the run ends at 5 s"));
  doc["workload"]["duration_s"] = 10;
  EXPECT_FALSE(has_warning(build(doc).warnings, "warms up"));
}

}  // namespace lbsim::warmup_warnings_test
