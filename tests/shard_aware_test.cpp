// The ScyllaDB request path (issue 10): shard-aware and plain connections, cross-shard hops,
// per-connection in-flight caps, and the expectation called E7 here: on a CPU-bound node a
// non-shard-aware client reaches 1 / (1 + h (S-1)/S / s) of the shard-aware throughput, for a hop
// cost h and a CPU time s per operation. A hop's cost is absolute (issue 35): scylladb/scylladb
// commit b26923c1a4 (PR #30756, perf-simple-query, one node, in-memory reads) measured 16,044
// cycles/op shard-aware and 20,295 not at 4 shards, 3/4 of which hop: about 5.7k cycles, 1.9 us
// at 3 GHz, per hop, on operations of about 16k cycles (5.3-5.7 us). So plain connections lose
// about 20 % on operations of that size and about 1.4 % on 100 us ones. The per-connection cap
// and BusyPoolException follow scylladb/scylladb#8996 and #7748; gocql's busy-connection override
// is maybeReplaceWithLessBusyConnection in scylladb/gocql scylla.go.
#include <gtest/gtest.h>

#include <cstdio>

#include <fmt/format.h>

#include "sim/analysis/scenario_model.hpp"
#include "sim/config/scenario.hpp"
#include "sim_test_util.hpp"
#include "test_scale.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::run_first;

constexpr double kHopUs = 1.9;  // the default cluster.cross_shard.hop_ns

// One node, S shards, RF 1, no network and no client CPU: the shards are the only bottleneck. An
// operation is the coordinator's work plus one replica write (coordinator_us + write_us of CPU).
jsonin::Json one_node(int shards, int threads, std::uint64_t ops, double coordinator_us = 20, double write_us = 40) {
  return jsonin::Json::parse(fmt::format(R"({{
    "name": "shards", "seed": 5,
    "cluster": {{"nodes": [{{"id": "a", "dc": "dc1", "rack": "r1"}}], "num_tokens": 8, "shards": {0},
                "service": {{"coordinator": {{"dist": "exponential", "mean_us": {3}}},
                             "read": {{"dist": "exponential", "mean_us": 40}},
                             "write": {{"dist": "exponential", "mean_us": {4}}}}}}},
    "keyspace": {{"class": "SimpleStrategy", "rf": 1}},
    "network": {{"same_rack": 0, "same_dc": 0, "cross_dc": 0}},
    "client": {{"dc": "dc1", "threads": {1}, "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0}},
    "workload": {{"ops": {2}, "warmup_ops": 5000, "mix": {{"write": 1}}, "consistency": {{"write": "ONE"}},
                  "keys": {{"count": 1000000}}}},
    "policies": [{{"name": "ta", "policy": {{"type": "TokenAware", "ordering": "RANDOM",
                                            "child": {{"type": "RoundRobin"}}}}}}]
  }})",
                                         shards, threads, ops, coordinator_us, write_us));
}

RunResult run_with(int shards, const std::string& connections, int threads = 0, std::uint64_t ops = 600000) {
  return run_first(build(one_node(shards, threads > 0 ? threads : 128 * shards, ops),
                         {"client.connections=" + connections}));
}

// E7 for a hop of h us on operations of s us of CPU.
double e7(int shards, double op_us, double hop_us = kHopUs) {
  return 1.0 / (1.0 + hop_us * (shards - 1.0) / shards / op_us);
}

// The two operation sizes of issue 35: perf-simple-query's (about 5.7 us: 1.7 coordinator + 4
// write) and a 100 us one (20 + 80).
struct OpSize {
  double coordinator_us, write_us;
  double total() const { return coordinator_us + write_us; }
};
constexpr OpSize kSmallOp{1.7, 4.0}, kLargeOp{20, 80};

