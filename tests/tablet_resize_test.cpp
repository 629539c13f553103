// Tablet count, split and merge per server release (issue 35, point 6): the count rule of a new
// table (sim/cluster/tablets.hpp tablet_count with TabletRules), one step of the resize rule
// (tablet_resize_target), the split and merge of a map (TabletMap::split / merge) and the engine's
// resizing (sim/engine/sim_tablet_resize.cpp) on configs/tablets-scale-out.json, shortened.
// Sources and the rule x release table: configs/README.md "Tablet count, split and merge by release".
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim/cluster/tablets.hpp"
#include "sim/engine/model_spec.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

TabletRules rules_of(ServerRelease r) { return tablet_rules(server_rules(r)); }

TEST(TabletResize, CountRuleByRelease) {
  const TabletOptions dflt;
  const DcShards dc21[] = {{21, 3}};  // 3 nodes x 7 shards, RF 3
  const DcShards dc4[] = {{4, 3}};    // commit 2463e524ed's example: 4 nodes x 1 shard, RF 3
  // lbsim's own rule (unspecified) is 2025.2's: ceil(10 x 21 / 3) = 70 -> 128; 14 -> 16.
  for (ServerRelease r : {ServerRelease::Unspecified, ServerRelease::Scylla2025_2, ServerRelease::Scylla2026_1}) {
    EXPECT_EQ(tablet_count(dflt, dc21, rules_of(r)), 128u);
    EXPECT_EQ(tablet_count(dflt, dc4, rules_of(r)), 16u);
  }
  // 6.0-2025.1: ceil(shards / RF) x scale factor 1: 7 -> 8; ceil(4 / 3) = 2.
  const TabletRules r251 = rules_of(ServerRelease::Scylla2025_1);
  EXPECT_EQ(tablet_count(dflt, dc21, r251), 8u);
  EXPECT_EQ(tablet_count(dflt, dc4, r251), 2u);
  // The scale factor multiplied the rounded-up quotient before f043c83ba5: 2 x 10 = 20 -> 32,
  // where 2025.2's ceil(10 x 4 / 3) = 14 gives 16.
  TabletOptions ten;
  ten.initial_scale_factor = 10;
  EXPECT_EQ(tablet_count(ten, dc4, r251), 32u);
  EXPECT_EQ(tablet_count(ten, dc4, rules_of(ServerRelease::Scylla2025_2)), 16u);
  // No goal cap before 2025.2 (f1bda8d4c1): scale 1000 on 21 shards, RF 3: 7,000 -> 8,192, where
  // 2025.2 caps at floor(100 x 21 / 3) = 700 -> 1,024.
  TabletOptions huge;
  huge.initial_scale_factor = 1000;
  EXPECT_EQ(tablet_count(huge, dc21, r251), 8192u);
  EXPECT_EQ(tablet_count(huge, dc21, rules_of(ServerRelease::Scylla2025_2)), 1024u);
  // 2024.1 (5.4 base): initial_tablets only, rounded up.
  TabletOptions init;
  init.initial = 5;
  EXPECT_EQ(tablet_count(init, dc21, rules_of(ServerRelease::Scylla2024_1)), 8u);
  EXPECT_EQ(tablet_count(init, dc21, r251), 8u);
}

TEST(TabletResize, ResizeStepByRelease) {
  const TabletOptions dflt;
  const DcShards dc21[] = {{21, 3}}, dc42[] = {{42, 3}};
  const double table = 128 * 5200.0;  // tablets-scale-out: 5,200 MiB per tablet at 128 tablets
  const TabletRules r251 = rules_of(ServerRelease::Scylla2025_1), r252 = rules_of(ServerRelease::Scylla2025_2);
  // Growth 21 -> 42 shards: 2025.2's minimum ceil(10 x 42 / 3) = 140 -> 256 splits; 2025.1 resizes
  // by size only (5,200 MiB is inside [2,560, 10,240]): no split. Without resizing: none.
  EXPECT_EQ(tablet_resize_target(dflt, dc42, r252, 128, table, 0, false), 256u);
  EXPECT_EQ(tablet_resize_target(dflt, dc42, r251, 128, table, 0, false), 128u);
  EXPECT_EQ(tablet_resize_target(dflt, dc42, rules_of(ServerRelease::Unspecified), 128, table, 0, false), 128u);
  EXPECT_EQ(tablet_resize_target(dflt, dc21, r252, 128, table, 0, false), 128u);
  // One step at a time: 21 -> 84 shards wants 512, the step is 256.
  const DcShards dc84[] = {{84, 3}};
  EXPECT_EQ(tablet_resize_target(dflt, dc84, r252, 128, table, 0, false), 256u);
  // Size: 8 tablets of 83,200 MiB (> 2 x 5 GiB) split under both.
  EXPECT_EQ(tablet_resize_target(dflt, dc21, r251, 8, table, 0, false), 16u);
  EXPECT_EQ(tablet_resize_target(dflt, dc21, r252, 8, table, 0, false), 16u);
  // Merge: 256 tablets of 1,000 MiB (< 2,560) on 21 shards (a scale-in): 2025.2 merges down to
  // its minimum (70 -> 128); 2025.1 only once the table has split before (growing mode).
  const double small = 256 * 1000.0;
  EXPECT_EQ(tablet_resize_target(dflt, dc21, r252, 256, small, 0, false), 128u);
  EXPECT_EQ(tablet_resize_target(dflt, dc42, r252, 256, small, 0, false), 256u);  // held by 140 -> 256
  EXPECT_EQ(tablet_resize_target(dflt, dc21, r251, 256, small, 0, false), 256u);
  EXPECT_EQ(tablet_resize_target(dflt, dc21, r251, 256, small, 0, true), 128u);
  // 2025.2's hysteresis: a split in progress stays wanted while the average is >= the target
  // (5,120 MiB), so 64 tablets of 6,000 MiB keep splitting; without a decision they would not.
  EXPECT_EQ(tablet_resize_target(dflt, dc21, r252, 128, 128 * 6000.0, 1, false), 256u);
  EXPECT_EQ(tablet_resize_target(dflt, dc21, r252, 128, 128 * 6000.0, 0, false), 128u);
}

