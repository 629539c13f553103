// The engine's resizing of a tablet table (issue 35, point 6; resize.cpp) on
// configs/tablets-scale-out.json, shortened: which releases split during the scale-out, how the
// balancer evens the split tablets, and when draining nodes count for the merge target. The count
// rule and one resize step by themselves: tests/tablet_resize_test.cpp. Sources and the rule x
// release table: configs/README.md "Tablet count, split and merge by release".
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim/config/scenario.hpp"
#include "sim_test_util.hpp"

namespace lbsim::resize_scenarios_test {

// configs/tablets-scale-out.json, shortened: 500 op/s for 100 s, the 3 nodes join at 58 s,
// migrations of 100 ms + 5,200 MiB at 5,200 MiB/s (1.1 s each, half after the split); the table
// keeps the shipped tablet size (its data decides 2025.1's count). The load-stats refresh at 60 s
// reports the split ready while migrations are in flight; it finalizes once they end.
RunResult scale_out(const std::string& server) {
  Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/tablets-scale-out.json",
                              {"cluster.server=" + server, "workload.duration_s=100", "client.rate_ops_s=500",
                               "/changes/events/0/at_s=58", "changes.migration.latency_ms=100",
                               "changes.migration.stream_mb_s=5200", "report.timeline_interval_s=10"});
  return run_simulation(sc, *sc.find_policy("random"), sc.seed);
}

TEST(TabletResize, ScaleOutSplitsUnder2025_2Only) {
  struct Want {
    std::string server;
    std::uint64_t start, end, splits;
  };
  for (const Want& w : {Want{"scylla-2025.2", 128, 256, 1}, Want{"scylla-2026.1", 128, 256, 1},
                        Want{"scylla-2025.1", 128, 128, 0}, Want{"unspecified", 128, 128, 0}}) {
    const RunResult r = scale_out(w.server);
    ASSERT_TRUE(r.tablets) << w.server;
    const TabletResult& t = *r.tablets;
    std::printf("%s: count %llu -> %llu, %llu splits, %llu merges, %llu of %llu migrations, %llu fallback, "
                "%llu payloads\n",
                w.server.c_str(), static_cast<unsigned long long>(t.count_start),
                static_cast<unsigned long long>(t.tablets), static_cast<unsigned long long>(t.splits),
                static_cast<unsigned long long>(t.merges), static_cast<unsigned long long>(t.migrations_done),
                static_cast<unsigned long long>(t.migrations_started), static_cast<unsigned long long>(t.fallback),
                static_cast<unsigned long long>(t.payloads));
    EXPECT_EQ(t.count_start, w.start) << w.server;
    EXPECT_EQ(t.tablets, w.end) << w.server;
    EXPECT_EQ(t.splits, w.splits) << w.server;
    EXPECT_EQ(t.merges, 0u) << w.server;
    // Every tablet replica is counted once per node at the end: count x RF.
    std::uint64_t replicas = 0;
    for (auto n : t.node_replicas) replicas += n;
    EXPECT_EQ(replicas, w.end * 3) << w.server;
    EXPECT_EQ(t.migrations_done, t.migrations_started) << w.server;  // the balancer finished
    // The driver's cache: with the warm cache and no split, a payload replaces an entry in place
    // and nothing falls back. After the split an old entry covers both halves; a payload for one
    // half deletes it, so the other half falls back until its own payload comes.
    if (w.splits == 0) EXPECT_EQ(t.fallback, 0u) << w.server;
    else EXPECT_GT(t.fallback, 0u) << w.server;
  }
}

