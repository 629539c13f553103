// cluster.server (issue 35, point 5): which replicas a read asks, by release. ScyllaDB 2025.1 and
// later shuffle replicas at equal distance (scylladb/scylladb commit d1490bb7bf, PR #21958;
// sim/cluster/coordination.hpp shuffle_equal_distance); earlier ScyllaDB, Cassandra (its dynamic
// snitch is not modelled) and `unspecified` keep the replica order. Unit tests of the pass and
// of read_targets, the analytic shares against sampled ones, then the engine on a shortened
// configs/tablets-vs-vnodes.json. Each tolerance is stated next to its assertion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <array>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "sim/analysis/scenario_model.hpp"
#include "sim/cluster/coordination.hpp"
#include "sim/core/rng.hpp"
#include "sim_test_util.hpp"

namespace lbsim::read_replica_release_test {
namespace {

using testing::run_first;

TEST(ReadReplicaRelease, ShuffleIsOnFromScylla2025_1) {
  for (std::size_t k = 0; k < kServerReleases; ++k) {
    const auto r = static_cast<ServerRelease>(k);
    EXPECT_EQ(server_rules(r).shuffle_equal_distance_reads, r >= ServerRelease::Scylla2025_1) << server_rules(r).name;
  }
  EXPECT_FALSE(server_rules(ServerRelease::Scylla2024_1).shuffle_equal_distance_reads);
  EXPECT_TRUE(server_rules(ServerRelease::Scylla2025_1).shuffle_equal_distance_reads);
  EXPECT_TRUE(server_rules(ServerRelease::Scylla2026_1).shuffle_equal_distance_reads);
}

// ScyllaDB's pass, bit by bit: three replicas at one distance (a, b, c = 1, 2, 3) give a b c,
// b a c, a c b, b c a for the words 0..3 (bit 0 decides the first pair, bit 1 the second), so c is
// never first. A distance change consumes no bit: self (tier 0) stays first.
TEST(ReadReplicaRelease, ThePassMatchesScyllas) {
  const std::array<std::uint8_t, 3> same{2, 2, 2};
  const std::vector<std::vector<NodeId>> want{{1, 2, 3}, {2, 1, 3}, {1, 3, 2}, {2, 3, 1}};
  for (std::uint64_t w = 0; w < 4; ++w) {
    std::vector<NodeId> ids{1, 2, 3};
    shuffle_equal_distance(ids, same, w);
    EXPECT_EQ(ids, want[w]) << w;
  }
  const std::array<std::uint8_t, 3> self_then_two{0, 2, 2};
  for (std::uint64_t w = 0; w < 2; ++w) {
    std::vector<NodeId> ids{0, 4, 5};
    shuffle_equal_distance(ids, self_then_two, w);
    EXPECT_EQ(ids, (w == 0 ? std::vector<NodeId>{0, 4, 5} : std::vector<NodeId>{0, 5, 4})) << w;
  }
  // A tie after a distance change: the rack-mates 7 and 8 swap on bit 0, 9 (another DC) stays last.
  std::array<std::uint8_t, 3> mixed{1, 1, 3};
  std::vector<NodeId> ids{7, 8, 9};
  shuffle_equal_distance(ids, mixed, 1);
  EXPECT_EQ(ids, (std::vector<NodeId>{8, 7, 9}));
}

// One DC of `racks` racks, node i in rack i % racks.
Topology one_dc(std::uint32_t nodes, std::uint32_t racks) {
  Topology topo;
  topo.dcs = {"dc1"};
  for (std::uint32_t i = 0; i < nodes; ++i) {
    topo.node_dc.push_back(0);
    topo.node_rack.push_back(i % racks);
  }
  return topo;
}

RfTable rf_of(const Topology& topo, std::uint32_t rf) {
  RfTable t;
  t.per_dc.assign(topo.dcs.size(), rf);
  t.total = rf * static_cast<std::uint32_t>(topo.dcs.size());
  return t;
}

// How often each replica is a target over `trials` reads, and the draws they made.
struct Counts {
  std::map<NodeId, std::uint64_t> reads;  // reads that asked the replica
  int trials = 0;
  std::uint64_t draws = 0;
  std::size_t min_targets = 64, max_targets = 0;
  double of(NodeId n) const {
    const auto it = reads.find(n);
    return it == reads.end() ? 0.0 : static_cast<double>(it->second) / trials;
  }
};
Counts sample(const ClNeed& need, const Topology& topo, NodeId coordinator, const std::vector<NodeId>& replicas,
              const std::vector<bool>& up, bool shuffle, int trials) {
  Rng rng(35), probe(35);
  Counts c;
  c.trials = trials;
  for (int i = 0; i < trials; ++i) {
    std::array<NodeId, 64> out{};
    const std::size_t n = read_targets(need, topo, coordinator, replicas, [&](NodeId r) { return up[r]; }, out,
                                       shuffle ? &rng : nullptr);
    c.min_targets = std::min(c.min_targets, n);
    c.max_targets = std::max(c.max_targets, n);
    for (std::size_t k = 0; k < n; ++k) ++c.reads[out[k]];
  }
  // rng's position: how many numbers its reads drew.
  const std::uint64_t after = rng.next_u64();
  while (probe.next_u64() != after && c.draws < 1000000) ++c.draws;
  return c;
}

// RF 3 over three racks, QUORUM, the coordinator a replica: it reads itself and one of the other
// two. scylla-2024.1 and earlier: always the first in replica order; 2025.1: each about half the
// time. 20,000 reads: the standard deviation of a half is 0.0035, the tolerance 0.02 (5.7 sd).
TEST(ReadReplicaRelease, QuorumRf3SplitsTheTwoOtherReplicasEvenly) {
  const Topology topo = one_dc(6, 3);
  const RfTable rf = rf_of(topo, 3);
  const std::vector<NodeId> replicas{1, 2, 3};  // racks 1, 2, 0
  const std::vector<bool> up(6, true);
  const ClNeed quorum = cl_need(ConsistencyLevel::Quorum, 0, rf);
  ASSERT_EQ(quorum.total, 2u);
  for (NodeId coordinator : replicas) {
    const Counts kept = sample(quorum, topo, coordinator, replicas, up, false, 20000);
    const Counts shuffled = sample(quorum, topo, coordinator, replicas, up, true, 20000);
    std::vector<NodeId> others;
    for (NodeId r : replicas)
      if (r != coordinator) others.push_back(r);
    EXPECT_DOUBLE_EQ(kept.of(coordinator), 1.0);
    EXPECT_DOUBLE_EQ(kept.of(others[0]), 1.0);  // the first of the other two in replica order
    EXPECT_EQ(kept.of(others[1]), 0.0);
    EXPECT_DOUBLE_EQ(shuffled.of(coordinator), 1.0);  // self first, always
    EXPECT_NEAR(shuffled.of(others[0]), 0.5, 0.02) << coordinator;
    EXPECT_NEAR(shuffled.of(others[1]), 0.5, 0.02) << coordinator;
    EXPECT_EQ(shuffled.min_targets, 2u);
    EXPECT_EQ(shuffled.max_targets, 2u);
    EXPECT_EQ(shuffled.draws, 20000u);  // one word per read
  }
  // Self first also when it is the last in replica order and its rack-mate is a replica: RF 3 on
  // nodes 0, 3 (rack 0) and 1 (rack 1), coordinator 3: itself, then its rack-mate 0 (distance 1),
  // never node 1, in every release.
  const Counts rack = sample(quorum, topo, 3, {1, 0, 3}, up, true, 2000);
  EXPECT_DOUBLE_EQ(rack.of(3), 1.0);
  EXPECT_DOUBLE_EQ(rack.of(0), 1.0);
  EXPECT_EQ(rack.of(1), 0.0);
  EXPECT_EQ(rack.draws, 0u);  // no tie at the cut
}

// Where the shuffle cannot change the targets, both rules give the same and nothing is drawn:
// ONE from a replica (itself), ALL, QUORUM with one of three replicas down (CL == live replicas),
// LOCAL_QUORUM at RF 3 per DC with the other DC's replicas beyond the cut.
TEST(ReadReplicaRelease, OneAllAndClEqualToLiveReplicasDrawNothing) {
  const Topology topo = one_dc(6, 3);
  const RfTable rf = rf_of(topo, 3);
  const std::vector<NodeId> replicas{1, 2, 3};
  std::vector<bool> up(6, true);
  for (auto cl : {ConsistencyLevel::One, ConsistencyLevel::LocalOne, ConsistencyLevel::All}) {
    const ClNeed need = cl_need(cl, 0, rf);
    const Counts c = sample(need, topo, 2, replicas, up, true, 1000);
    EXPECT_EQ(c.draws, 0u) << to_string(cl);
    EXPECT_DOUBLE_EQ(c.of(2), 1.0) << to_string(cl);
    EXPECT_EQ(c.max_targets, need.total) << to_string(cl);
  }
  up[3] = false;
  const Counts c = sample(cl_need(ConsistencyLevel::Quorum, 0, rf), topo, 2, replicas, up, true, 1000);
  EXPECT_EQ(c.draws, 0u);
  EXPECT_DOUBLE_EQ(c.of(1), 1.0);
  EXPECT_DOUBLE_EQ(c.of(2), 1.0);
  // Two DCs of 3 racks, RF 3 each (node i: DC i % 2, rack i % 6): LOCAL_QUORUM from node 0 reads
  // itself and one of its DC's two others, half the time each; the other DC never.
  Topology two;
  two.dcs = {"dc1", "dc2"};
  for (std::uint32_t i = 0; i < 12; ++i) {
    two.node_dc.push_back(i % 2);
    two.node_rack.push_back(i % 6);
  }
  const std::vector<NodeId> both{1, 0, 3, 2, 5, 4};
  const std::vector<bool> all_up(12, true);
  const ClNeed lq = cl_need(ConsistencyLevel::LocalQuorum, 0, rf_of(two, 3));
  const Counts l = sample(lq, two, 0, both, all_up, true, 20000);
  EXPECT_DOUBLE_EQ(l.of(0), 1.0);
  EXPECT_NEAR(l.of(2), 0.5, 0.02);
  EXPECT_NEAR(l.of(4), 0.5, 0.02);
  EXPECT_EQ(l.of(1) + l.of(3) + l.of(5), 0.0);
  EXPECT_EQ(l.draws, 20000u);
}

// ONE from a coordinator that is not a replica: ScyllaDB shuffles every proximity sort, so the
// first of the tie is taken from a shuffled list. Three replicas in three other racks of four:
// the first two in replica order half the time each, the third never (the pass's bias); before
// 2025.1 always the first. 20,000 reads, tolerance 0.02.
TEST(ReadReplicaRelease, OneFromANonReplicaTakesTheFirstTwoOfATieHalfEach) {
  const Topology topo = one_dc(8, 4);
  const RfTable rf = rf_of(topo, 3);
  const std::vector<NodeId> replicas{1, 2, 3};  // racks 1, 2, 3; the coordinator 0 in rack 0
  const std::vector<bool> up(8, true);
  const ClNeed one = cl_need(ConsistencyLevel::One, 0, rf);
  const Counts kept = sample(one, topo, 0, replicas, up, false, 20000);
  EXPECT_DOUBLE_EQ(kept.of(1), 1.0);
  const Counts c = sample(one, topo, 0, replicas, up, true, 20000);
  EXPECT_NEAR(c.of(1), 0.5, 0.02);
  EXPECT_NEAR(c.of(2), 0.5, 0.02);
  EXPECT_EQ(c.of(3), 0.0);
}

// The analytic model's shares (read_target_shares) against sampled read_targets on random
// topologies, replica lists, liveness and levels (EACH_QUORUM included): 300 cases of 4,000 reads;
// a share's standard deviation is at most 0.0079, the tolerance 0.04 (5 sd). Where no tie is at
// the cut, the shuffled targets equal the kept ones exactly.
TEST(ReadReplicaRelease, ModelSharesMatchSampledTargets) {
  Topology topo;
  topo.dcs = {"dc1", "dc2"};
  for (std::uint32_t i = 0; i < 12; ++i) {  // node i: DC i % 2, rack i % 6 (three racks per DC)
    topo.node_dc.push_back(i % 2);
    topo.node_rack.push_back(i % 6);
  }
  const std::array<ConsistencyLevel, 6> cls{ConsistencyLevel::One,         ConsistencyLevel::Two,
                                            ConsistencyLevel::Quorum,      ConsistencyLevel::LocalQuorum,
                                            ConsistencyLevel::EachQuorum,  ConsistencyLevel::LocalOne};
  Rng gen(2025);
  int tied = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<NodeId> replicas;
    const std::uint64_t count = 2 + gen.below(6);
    while (replicas.size() < count) {
      const auto r = static_cast<NodeId>(gen.below(12));
      if (std::find(replicas.begin(), replicas.end(), r) == replicas.end()) replicas.push_back(r);
    }
    std::vector<bool> up(12);
    for (std::size_t i = 0; i < up.size(); ++i) up[i] = gen.below(6) != 0;
    const auto coordinator = static_cast<NodeId>(gen.below(12));
    const ConsistencyLevel cl = cls[gen.below(cls.size())];
    const ClNeed need = cl_need(cl, topo.node_dc[coordinator], rf_of(topo, 3));
    auto is_up = [&](NodeId n) { return up[n]; };
    std::array<NodeId, 64> ids{}, kept{};
    std::array<double, 64> share{};
    const std::size_t k = read_target_shares(need, topo, coordinator, replicas, is_up, ids, share);
    const std::size_t nk = read_targets(need, topo, coordinator, replicas, is_up, kept);
    double sum = 0;
    for (std::size_t i = 0; i < k; ++i) sum += share[i];
    const Counts c = sample(need, topo, coordinator, replicas, up, true, 4000);
    if (c.draws == 0) {  // no tie at the cut: the kept targets, from both paths, each with share 1
      Rng unused(1);
      std::array<NodeId, 64> shuffled{};
      ASSERT_EQ(read_targets(need, topo, coordinator, replicas, is_up, shuffled, &unused), nk) << trial;
      ASSERT_EQ(k, nk) << trial;
      for (std::size_t i = 0; i < k; ++i) {
        EXPECT_EQ(ids[i], kept[i]) << trial;
        EXPECT_EQ(shuffled[i], kept[i]) << trial;
        EXPECT_EQ(share[i], 1.0) << trial;
      }
      continue;
    }
    ++tied;
    // As many targets per read as without the shuffle, and the shares sum to that count.
    EXPECT_EQ(c.min_targets, nk) << trial;
    EXPECT_EQ(c.max_targets, nk) << trial;
    EXPECT_NEAR(sum, static_cast<double>(nk), 1e-12) << trial;
    std::map<NodeId, double> model;
    for (std::size_t i = 0; i < k; ++i) model[ids[i]] = share[i];
    for (const auto& [node, n] : c.reads) EXPECT_NEAR(model[node], c.of(node), 0.04) << trial << " node " << node;
    for (const auto& [node, s] : model) EXPECT_NEAR(c.of(node), s, 0.04) << trial << " node " << node;
  }
  EXPECT_GT(tied, 60);  // the shuffle mattered in a good part of the cases
}

// Replica work per shard, busiest over mean, over every shard of every node.
double shard_replica_max_over_mean(const RunResult& r) {
  double sum = 0, max = 0, n = 0;
  for (const auto& node : r.nodes)
    for (const auto& sh : node.shards) {
      sum += static_cast<double>(sh.replica_ops);
      max = std::max(max, static_cast<double>(sh.replica_ops));
      ++n;
    }
  return n == 0 || sum == 0 ? 0.0 : max / (sum / n);
}

// The acceptance of issue 35, point 5, on configs/tablets-vs-vnodes.json shortened to 150,000
// QUORUM reads (6 nodes x 7 shards, 3 racks, RF 3, CPU-bound; TokenAware RANDOM). A tablets
// coordinator is a replica and reads itself and one other: with the replica order kept, the other
// is always the same one, so a shard's read load follows how often it is the tablet's first
// other replica, not how many tablet replicas it holds, and the busiest shard caps throughput.
// Measured by this test (seed 19108; `lbsim sweep` of the full 400,000 operations over 3 seeds
// gives -9.2 % and -0.2 %):
//   scylla-2024.1: vnodes 179.1k op/s, tablets 160.9k (-10.2 %), tablets' shard replica max/mean 1.198;
//   scylla-2025.1: vnodes 176.1k op/s, tablets 177.1k (+0.6 %), tablets' shard replica max/mean 1.067.
// The analytic model's tablets bound follows the rule: 163.2k op/s kept, 182.6k shuffled (the
// simulation reaches 98.6 % and 97.0 % of it; vnodes 96.9 % and 95.4 % of 184.9k and 184.5k).
// Tolerances: a run's throughput varies by about 1 % between seeds at this length, so 2025.1's
// gap is asserted within 3 % (the issue's acceptance) and 2024.1's beyond 6 %; the bound is a
// ceiling the closed loop of 512 threads approaches from below, asserted between 94 % and 101 %.
TEST(ReadReplicaRelease, TabletsMatchVnodesOnQuorumReadsFrom2025_1) {
  std::map<std::string, double> gap, shard_imbalance, bound;
  for (const std::string server : {"scylla-2024.1", "scylla-2025.1"}) {
    double tput[2] = {0, 0};
    for (int tablets = 0; tablets < 2; ++tablets) {
      const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/tablets-vs-vnodes.json",
                                        {"workload.ops=150000", "workload.warmup_ops=20000",
                                         R"(workload.mix={"read":1})", "cluster.server=" + server,
                                         // The loaded table's 256 tablets under both releases (lbsim's count rule; an
                                         // empty table would start at 16 under 2025.1), so that only the
                                         // read rule differs.
                                         std::string("keyspace.tablets=") + (tablets ? R"({"initial":256})" : "false")});
      const RunResult r = run_first(sc, "random");
      EXPECT_EQ(r.measured_errors(), 0u) << server;
      tput[tablets] = r.throughput();
      if (tablets) shard_imbalance[server] = shard_replica_max_over_mean(r);
      // The analytic model, with the release's read targets, bounds the saturated run.
      const ScenarioModel analysis = analyze_scenario(sc);
      const LoadModel& m = analysis.policies[0].model;
      ASSERT_TRUE(m.modelled) << m.reason;
      EXPECT_GT(r.throughput() / m.saturation_ops_s, 0.94) << server << " tablets " << tablets;
      EXPECT_LT(r.throughput() / m.saturation_ops_s, 1.01) << server << " tablets " << tablets;
      if (tablets) bound[server] = m.saturation_ops_s;
      std::printf("%s tablets=%d: %.0f op/s, model bound %.0f op/s\n", server.c_str(), tablets, r.throughput(),
                  m.saturation_ops_s);
    }
    gap[server] = tput[1] / tput[0] - 1;
    std::printf("%s: vnodes %.0f op/s, tablets %.0f op/s (%+.1f %%), tablets' shard replica max/mean %.3f\n",
                server.c_str(), tput[0], tput[1], 100 * gap[server], shard_imbalance[server]);
  }
  EXPECT_LT(std::abs(gap["scylla-2025.1"]), 0.03);
  EXPECT_LT(gap["scylla-2024.1"], -0.06);
  EXPECT_GT(shard_imbalance["scylla-2024.1"], shard_imbalance["scylla-2025.1"] + 0.08);
  EXPECT_GT(bound["scylla-2025.1"], bound["scylla-2024.1"] * 1.08);
}

}  // namespace
}  // namespace lbsim::read_replica_release_test
