// ScyllaDB tablets (issue 11, first part): the count rule, the pow2 index and last tokens, and the
// placement invariants on random clusters. The rules are scylladb/scylladb's (see
// sim/cluster/tablets.hpp for the files and commits); the vectors are worked from them:
// - E1 (the density check): 21 shards in a DC with RF 3 give ceil(10 x 21 / 3) = 70 -> 128 tablets,
//   about 18.3 replicas per shard, which matches the "18 vs 19 tablets per shard" reported in
//   scylladb/scylladb#20921; commit 2463e524ed's own example (4 nodes x 1 shard, RF 3 -> 14) and
//   the 2023 rule of commit 4c4a9679d8 (scale factor 1) are checked too;
// - the last tokens of N = 8 pow2 tablets follow from last[i] = (i+1) 2^61 - 1 - 2^63.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "sim/cluster/tablets.hpp"

namespace lbsim {
namespace {

TEST(TabletCount, CurrentRuleVectors) {
  const TabletOptions dflt;
  // E1: 21 shards in the DC, RF 3: ceil(10 x 21 / 3) = 70 -> 128 (18.3 replicas per shard).
  const DcShards dc21[] = {{21, 3}};
  EXPECT_EQ(tablet_count(dflt, dc21), 128u);
  // 42 shards: 140 -> 256, the same density.
  const DcShards dc42[] = {{42, 3}};
  EXPECT_EQ(tablet_count(dflt, dc42), 256u);
  // Commit 2463e524ed's example: 4 nodes x 1 shard, RF 3 -> 14 before rounding -> 16.
  const DcShards dc4[] = {{4, 3}};
  EXPECT_EQ(tablet_count(dflt, dc4), 16u);
  // The 2023 rule (scale factor 1): 21 shards, RF 3 -> 7 -> 8.
  TabletOptions old;
  old.initial_scale_factor = 1;
  EXPECT_EQ(tablet_count(old, dc21), 8u);
  // The largest DC decides.
  const DcShards two[] = {{21, 3}, {42, 3}};
  EXPECT_EQ(tablet_count(dflt, two), 256u);
}

TEST(TabletCount, ExplicitSettingsAndTheGoalCap) {
  const DcShards dc21[] = {{21, 3}};
  TabletOptions o;
  o.min_tablet_count = 300;  // replaces the scale factor: 300 -> 512
  EXPECT_EQ(tablet_count(o, dc21), 512u);
  o.min_tablet_count = 5;  // below the scale-factor minimum, which no longer applies
  EXPECT_EQ(tablet_count(o, dc21), 8u);
  o.min_per_shard_tablet_count = 20;  // ceil(20 x 21 / 3) = 140 -> 256
  EXPECT_EQ(tablet_count(o, dc21), 256u);
  // tablets_per_shard_goal 100: at most floor(100 x 21 / 3) = 700, then rounded up to 1024
  // (the goal can be overshot by up to 2x).
  TabletOptions big;
  big.min_tablet_count = 100000;
  EXPECT_EQ(tablet_count(big, dc21), 1024u);
  TabletOptions init;
  init.initial = 3;
  EXPECT_EQ(tablet_count(init, dc21), 4u);
}

TEST(TabletIndex, Pow2VectorsOfSection1) {
  // N = 8.
  const Token last[] = {-6917529027641081857LL, -4611686018427387905LL, -2305843009213693953LL, -1,
                        2305843009213693951LL,  4611686018427387903LL,  6917529027641081855LL,
                        9223372036854775807LL};
  const int k = tablet_log2(8);
  ASSERT_EQ(k, 3);
  for (std::uint64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(tablet_last_token(i, k), last[i]) << i;
    EXPECT_EQ(tablet_index(last[i], k), i) << i;  // a tablet owns (last[i-1], last[i]]
    if (i > 0) {
      EXPECT_EQ(tablet_index(last[i - 1] + 1, k), i) << i;
    }
  }
  EXPECT_EQ(tablet_index(0, k), 4u);
  EXPECT_EQ(tablet_index(kMinToken, k), 0u);
  EXPECT_EQ(tablet_index(12345, 0), 0u);  // one tablet owns everything
}

Topology random_cluster(Rng& r, int dcs, int racks, int nodes_per_rack) {
  std::vector<NodeSpec> nodes;
  for (int d = 0; d < dcs; ++d)
    for (int k = 0; k < racks; ++k)
      for (int n = 0; n < nodes_per_rack; ++n)
        nodes.push_back({"d" + std::to_string(d) + "r" + std::to_string(k) + "n" + std::to_string(n),
                         "dc" + std::to_string(d), "rack" + std::to_string((k * 7 + 3) % racks),
                         {static_cast<Token>(r.next_u64())}});
  return Topology::build(nodes);
}

TEST(TabletPlacement, InvariantsOnRandomClusters) {
  Rng r(41);
  for (int trial = 0; trial < 30; ++trial) {
    const int dcs = 1 + static_cast<int>(r.below(2));
    const int racks = 1 + static_cast<int>(r.below(4));
    const int per_rack = 1 + static_cast<int>(r.below(3));
    const Topology topo = random_cluster(r, dcs, racks, per_rack);
    std::vector<std::uint32_t> shards(topo.size());
    for (auto& s : shards) s = 1 + static_cast<std::uint32_t>(r.below(8));
    std::vector<int> rf(topo.dcs.size());
    std::vector<DcShards> dc(topo.dcs.size());
    for (std::size_t d = 0; d < rf.size(); ++d) {
      rf[d] = 1 + static_cast<int>(r.below(static_cast<std::uint64_t>(std::min(3, racks * per_rack))));
      dc[d].rf = rf[d];
      for (NodeId n = 0; n < topo.size(); ++n)
        if (topo.node_dc[n] == d) dc[d].shards += shards[n];
    }
    const std::uint64_t count = tablet_count({}, dc);
    const TabletMap m = TabletMap::allocate(topo, shards, rf, count, Rng(trial));
    ASSERT_EQ(m.count(), count);
    std::vector<std::vector<int>> per_shard(topo.size());
    for (NodeId n = 0; n < topo.size(); ++n) per_shard[n].assign(shards[n], 0);
    for (std::uint64_t t = 0; t < count; ++t) {
      const auto reps = m.replicas(t);
      std::set<NodeId> hosts;
      std::map<std::uint32_t, int> per_dc;
      std::map<std::uint32_t, int> rack_replicas;
      for (const auto& rep : reps) {
        ASSERT_LT(rep.host, topo.size());
        ASSERT_LT(rep.shard, shards[rep.host]);
        EXPECT_TRUE(hosts.insert(rep.host).second) << "two replicas of tablet " << t << " on one node";
        ++per_dc[topo.node_dc[rep.host]];
        ++rack_replicas[topo.node_rack[rep.host]];
        ++per_shard[rep.host][rep.shard];
      }
      for (std::size_t d = 0; d < rf.size(); ++d) EXPECT_EQ(per_dc[static_cast<std::uint32_t>(d)], rf[d]);
      // Racks are used evenly: no rack holds two replicas while another rack of the DC holds none.
      for (std::size_t d = 0; d < rf.size(); ++d) {
        int lo = 1 << 30, hi = 0;
        for (std::uint32_t rk = 0; rk < topo.racks.size(); ++rk)
          if (topo.rack_dc[rk] == d) {
            lo = std::min(lo, rack_replicas[rk]);
            hi = std::max(hi, rack_replicas[rk]);
          }
        EXPECT_LE(hi - lo, 1) << "tablet " << t;
      }
    }
    // Each node's shards differ by at most one tablet replica (least-loaded shard).
    for (NodeId n = 0; n < topo.size(); ++n) {
      const auto [lo, hi] = std::minmax_element(per_shard[n].begin(), per_shard[n].end());
      EXPECT_LE(*hi - *lo, 1) << "node " << topo.nodes[n].id;
    }
  }
}

TEST(TabletPlacement, E1DensityThreeNodesSevenShards) {
  // 3 nodes x 7 shards, one per rack, RF 3: 128 tablets, every node holds all 128 (one replica per
  // rack), so each shard holds 18 or 19 (scylladb#20921's "18 vs 19 tablets per shard").
  std::vector<NodeSpec> nodes;
  for (int i = 0; i < 3; ++i) nodes.push_back({"n" + std::to_string(i + 1), "dc1", "r" + std::to_string(i + 1), {Token(i)}});
  const Topology topo = Topology::build(nodes);
  const std::vector<std::uint32_t> shards(3, 7);
  const std::vector<int> rf{3};
  const DcShards dc[] = {{21, 3}};
  const TabletMap m = TabletMap::allocate(topo, shards, rf, tablet_count({}, dc), Rng(1));
  ASSERT_EQ(m.count(), 128u);
  std::map<std::pair<NodeId, std::uint32_t>, int> load;
  for (std::uint64_t t = 0; t < m.count(); ++t)
    for (const auto& rep : m.replicas(t)) ++load[{rep.host, rep.shard}];
  ASSERT_EQ(load.size(), 21u);
  for (const auto& [key, n] : load) EXPECT_TRUE(n == 18 || n == 19) << n;
  // The rack rotation puts each node first in a third of the tablets.
  std::map<NodeId, int> first;
  for (std::uint64_t t = 0; t < m.count(); ++t) ++first[m.replicas(t)[0].host];
  for (const auto& [h, n] : first) EXPECT_NEAR(n, 128 / 3.0, 1.0);
}

}  // namespace
}  // namespace lbsim