// A closed loop on per-shard queues runs at the pace of the shard that drew the most work, so a
// short shard-aware run sits a little under capacity (1/sqrt(ops per shard)); 300k operations keep
// that near 1 %, and both runs share it.
TEST(ShardAware, E7NonShardAwareThroughputFollowsTheAbsoluteHopCost) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  struct Case {
    int shards;
    OpSize op;
    double lo, hi;  // issue 35's acceptance range for the ratio
  };
  for (const Case& k : {Case{4, kSmallOp, 0.74, 0.85}, Case{8, kSmallOp, 0.70, 0.85}, Case{4, kLargeOp, 0.96, 1.0}}) {
    auto run = [&](const std::string& conn) {
      return run_first(build(one_node(k.shards, 128 * k.shards, 300000, k.op.coordinator_us, k.op.write_us),
                             {"client.connections=" + conn}));
    };
    const RunResult aware = run("shard_aware"), plain = run("plain");
    const double ratio = plain.throughput() / aware.throughput();
    const double expected = e7(k.shards, k.op.total());
    std::printf("S = %d, %.1f us operations: shard-aware %.0f op/s, plain %.0f op/s, ratio %.4f (E7 %.4f), "
                "hops %llu of %llu\n",
                k.shards, k.op.total(), aware.throughput(), plain.throughput(), ratio, expected,
                static_cast<unsigned long long>(plain.nodes[0].cross_shard_hops),
                static_cast<unsigned long long>(plain.nodes[0].replica_writes));
    EXPECT_GE(ratio, k.lo) << "S = " << k.shards << ", " << k.op.total() << " us";
    EXPECT_LE(ratio, k.hi) << "S = " << k.shards << ", " << k.op.total() << " us";
    EXPECT_NEAR(ratio, expected, 0.015) << "S = " << k.shards << ", " << k.op.total() << " us";
    EXPECT_EQ(aware.nodes[0].cross_shard_hops, 0u);
    // About (S-1)/S of the plain requests hop.
    const double hop_share = static_cast<double>(plain.nodes[0].cross_shard_hops) /
                             static_cast<double>(plain.nodes[0].replica_writes);
    EXPECT_NEAR(hop_share, (k.shards - 1.0) / k.shards, 0.02) << "S = " << k.shards;
  }
}

TEST(ShardAware, ThereIsNoHopOnOneShard) {
  const RunResult aware = run_with(1, "shard_aware", 64, 40000), plain = run_with(1, "plain", 64, 40000);
  EXPECT_EQ(plain.nodes[0].cross_shard_hops, 0u);
  EXPECT_NEAR(plain.throughput() / aware.throughput(), 1.0, 0.02);
}

TEST(ShardAware, TheHopCostIsTheConfiguredAbsoluteTime) {
  // hop_ns = 0 makes plain connections as fast as shard-aware ones; 19 us (ten times the default)
  // on 60 us operations at 4 shards gives E7 = 1 / (1 + 19 x 0.75 / 60) = 0.808.
  LBSIM_OPTIMIZED_SUITE_ONLY();
  auto run = [&](const std::string& conn, const std::string& hop) {
    return run_first(build(one_node(4, 512, 300000), {"client.connections=" + conn, "cluster.cross_shard.hop_ns=" + hop}));
  };
  const double aware = run("shard_aware", "0").throughput();
  const double free_hop = run("plain", "0").throughput() / aware;
  const double dear_hop = run("plain", "19000").throughput() / aware;
  std::printf("hop 0: ratio %.4f; hop 19 us: ratio %.4f (E7 %.4f)\n", free_hop, dear_hop, e7(4, 60, 19));
  EXPECT_NEAR(free_hop, 1.0, 0.015);
  EXPECT_NEAR(dear_hop, e7(4, 60, 19), 0.015);
}

// configs/shard-aware.json: 3 nodes, RF 3, half LOCAL_ONE reads (coordinator 20 us + read 50 us on
// the coordinator), half writes to 3 replicas (20 + 3 x 30 us): 90 us of CPU per operation on
// average, and (1 + 3) / 2 replica work items, each hopping with probability (S-1)/S (a remote
// replica's work lands on the coordinator's shard number, and with vnodes every node maps a token
// to the same shard). So E7 = 1 / (1 + h 2 (S-1)/S / 90 us) for the cluster.
TEST(ShardAware, E7HoldsOnAThreeNodeClusterWithRf3WritesAndReads) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  for (const int s : {4, 8}) {
    auto load = [&](const std::string& conn) {
      return run_first(load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/shard-aware.json",
                                     {"cluster.shards=" + std::to_string(s), "client.connections=" + conn,
                                      "workload.ops=300000"}),
                       "random");
    };
    const double ratio = load("plain").throughput() / load("shard_aware").throughput();
    const double expected = 1.0 / (1.0 + kHopUs * 2.0 * (s - 1) / s / 90.0);
    std::printf("3 nodes, S = %d: plain / shard-aware %.4f (E7 %.4f)\n", s, ratio, expected);
    // Shard-aware runs sit 1-2 % under capacity (the busiest of 3 x S shards sets the pace, and
    // its keys weigh a little more than 1/S), plain ones, whose coordinator work spreads over the
    // pool, less: the ratio reads up to 1.5 points high.
    EXPECT_NEAR(ratio, expected, 0.015) << "S = " << s;
    EXPECT_GE(ratio, 0.95) << "S = " << s;  // the fractional 0.36 of old gave 0.79 and 0.77
  }
}

