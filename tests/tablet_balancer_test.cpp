// ScyllaDB tablet load balancer (sim/cluster/tablet_balancer.hpp, which names the scylladb/scylladb
// files it follows): placement invariants on random clusters with migrations left in flight, the
// in/out slot limits, drains, the strict-improvement rule, intra-node moves and the 8-step
// convergence check called E10 here. E10 compares with ScyllaDB's own `scylla perf-load-balancing`
// runs of 8 bootstrap/decommission steps: with per-table candidate scoring (scylladb/scylladb PR
// #19779: 5 nodes x 32 shards, tables of 128 and 512 tablets, RF 3) the worst node overcommit
// (max load / mean) fell from 1.81 to 1.02 and the worst shard's from 4.00 to 1.50; commit
// 603abddca9 (random candidates) took the worst node from 2.34 to 1.65. The bounds below, node
// <= 1.1 and shard <= 1.5, are those of the table-aware balancer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "sim/cluster/tablet_balancer.hpp"

// Helpers live in a named namespace: unity builds merge test files.
namespace lbsim::balancer_test {

// Node i is "n<i>" in the given (dc, rack), with token i.
Topology make_topology(const std::vector<std::pair<std::string, std::string>>& dc_rack) {
  std::vector<NodeSpec> specs;
  for (std::size_t i = 0; i < dc_rack.size(); ++i)
    specs.push_back({"n" + std::to_string(i), dc_rack[i].first, dc_rack[i].second, {static_cast<Token>(i)}});
  return Topology::build(specs);
}

TabletMap explicit_map(const std::vector<std::vector<TabletReplica>>& tablets) {
  std::vector<TabletReplica> flat;
  for (const auto& t : tablets) flat.insert(flat.end(), t.begin(), t.end());
  return TabletMap::from_replicas(tablets.size(), tablets.empty() ? 0 : tablets[0].size(), flat);
}

std::vector<std::uint64_t> node_counts(const Topology& topo, const TabletMap& map) {
  std::vector<std::uint64_t> c(topo.size(), 0);
  for (const auto& r : map.all()) ++c[r.host];
  return c;
}

std::vector<std::uint64_t> shard_counts(const TabletMap& map, NodeId host, std::uint32_t shards) {
  std::vector<std::uint64_t> c(shards, 0);
  for (const auto& r : map.all())
    if (r.host == host) ++c[r.shard];
  return c;
}

// The largest number of the tablet's replicas in one rack of `dc`.
int max_per_rack(const Topology& topo, std::span<const TabletReplica> reps, std::uint32_t dc) {
  std::map<std::uint32_t, int> per_rack;
  int best = 0;
  for (const auto& r : reps)
    if (topo.node_dc[r.host] == dc) best = std::max(best, ++per_rack[topo.node_rack[r.host]]);
  return best;
}

// Placement invariants of a map: every replica on a member shard, no node holding two replicas.
::testing::AssertionResult map_is_valid(const Topology& topo, const TabletMap& map, std::span<const BalancerNode> nodes) {
  for (std::uint64_t t = 0; t < map.count(); ++t) {
    std::set<NodeId> hosts;
    for (const auto& r : map.replicas(t)) {
      if (r.host >= topo.size() || r.shard >= nodes[r.host].shards)
        return ::testing::AssertionFailure() << "tablet " << t << " on non-member " << r.host << "/" << r.shard;
      if (!hosts.insert(r.host).second)
        return ::testing::AssertionFailure() << "tablet " << t << " twice on node " << r.host;
    }
  }
  return ::testing::AssertionSuccess();
}

// A round's plan, checked against the map it was planned on and the migrations then in flight.
::testing::AssertionResult plan_is_valid(const Topology& topo, const TabletMap& map,
                                         std::span<const BalancerNode> nodes,
                                         std::span<const TabletMigration> in_progress,
                                         std::span<const TabletMigration> plan, const BalancerLimits& limits) {
  std::set<std::uint64_t> busy;
  std::map<std::pair<NodeId, std::uint32_t>, std::uint32_t> in, out;
  for (const auto& m : in_progress) {
    busy.insert(m.tablet);
    ++out[{m.from.host, m.from.shard}];
    ++in[{m.to.host, m.to.shard}];
  }
  for (const auto& m : plan) {
    if (!busy.insert(m.tablet).second)
      return ::testing::AssertionFailure() << "tablet " << m.tablet << " planned while migrating";
    const auto reps = map.replicas(m.tablet);
    if (std::find(reps.begin(), reps.end(), m.from) == reps.end())
      return ::testing::AssertionFailure() << "tablet " << m.tablet << ": from is not a replica";
    if (m.to.host >= topo.size() || m.to.shard >= nodes[m.to.host].shards || nodes[m.to.host].draining)
      return ::testing::AssertionFailure() << "tablet " << m.tablet << " to non-member or draining node " << m.to.host;
    if (topo.node_dc[m.to.host] != topo.node_dc[m.from.host])
      return ::testing::AssertionFailure() << "tablet " << m.tablet << " moved across DCs";
    if (m.to.host == m.from.host) {
      if (m.to.shard == m.from.shard) return ::testing::AssertionFailure() << "tablet " << m.tablet << " moved onto itself";
    } else {
      for (const auto& r : reps)
        if (r.host == m.to.host)
          return ::testing::AssertionFailure() << "tablet " << m.tablet << " co-located on node " << m.to.host;
    }
    std::vector<TabletReplica> after(reps.begin(), reps.end());
    std::replace(after.begin(), after.end(), m.from, m.to);
    const std::uint32_t dc = topo.node_dc[m.from.host];
    if (max_per_rack(topo, after, dc) > max_per_rack(topo, reps, dc))
      return ::testing::AssertionFailure() << "tablet " << m.tablet << " raises its per-rack maximum";
    if (++out[{m.from.host, m.from.shard}] > limits.max_out_per_shard)
      return ::testing::AssertionFailure() << "out slots of " << m.from.host << "/" << m.from.shard << " exceeded";
    if (++in[{m.to.host, m.to.shard}] > limits.max_in_per_shard)
      return ::testing::AssertionFailure() << "in slots of " << m.to.host << "/" << m.to.shard << " exceeded";
  }
  return ::testing::AssertionSuccess();
}

struct Settled {
  int rounds = 0;
  std::size_t internode = 0;  // migrations between nodes
  std::size_t intranode = 0;  // migrations between shards of one node
};

// Plans and completes rounds (every migration of a round finishes before the next) until the plan
// is empty; each plan is checked.
Settled settle(const Topology& topo, TabletMap& map, std::span<const BalancerNode> nodes,
               const BalancerLimits& limits, Rng& rng, int max_rounds = 2000) {
  Settled s;
  for (; s.rounds < max_rounds; ++s.rounds) {
    const auto plan = plan_migrations(topo, map, nodes, {}, limits, rng);
    if (plan.empty()) return s;
    EXPECT_TRUE(plan_is_valid(topo, map, nodes, {}, plan, limits)) << "round " << s.rounds;
    for (const auto& m : plan) {
      EXPECT_TRUE(map.replace_replica(m.tablet, m.from, m.to));
      ++(m.from.host == m.to.host ? s.intranode : s.internode);
    }
    EXPECT_TRUE(map_is_valid(topo, map, nodes));
  }
  ADD_FAILURE() << "no convergence within " << max_rounds << " rounds";
  return s;
}

std::size_t incoming(std::span<const TabletMigration> plan, NodeId host) {
  return static_cast<std::size_t>(
      std::count_if(plan.begin(), plan.end(),
                    [&](const TabletMigration& m) { return m.to.host == host && m.from.host != host; }));
}

TEST(TabletBalancerRules, OneNewNodeTakesAtMostItsInSlotsPerRound) {
  // 3 old nodes x 2 shards and a new one with 2 shards, one rack, 64 tablets RF 3.
  const Topology topo = make_topology({{"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}});
  const std::vector<std::uint32_t> old_shards{2, 2, 2, 0};
  const TabletMap map = TabletMap::allocate(topo, old_shards, std::vector<int>{3}, 64, Rng(5));
  std::vector<BalancerNode> nodes{{2, false}, {2, false}, {2, false}, {2, false}};
  Rng rng(1);
  auto plan = plan_migrations(topo, map, nodes, {}, BalancerLimits{}, rng);
  EXPECT_TRUE(plan_is_valid(topo, map, nodes, {}, plan, BalancerLimits{}));
  EXPECT_EQ(incoming(plan, 3), 4u);  // 2 shards x 2 in slots
  EXPECT_EQ(plan.size(), 4u);        // old nodes are balanced internally: nothing else to do
  const BalancerLimits one_in{1, 2};
  plan = plan_migrations(topo, map, nodes, {}, one_in, rng);
  EXPECT_TRUE(plan_is_valid(topo, map, nodes, {}, plan, one_in));
  EXPECT_EQ(incoming(plan, 3), 2u);
}

TEST(TabletBalancerRules, OutSlotsLimitASingleSource) {
  // One loaded node with 2 shards (RF 1, 16 tablets), a new node with 8 shards: 2 x 2 out slots.
  const Topology topo = make_topology({{"dc1", "r1"}, {"dc1", "r1"}});
  const TabletMap map = TabletMap::allocate(topo, std::vector<std::uint32_t>{2, 0}, std::vector<int>{1}, 16, Rng(1));
  const std::vector<BalancerNode> nodes{{2, false}, {8, false}};
  Rng rng(2);
  const auto plan = plan_migrations(topo, map, nodes, {}, BalancerLimits{}, rng);
  EXPECT_TRUE(plan_is_valid(topo, map, nodes, {}, plan, BalancerLimits{}));
  EXPECT_EQ(incoming(plan, 1), 4u);
  // Each pending replica went to a different, least-loaded shard of the new node.
  std::set<std::uint32_t> dst_shards;
  for (const auto& m : plan) dst_shards.insert(m.to.shard);
  EXPECT_EQ(dst_shards.size(), 4u);
}

TEST(TabletBalancerRules, InProgressMigrationsCountAsDoneAndAreNotReplanned) {
  // Node 0 holds 3 tablets, node 1 one (1 shard each, RF 1): one move balances them.
  const Topology topo = make_topology({{"dc1", "r1"}, {"dc1", "r1"}});
  const TabletMap map = explicit_map({{{0, 0}}, {{0, 0}}, {{0, 0}}, {{1, 0}}});
  const std::vector<BalancerNode> nodes{{1, false}, {1, false}};
  Rng rng(3);
  EXPECT_EQ(plan_migrations(topo, map, nodes, {}, BalancerLimits{}, rng).size(), 1u);
  const std::vector<TabletMigration> flying{{1, {0, 0}, {1, 0}}};
  EXPECT_TRUE(plan_migrations(topo, map, nodes, flying, BalancerLimits{}, rng).empty());

  // A new node with 2 shards: one pending replica on shard 0 leaves 3 in slots, and its tablet
  // is not planned again.
  const Topology topo4 = make_topology({{"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}});
  const TabletMap map4 = TabletMap::allocate(topo4, std::vector<std::uint32_t>{2, 2, 2, 0}, std::vector<int>{3}, 64, Rng(5));
  const std::vector<BalancerNode> nodes4{{2, false}, {2, false}, {2, false}, {2, false}};
  const std::vector<TabletMigration> one{{7, map4.replicas(7)[0], {3, 0}}};
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Rng r(seed);
    const auto plan = plan_migrations(topo4, map4, nodes4, one, BalancerLimits{}, r);
    EXPECT_TRUE(plan_is_valid(topo4, map4, nodes4, one, plan, BalancerLimits{}));
    EXPECT_EQ(incoming(plan, 3), 3u);
    for (const auto& m : plan) EXPECT_NE(m.tablet, 7u);
  }
}

TEST(TabletBalancerRules, MovesOnlyWhenTheImbalanceStrictlyDrops) {
  // RF 1 maps: `a0`, `a1` tablets on node 0's shards 0 and 1, `b` on node 1's shard 0.
  const Topology topo = make_topology({{"dc1", "r1"}, {"dc1", "r1"}});
  auto layout = [](std::uint32_t a0, std::uint32_t a1, std::uint32_t b) {
    std::vector<std::vector<TabletReplica>> t;
    for (std::uint32_t i = 0; i < a0; ++i) t.push_back({{0, 0}});
    for (std::uint32_t i = 0; i < a1; ++i) t.push_back({{0, 1}});
    for (std::uint32_t i = 0; i < b; ++i) t.push_back({{1, 0}});
    return explicit_map(t);
  };
  const std::vector<BalancerNode> one_one{{1, false}, {1, false}};
  const std::vector<BalancerNode> two_one{{2, false}, {1, false}};
  Rng rng(4);
  // 9 vs 7 on one shard each: (7 + 1) < 9, one move, then 8 vs 8.
  auto plan = plan_migrations(topo, layout(9, 0, 7), one_one, {}, BalancerLimits{}, rng);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].to, (TabletReplica{1, 0}));
  // Node 0 with 2 shards holds 10 (5 per shard), node 1 with 1 shard holds 6: node 1 gives one,
  // (10 + 1) / 2 < 6; then (5 + 1) / 1 < 11 / 2 fails.
  plan = plan_migrations(topo, layout(5, 5, 6), two_one, {}, BalancerLimits{}, rng);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].from, (TabletReplica{1, 0}));
  EXPECT_EQ(plan[0].to.host, 0u);
  // 21 on 2 shards (11 + 10) vs 11 on 1 shard: (21 + 1) / 2 == 11 is no strict improvement.
  EXPECT_TRUE(plan_migrations(topo, layout(11, 10, 11), two_one, {}, BalancerLimits{}, rng).empty());
  // 11 on 2 shards (6 + 5) vs 5: (5 + 1) / 1 < 11 / 2 fails, and 6 vs 5 inside node 0 is even.
  EXPECT_TRUE(plan_migrations(topo, layout(6, 5, 5), two_one, {}, BalancerLimits{}, rng).empty());
}

TEST(TabletBalancerRules, TakesTheMostLoadedSourceShardFirst) {
  // Node 0: shard 0 holds 2, shard 1 holds 6 (RF 1); node 1 joins with 1 shard.
  const Topology topo = make_topology({{"dc1", "r1"}, {"dc1", "r1"}});
  std::vector<std::vector<TabletReplica>> t;
  for (int i = 0; i < 2; ++i) t.push_back({{0, 0}});
  for (int i = 0; i < 6; ++i) t.push_back({{0, 1}});
  const TabletMap m = explicit_map(t);
  const std::vector<BalancerNode> nodes{{2, false}, {1, false}};
  Rng rng(5);
  const auto plan = plan_migrations(topo, m, nodes, {}, BalancerLimits{}, rng);
  // Node 1's two in slots, both from shard 1; then (2 + 1) / 1 < 6 / 2 fails anyway, and inside
  // node 0 shard 1 (4) has no out slot left.
  ASSERT_EQ(plan.size(), 2u);
  for (const auto& mig : plan) EXPECT_EQ(mig.from, (TabletReplica{0, 1}));
}

TEST(TabletBalancerRules, RackRuleSendsTheMoveToTheNextSource) {
  // RF 2 over racks A and B; every tablet on b1 (node 0, rack B) and a1 (node 1, rack A); a2
  // (node 2, rack A) joins. b1 and a1 tie and b1 comes first, but a move from b1 to a2 would put
  // two replicas in rack A: only a1 may give.
  const Topology topo = make_topology({{"dc1", "B"}, {"dc1", "A"}, {"dc1", "A"}});
  std::vector<std::vector<TabletReplica>> t(8, {{1, 0}, {0, 0}});
  TabletMap m = explicit_map(t);
  const std::vector<BalancerNode> nodes{{1, false}, {1, false}, {1, false}};
  Rng rng(6);
  const auto first = plan_migrations(topo, m, nodes, {}, BalancerLimits{}, rng);
  ASSERT_EQ(first.size(), 2u);
  for (const auto& mig : first) EXPECT_EQ(mig.from.host, 1u);
  settle(topo, m, nodes, BalancerLimits{}, rng);
  EXPECT_EQ(node_counts(topo, m), (std::vector<std::uint64_t>{8, 4, 4}));
}

TEST(TabletBalancerRules, IntraNodeMovesEvenTheShards) {
  // One node, 4 shards, all 16 tablets on shard 0: 2 out slots per round, 12 moves in all.
  const Topology topo = make_topology({{"dc1", "r1"}});
  TabletMap m = explicit_map(std::vector<std::vector<TabletReplica>>(16, {{0, 0}}));
  const std::vector<BalancerNode> nodes{{4, false}};
  Rng rng(7);
  EXPECT_EQ(plan_migrations(topo, m, nodes, {}, BalancerLimits{}, rng).size(), 2u);
  const Settled s = settle(topo, m, nodes, BalancerLimits{}, rng);
  EXPECT_EQ(s.intranode, 12u);
  EXPECT_EQ(s.internode, 0u);
  EXPECT_EQ(s.rounds, 6);
  EXPECT_EQ(shard_counts(m, 0, 4), (std::vector<std::uint64_t>{4, 4, 4, 4}));
  // A difference of one is balanced.
  std::vector<std::vector<TabletReplica>> t{{{0, 0}}, {{0, 0}}, {{0, 1}}, {{0, 2}}};
  const TabletMap close = explicit_map(t);
  const std::vector<BalancerNode> three{{3, false}};
  EXPECT_TRUE(plan_migrations(topo, close, three, {}, BalancerLimits{}, rng).empty());
}

TEST(TabletBalancerDrain, DecommissionEmptiesTheNode) {
  // 4 nodes x 4 shards in one rack, 64 tablets RF 2; node 0 is decommissioned.
  const Topology topo = make_topology({{"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}});
  TabletMap m = TabletMap::allocate(topo, std::vector<std::uint32_t>(4, 4), std::vector<int>{2}, 64, Rng(8));
  std::vector<BalancerNode> nodes(4, {4, false});
  const std::uint64_t held = node_counts(topo, m)[0];
  ASSERT_EQ(held, 32u);
  nodes[0].draining = true;
  Rng rng(9);
  const auto first = plan_migrations(topo, m, nodes, {}, BalancerLimits{}, rng);
  std::size_t leaving = 0;
  for (const auto& mig : first) leaving += mig.from.host == 0 && mig.to.host != 0;
  EXPECT_EQ(leaving, 8u);  // 4 shards x 2 out slots
  const Settled s = settle(topo, m, nodes, BalancerLimits{}, rng);
  EXPECT_EQ(node_counts(topo, m)[0], 0u);
  EXPECT_GE(s.internode, held);
  nodes[0] = {0, false};
  EXPECT_TRUE(map_is_valid(topo, m, nodes));
  const BalanceStats st = balance_stats(topo, m, nodes);
  EXPECT_LE(st.node_overcommit, 1.1);  // 128 replicas on 3 nodes: 42 or 43 each
  EXPECT_TRUE(plan_migrations(topo, m, nodes, {}, BalancerLimits{}, rng).empty());
}

TEST(TabletBalancerDrain, RemovenodeRebuildsInTheDeadNodesRack) {
  // 3 racks x 3 nodes x 2 shards, RF 3 (one replica per rack); node 0 (rack r0) is dead and
  // removed: its replicas are rebuilt on the other nodes of r0 only.
  std::vector<std::pair<std::string, std::string>> layout;
  for (int n = 0; n < 9; ++n) layout.push_back({"dc1", "r" + std::to_string(n % 3)});
  const Topology topo = make_topology(layout);
  TabletMap m = TabletMap::allocate(topo, std::vector<std::uint32_t>(9, 2), std::vector<int>{3}, 64, Rng(10));
  std::vector<BalancerNode> nodes(9, {2, false});
  nodes[0].draining = true;
  Rng rng(11);
  for (int round = 0; round < 100; ++round) {
    const auto plan = plan_migrations(topo, m, nodes, {}, BalancerLimits{}, rng);
    if (plan.empty()) break;
    ASSERT_TRUE(plan_is_valid(topo, m, nodes, {}, plan, BalancerLimits{}));
    for (const auto& mig : plan) {
      if (mig.from.host == 0) {
        EXPECT_EQ(topo.node_rack[mig.to.host], topo.node_rack[0]);
      }
      m.replace_replica(mig.tablet, mig.from, mig.to);
    }
  }
  const auto counts = node_counts(topo, m);
  EXPECT_EQ(counts[0], 0u);
  EXPECT_EQ(counts[3] + counts[6], 64u);
  EXPECT_EQ(counts[3], 32u);
  for (std::uint64_t t = 0; t < m.count(); ++t) EXPECT_EQ(max_per_rack(topo, m.replicas(t), 0), 1);
}

TEST(TabletBalancerRules, SameSeedSamePlanAndBadInputThrows) {
  const Topology topo = make_topology({{"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}});
  const TabletMap m = TabletMap::allocate(topo, std::vector<std::uint32_t>{4, 4, 0}, std::vector<int>{2}, 64, Rng(12));
  const std::vector<BalancerNode> nodes(3, {4, false});
  Rng a(13), b(13), c(14);
  const auto pa = plan_migrations(topo, m, nodes, {}, BalancerLimits{}, a);
  EXPECT_EQ(pa, plan_migrations(topo, m, nodes, {}, BalancerLimits{}, b));
  EXPECT_NE(pa, plan_migrations(topo, m, nodes, {}, BalancerLimits{}, c));  // a random candidate
  const std::vector<BalancerNode> short_list(2, {4, false});
  EXPECT_THROW(plan_migrations(topo, m, short_list, {}, BalancerLimits{}, a), std::invalid_argument);
  const std::vector<BalancerNode> gone{{4, false}, {0, false}, {4, false}};  // node 1 holds replicas
  EXPECT_THROW(plan_migrations(topo, m, gone, {}, BalancerLimits{}, a), std::invalid_argument);
  const std::vector<TabletMigration> not_a_replica{{0, {2, 0}, {2, 1}}};
  EXPECT_THROW(plan_migrations(topo, m, nodes, not_a_replica, BalancerLimits{}, a), std::invalid_argument);
  const std::vector<TabletMigration> twice{{0, m.replicas(0)[0], {2, 0}}, {0, m.replicas(0)[1], {2, 1}}};
  EXPECT_THROW(plan_migrations(topo, m, nodes, twice, BalancerLimits{}, a), std::invalid_argument);
}

// Random clusters (1-3 DCs, 2-4 racks per DC, 2-8 nodes per rack, 1-8 shards, RF <= racks):
// nodes join, then nodes are decommissioned and removed, while a random half of the migrations in
// flight finishes between rounds. Every round's plan and every resulting map are checked.
TEST(TabletBalancerInvariants, HoldOnRandomClustersWithMigrationsInFlight) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    Rng r(seed * 7919);
    const int dcs = 1 + static_cast<int>(r.below(3));
    std::vector<std::pair<std::string, std::string>> layout;
    std::vector<int> rf;
    for (int d = 0; d < dcs; ++d) {
      const int racks = 2 + static_cast<int>(r.below(3));
      const int per_rack = 2 + static_cast<int>(r.below(7));
      for (int k = 0; k < racks; ++k)
        for (int n = 0; n < per_rack; ++n) layout.push_back({"dc" + std::to_string(d), "rack" + std::to_string(k)});
      rf.push_back(1 + static_cast<int>(r.below(static_cast<std::uint64_t>(racks))));
    }
    const Topology topo = make_topology(layout);
    std::vector<BalancerNode> nodes(topo.size());
    std::vector<std::uint32_t> shards(topo.size());
    std::vector<NodeId> joining;  // every third node joins later
    for (NodeId n = 0; n < topo.size(); ++n) {
      shards[n] = 1 + static_cast<std::uint32_t>(r.below(8));
      if (n % 3 == 2) joining.push_back(n);
      nodes[n].shards = n % 3 == 2 ? 0 : shards[n];
    }
    std::vector<DcShards> dc(topo.dcs.size());
    for (NodeId n = 0; n < topo.size(); ++n) dc[topo.node_dc[n]].shards += nodes[n].shards;
    for (std::size_t d = 0; d < dc.size(); ++d) dc[d].rf = rf[d];
    TabletOptions opts;
    opts.initial_scale_factor = 4;
    std::vector<std::uint32_t> initial(topo.size());
    for (NodeId n = 0; n < topo.size(); ++n) initial[n] = nodes[n].shards;
    TabletMap map = TabletMap::allocate(topo, initial, rf, tablet_count(opts, dc), Rng(seed));
    std::vector<int> rack_max(map.count() * topo.dcs.size());
    for (std::uint64_t t = 0; t < map.count(); ++t)
      for (std::uint32_t d = 0; d < topo.dcs.size(); ++d)
        rack_max[t * topo.dcs.size() + d] = max_per_rack(topo, map.replicas(t), d);

    Rng planner = r.fork("planner");
    const BalancerLimits limits{1 + static_cast<std::uint32_t>(r.below(2)), 1 + static_cast<std::uint32_t>(r.below(2))};
    std::size_t migrations = 0;
    auto run = [&](const char* what) {
      std::vector<TabletMigration> flying;
      for (int round = 0; round < 20000; ++round) {
        const auto plan = plan_migrations(topo, map, nodes, flying, limits, planner);
        ASSERT_TRUE(plan_is_valid(topo, map, nodes, flying, plan, limits))
            << what << ", seed " << seed << ", round " << round;
        if (plan.empty() && flying.empty()) return;
        migrations += plan.size();
        flying.insert(flying.end(), plan.begin(), plan.end());
        // A random half finishes (all of them when nothing new was planned).
        std::vector<TabletMigration> still;
        for (const auto& m : flying) {
          if (!plan.empty() && r.below(2) == 0) {
            still.push_back(m);
            continue;
          }
          ASSERT_TRUE(map.replace_replica(m.tablet, m.from, m.to));
          for (std::uint32_t d = 0; d < topo.dcs.size(); ++d) {
            const int now = max_per_rack(topo, map.replicas(m.tablet), d);
            ASSERT_LE(now, rack_max[m.tablet * topo.dcs.size() + d]) << "tablet " << m.tablet;
            rack_max[m.tablet * topo.dcs.size() + d] = now;
          }
        }
        flying = std::move(still);
        ASSERT_TRUE(map_is_valid(topo, map, nodes)) << what << ", seed " << seed;
      }
      FAIL() << what << ": no convergence, seed " << seed;
    };
    run("initial");
    for (NodeId n : joining) {
      nodes[n].shards = shards[n];
      run("bootstrap");
    }
    // Per DC, decommission one node of a rack that keeps another member, then remove (dead) one.
    for (std::uint32_t d = 0; d < topo.dcs.size(); ++d)
      for (int op = 0; op < 2; ++op) {
        std::vector<NodeId> ok;
        for (NodeId n = 0; n < topo.size(); ++n) {
          if (topo.node_dc[n] != d || nodes[n].shards == 0) continue;
          int rack_members = 0;
          for (NodeId o = 0; o < topo.size(); ++o)
            rack_members += nodes[o].shards > 0 && topo.node_rack[o] == topo.node_rack[n];
          if (rack_members >= 2) ok.push_back(n);
        }
        if (ok.empty()) continue;
        const NodeId victim = ok[r.below(ok.size())];
        nodes[victim].draining = true;
        run("drain");
        ASSERT_EQ(node_counts(topo, map)[victim], 0u) << "seed " << seed << " node " << victim;
        nodes[victim] = {0, false};
        ASSERT_TRUE(map_is_valid(topo, map, nodes));
      }
    EXPECT_GT(migrations, 0u);
  }
}

// One add/decommission scenario of E10: `steps` alternate bootstrap of the next spare node and
// decommission of the oldest member of the same rack; each step runs rounds until the plan is empty.
struct StepReport {
  BalanceStats stats;
  Settled settled;
  std::uint64_t needed = 0;  // the fewest inter-node moves: the new node's final or the victim's replicas
};

std::vector<StepReport> run_steps(const Topology& topo, TabletMap& map, std::vector<BalancerNode>& nodes,
                                  std::vector<NodeId> spares, std::uint32_t shards, int steps, Rng& rng) {
  std::vector<StepReport> out;
  NodeId added = kNoNode;
  for (int step = 0; step < steps; ++step) {
    StepReport rep;
    if (step % 2 == 0) {
      added = spares[static_cast<std::size_t>(step / 2)];
      nodes[added].shards = shards;
      rep.settled = settle(topo, map, nodes, BalancerLimits{}, rng);
      rep.needed = node_counts(topo, map)[added];
    } else {
      NodeId victim = kNoNode;
      for (NodeId n = 0; n < topo.size() && victim == kNoNode; ++n)
        if (n != added && nodes[n].shards > 0 && topo.node_rack[n] == topo.node_rack[added]) victim = n;
      EXPECT_NE(victim, kNoNode);
      if (victim == kNoNode) return out;
      nodes[victim].draining = true;
      rep.needed = node_counts(topo, map)[victim];
      rep.settled = settle(topo, map, nodes, BalancerLimits{}, rng);
      EXPECT_EQ(node_counts(topo, map)[victim], 0u);
      nodes[victim] = {0, false};
    }
    EXPECT_TRUE(map_is_valid(topo, map, nodes));
    rep.stats = balance_stats(topo, map, nodes);
    out.push_back(rep);
  }
  return out;
}

void print_steps(const char* name, const std::vector<StepReport>& steps) {
  for (std::size_t i = 0; i < steps.size(); ++i)
    std::printf("[ E10 %s ] step %zu (%s): node overcommit %.3f, shard overcommit %.3f, %d rounds, %zu+%zu migrations\n",
                name, i + 1, i % 2 == 0 ? "add" : "decommission", steps[i].stats.node_overcommit,
                steps[i].stats.shard_overcommit, steps[i].settled.rounds, steps[i].settled.internode,
                steps[i].settled.intranode);
}

TEST(TabletBalancerConvergence, E10ThreeRacksSixNodesEightShards) {
  // 6 nodes x 8 shards in 3 racks, 256 tablets RF 3 (one replica per rack); spares 6..9 join
  // racks 0, 1, 2, 0 in turn.
  std::vector<std::pair<std::string, std::string>> layout;
  for (int n = 0; n < 10; ++n) layout.push_back({"dc1", "rack" + std::to_string(n % 3)});
  const Topology topo = make_topology(layout);
  std::vector<BalancerNode> nodes(10);
  std::vector<std::uint32_t> shards(10, 0);
  for (NodeId n = 0; n < 6; ++n) nodes[n].shards = shards[n] = 8;
  TabletMap map = TabletMap::allocate(topo, shards, std::vector<int>{3}, 256, Rng(20));
  Rng rng(21);
  const auto steps = run_steps(topo, map, nodes, {6, 7, 8, 9}, 8, 8, rng);
  ASSERT_EQ(steps.size(), 8u);
  print_steps("3 racks", steps);
  // Back to 2 nodes per rack: 128 replicas per node, 16 per shard.
  EXPECT_LE(steps.back().stats.node_overcommit, 1.1);
  EXPECT_LE(steps.back().stats.shard_overcommit, 1.5);
  // Every decommission restores the symmetric racks and the balance.
  for (std::size_t i = 1; i < steps.size(); i += 2) {
    EXPECT_LE(steps[i].stats.node_overcommit, 1.1) << "step " << i + 1;
    EXPECT_LE(steps[i].stats.shard_overcommit, 1.5) << "step " << i + 1;
  }
  // An added node takes a third of its rack's 256 replicas, and nothing else moves between nodes.
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].settled.internode, steps[i].needed) << "step " << i + 1;
    if (i % 2 == 0) {
      EXPECT_TRUE(steps[i].needed == 85 || steps[i].needed == 86) << steps[i].needed;
    }
  }
}

TEST(TabletBalancerConvergence, E10OneRackFiveNodesThirtyTwoShards) {
  // PR #19779's cluster: 5 nodes x 32 shards, RF 3; one table of 128 tablets, one of 512 (each
  // balanced on its own here, as lbsim has one table). Every step stays within the bounds.
  for (const std::uint64_t count : {128u, 512u}) {
    const Topology topo = make_topology(std::vector<std::pair<std::string, std::string>>(9, {"dc1", "rack1"}));
    std::vector<BalancerNode> nodes(9);
    std::vector<std::uint32_t> shards(9, 0);
    for (NodeId n = 0; n < 5; ++n) nodes[n].shards = shards[n] = 32;
    TabletMap map = TabletMap::allocate(topo, shards, std::vector<int>{3}, count, Rng(30));
    Rng rng(31);
    const auto steps = run_steps(topo, map, nodes, {5, 6, 7, 8}, 32, 8, rng);
    ASSERT_EQ(steps.size(), 8u);
    print_steps(count == 128 ? "1 rack, 128 tablets" : "1 rack, 512 tablets", steps);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      EXPECT_LE(steps[i].stats.node_overcommit, 1.1) << count << " tablets, step " << i + 1;
      EXPECT_LE(steps[i].stats.shard_overcommit, 1.5) << count << " tablets, step " << i + 1;
      EXPECT_EQ(steps[i].settled.internode, steps[i].needed) << count << " tablets, step " << i + 1;
    }
  }
}

}  // namespace lbsim::balancer_test