// After the split the balancer evens the 256 tablets over 42 shards: 768 replicas, 128 per node
// (the 2025.1 run keeps 64 per node of its 128 tablets).
TEST(TabletResize, ScaleOutEvensTheSplitTablets) {
  const RunResult r = scale_out("scylla-2025.2");
  ASSERT_TRUE(r.tablets);
  ASSERT_EQ(r.tablets->node_replicas.size(), 6u);
  for (auto n : r.tablets->node_replicas) EXPECT_EQ(n, 128u);
  // A split halves the tablets, so the migrations after it stream half as much: the MB received
  // (the window is the whole run) stay below migrations x the pre-split 5,200 MB.
  double received = 0;
  for (const auto& n : r.nodes)
    if (n.streaming) received += n.streaming->received_mb;
  EXPECT_GT(received, 0.0);
  EXPECT_LT(received, static_cast<double>(r.tablets->migrations_done) * 5200.0 - 1.0);
  // perf-load-balancing's overcommit at the end (tablets.overcommit): 768 replicas on 42 shards,
  // ideal 18.29 per shard; every node at the ideal, and no shard above 19 (the best, 19 / 18.29).
  EXPECT_DOUBLE_EQ(r.tablets->overcommit_node, 1.0);
  EXPECT_DOUBLE_EQ(r.tablets->best_node, 1.0);
  EXPECT_NEAR(r.tablets->best_shard, 19.0 / (768.0 / 42.0), 1e-12);
  EXPECT_NEAR(r.tablets->overcommit_shard, r.tablets->best_shard, 1e-12);
  const RunResult old = scale_out("scylla-2025.1");
  for (auto n : old.tablets->node_replicas) EXPECT_EQ(n, 64u);
  // 384 replicas on 42 shards, ideal 9.14: the best is 10 per shard.
  EXPECT_NEAR(old.tablets->best_shard, 10.0 / (384.0 / 42.0), 1e-12);
  EXPECT_NEAR(old.tablets->overcommit_shard, old.tablets->best_shard, 1e-12);
}

// The draining rule (2025.2 counts draining nodes in a DC's shards for the resize target; 2026.1
// leaves them out: make_sizing_plan's !n.is_draining(), commit a009644c7d). A 6-node table of
// 1,000 MiB tablets (below the merge threshold of 2,560 MiB) is held at 256 tablets by the
// 42-shard minimum; when 3 nodes are decommissioned at 10 s, 2026.1 wants the merge at once (21
// shards: minimum 128), 2025.2 only once the drained nodes have left. Merges wait for sibling
// co-location, which lbsim's balancer does not do, so the run reports the decision as a warning
// naming its time.
double merge_decision_s(const std::string& server) {
  Scenario sc = load_scenario(
      std::string(LBSIM_SOURCE_DIR) + "/configs/tablets-scale-out.json",
      {"cluster.server=" + server, "workload.duration_s=60", "client.rate_ops_s=500",
       R"(cluster.datacenters=[{"name": "dc1", "racks": 3, "nodes": 6}])",
       R"(changes.events=[{"at_s": 10, "action": "decommission", "node": "n4"},
                          {"at_s": 10, "action": "decommission", "node": "n5"},
                          {"at_s": 10, "action": "decommission", "node": "n6"}])",
       "changes.migration.latency_ms=100", "changes.migration.table_size_mb=256000",
       "changes.migration.stream_mb_s=1000"});
  const RunResult r = run_simulation(sc, *sc.find_policy("random"), sc.seed);
  for (const std::string& w : r.warnings) {
    const auto at = w.find("would merge");
    if (at == std::string::npos) continue;
    const auto t = w.find(" at ", at);
    std::printf("%s: %s\n", server.c_str(), w.c_str());
    return std::stod(w.substr(t + 4));
  }
  return -1;
}

TEST(TabletResize, DrainingNodesCountForTheTargetUntil2026_1) {
  const double s2025 = merge_decision_s("scylla-2025.2");
  const double s2026 = merge_decision_s("scylla-2026.1");
  EXPECT_NEAR(s2026, 10.0, 1e-9);  // the decommission itself
  EXPECT_GT(s2025, 10.5);          // after the drain: 256 replicas per node leave at 1.1 s each, 2 at a time
  EXPECT_LT(s2025, 60.0);
}

}  // namespace lbsim::resize_scenarios_test
