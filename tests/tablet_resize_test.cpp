// Tablet count, split and merge per server release (issue 35, point 6): the count rule of a new
// table (sim/cluster/tablets.hpp tablet_count with TabletRules), one step of the resize rule
// (tablet_resize_target), the split and merge of a map (TabletMap::split / merge). The engine's
// resizing on configs/tablets-scale-out.json: sim/mech/placement/resize_scenarios_test.cpp.
// Sources and the rule x release table: configs/README.md "Tablet count, split and merge by release".
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim/cluster/tablets.hpp"
#include "sim/engine/model_spec.hpp"
#include "sim/mech/placement/placement_rules.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

TabletRules rules_of(ServerRelease r) { return tablet_rules(placement_rules(r)); }

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