TEST(TabletResize, LoadedCountAtTheStart) {
  const TabletOptions dflt;
  const DcShards dc21[] = {{21, 3}};
  const double table = 128 * 5200.0;
  std::uint64_t splits = 0;
  // 2025.1 creates 8 tablets and its size splits them: 8 -> 16 -> 32 -> 64 (10,400 MiB > 10,240)
  // -> 128.
  EXPECT_EQ(tablet_count_loaded(dflt, dc21, rules_of(ServerRelease::Scylla2025_1), table, &splits), 128u);
  EXPECT_EQ(splits, 4u);
  // An empty table stays at its creation count.
  EXPECT_EQ(tablet_count_loaded(dflt, dc21, rules_of(ServerRelease::Scylla2025_1), 0, &splits), 8u);
  EXPECT_EQ(splits, 0u);
  // 2025.2: the topology minimum (128) already holds the data.
  EXPECT_EQ(tablet_count_loaded(dflt, dc21, rules_of(ServerRelease::Scylla2025_2), table, &splits), 128u);
  EXPECT_EQ(splits, 0u);
  // A large table splits beyond it: 128 x 30,000 MiB -> 512 (7,500 MiB).
  EXPECT_EQ(tablet_count_loaded(dflt, dc21, rules_of(ServerRelease::Scylla2025_2), 128 * 30000.0), 512u);
}

TEST(TabletResize, SplitInheritsReplicasAndMergeRestores) {
  // 4 tablets, RF 2, replicas in allocation order.
  std::vector<TabletReplica> reps{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 1}, {2, 2}, {0, 0}, {2, 1}};
  const TabletMap m = TabletMap::from_replicas(4, 2, reps);
  const TabletMap s = m.split();
  ASSERT_EQ(s.count(), 8u);
  EXPECT_EQ(s.log2_count(), 3);
  for (std::uint64_t t = 0; t < 8; ++t) {
    ASSERT_EQ(s.replicas(t).size(), 2u);
    EXPECT_EQ(s.replicas(t)[0], m.replicas(t / 2)[0]) << t;  // order kept (scylladb#17752)
    EXPECT_EQ(s.replicas(t)[1], m.replicas(t / 2)[1]) << t;
  }
  // A token of tablet i (of 4) is in 2i or 2i + 1 (of 8): the first half in 2i.
  for (std::uint64_t i = 0; i < 4; ++i) {
    const Token last = tablet_last_token(i, 2);
    EXPECT_EQ(tablet_index(last, 3), 2 * i + 1);
    EXPECT_EQ(tablet_index(tablet_last_token(2 * i, 3), 3), 2 * i);
    EXPECT_EQ(tablet_index(tablet_last_token(2 * i, 3), 2), i);
  }
  EXPECT_TRUE(s.siblings_colocated());
  EXPECT_FALSE(m.siblings_colocated());
  const TabletMap back = s.merge();
  EXPECT_EQ(back.all(), m.all());
}

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

TEST(TabletResize, ReleaseCountRulesRefuseWhatTheyLack) {
  auto doc = testing::cluster_doc(3, 8, 100);
  doc["cluster"]["shards"] = 7;
  doc["cluster"]["discipline"] = "per_shard";
  doc["keyspace"] = {{"class", "NetworkTopologyStrategy"}, {"rf", {{"dc1", 3}}}, {"tablets", true}};
  doc["cluster"]["server"] = "scylla-2024.1";
  EXPECT_THROW(testing::build(doc), ConfigError);
  doc["keyspace"]["tablets"] = {{"initial", 20}};
  EXPECT_EQ(testing::build(doc).tablet_map->count(), 32u);
  doc["cluster"]["server"] = "scylla-2025.1";
  doc["keyspace"]["tablets"] = {{"min_tablet_count", 20}};
  EXPECT_THROW(testing::build(doc), ConfigError);
  doc["cluster"]["server"] = "scylla-2025.2";
  EXPECT_EQ(testing::build(doc).tablet_map->count(), 32u);
  // Without a tablet size (no changes) 2025.1 keeps its creation count: 8.
  doc["cluster"]["server"] = "scylla-2025.1";
  doc["keyspace"]["tablets"] = true;
  EXPECT_EQ(testing::build(doc).tablet_map->count(), 8u);
}

}  // namespace
}  // namespace lbsim