TEST(ShardAware, TheModelsPerShardBoundCountsTheHops) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  // The analytic bound against the saturated simulation, and against the closed form
  // S / s x E7, at both operation sizes.
  for (const OpSize op : {kSmallOp, kLargeOp}) {
    for (const int s : {4, 8}) {
      for (const std::string conn : {"shard_aware", "plain"}) {
        const Scenario sc = build(one_node(s, 128 * s, 300000, op.coordinator_us, op.write_us),
                                  {"client.connections=" + conn});
        const double bound = analyze_scenario(sc).policies.front().model.saturation_ops_s;
        const double closed = s / (op.total() * 1e-6) * (conn == "plain" ? e7(s, op.total()) : 1.0);
        const double sim = run_first(sc).throughput();
        std::printf("%.1f us, S = %d %-11s: model bound %.0f, closed form %.0f, simulated %.0f (%.1f%% of the bound)\n",
                    op.total(), s, conn.c_str(), bound, closed, sim, 100 * sim / bound);
        EXPECT_NEAR(bound / closed, 1.0, 0.01) << conn << " S = " << s;  // key weights per shard are not exactly 1/S
        EXPECT_NEAR(sim / bound, 1.0, 0.025) << conn << " S = " << s;
      }
    }
  }
}

TEST(ShardAware, NoConnectionModelKeepsTheIdealisedPath) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  const RunResult none = run_with(4, "none"), aware = run_with(4, "shard_aware");
  EXPECT_EQ(none.nodes[0].cross_shard_hops, 0u);
  EXPECT_FALSE(none.nodes[0].connections.has_value());
  ASSERT_TRUE(aware.nodes[0].connections.has_value());
  EXPECT_EQ(aware.nodes[0].connections->count, 4u);
  // Both land every request's work on its token's shard: the same shard loads within noise.
  EXPECT_NEAR(aware.throughput() / none.throughput(), 1.0, 0.02);
  ASSERT_EQ(aware.nodes[0].shards.size(), 4u);
  for (const auto& sh : aware.nodes[0].shards) EXPECT_EQ(sh.cross_shard_hops, 0u);
}

TEST(ShardAware, PlainConnectionsSpreadCoordinatorsOverTheirShards) {
  // A pool of 2 connections on 4 shards: only shards 0 and 1 coordinate.
  auto doc = one_node(4, 16, 40000);
  const RunResult r = run_first(build(doc, {"client.connections=plain", "client.pool_size=2"}));
  ASSERT_EQ(r.nodes[0].shards.size(), 4u);
  EXPECT_GT(r.nodes[0].shards[0].coordinator_ops, 0u);
  EXPECT_GT(r.nodes[0].shards[1].coordinator_ops, 0u);
  EXPECT_EQ(r.nodes[0].shards[2].coordinator_ops, 0u);
  EXPECT_EQ(r.nodes[0].shards[3].coordinator_ops, 0u);
  // Every shard still owns and serves a quarter of the keys.
  for (const auto& sh : r.nodes[0].shards) EXPECT_GT(sh.replica_ops, 0u);
  EXPECT_EQ(r.nodes[0].connections->count, 2u);
}

TEST(ShardAware, AFullConnectionSendsTheRequestToTheNextHost) {
  // 3 nodes x 4 shards, RF 3, a cap of 2 requests per connection and 16 threads (24 slots in
  // all): a token's shard connection fills up now and then; the Java 3.x behaviour moves the
  // attempt to the next replica (BusyPoolException), the gocql override keeps the host and takes
  // its least busy connection (another shard, so a cross-shard hop).
  auto doc = testing::cluster_doc(3, 16, 20000);
  const std::vector<std::string> base = {"client.connections=shard_aware", "client.max_requests_per_connection=2",
                                         "cluster.shards=4"};
  auto sets = base;
  const RunResult next = run_first(build(doc, sets));
  sets.push_back("client.on_busy=least_busy");
  const RunResult least = run_first(build(doc, sets));
  std::uint64_t rejections = 0, hops_next = 0, hops_least = 0, rejections_least = 0;
  for (const auto& n : next.nodes) {
    rejections += n.busy_rejections;
    hops_next += n.cross_shard_hops;
    EXPECT_LE(n.connections->peak_in_flight, 2u);
    // The per-shard figures add up to the node's.
    std::uint64_t busy = 0, requests = 0;
    for (const auto& sh : n.shards) {
      busy += sh.busy_rejections;
      requests += sh.requests;
    }
    EXPECT_EQ(busy, n.busy_rejections) << n.id;
    EXPECT_EQ(requests, n.connections->requests) << n.id;
  }
  for (const auto& n : least.nodes) {
    hops_least += n.cross_shard_hops;
    rejections_least += n.busy_rejections;
  }
  std::printf("cap 2: next_host %llu rejections, %llu hops; least_busy %llu rejections, %llu hops\n",
              static_cast<unsigned long long>(rejections), static_cast<unsigned long long>(hops_next),
              static_cast<unsigned long long>(rejections_least), static_cast<unsigned long long>(hops_least));
  EXPECT_GT(rejections, 1000u);
  EXPECT_GT(hops_least, 1000u);
  EXPECT_LT(rejections_least, rejections);
}

}  // namespace
}  // namespace lbsim
