// Cassandra's dynamic snitch (cluster.dynamic_snitch; sim/mech/snitch/snitch.cpp cites
// apache/cassandra locator/DynamicEndpointSnitch.java). Issue 37, item 3. Small scenarios built in
// memory, fixed seeds; each expected number is derived next to its assertion.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::run_first;

// Three nodes a, b, c in one rack, RF 3, QUORUM reads (two targets: the coordinator itself, then
// one other replica). RoundRobin spreads the coordinators evenly; coordinator cost 0, no client
// cost. A replica read takes a constant 0.2 ms, node b's 0.2 ms / speed; one-way network 2 ms. So
// the coordinator's own reads sample 0 ms (whole ms, truncated), a remote fast replica 4 ms and b
// 4 + 0.2 / speed ms. 300 reads/s for 10 s: load ~6 %, no queueing to speak of.
jsonin::Json three_nodes(const std::string& server, double b_speed, const std::string& cl = "QUORUM") {
  auto doc = jsonin::Json::parse(R"({
    "name": "snitch", "seed": 11,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 8, "shards": 1,
                "service": {"coordinator": 0, "read": 200, "write": 200}},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "network": {"same_rack": 2000, "same_dc": 2000, "cross_dc": 2000},
    "client": {"dc": "dc1", "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0, "rate_ops_s": 300,
               "thread_local_draw_ns": 0, "shared_draw_ns": 0, "line_transfer_ns": 0, "max_in_flight": 1000000},
    "workload": {"ops": 3000, "warmup_ops": 0, "mix": {"read": 1}, "consistency": {"read": "QUORUM"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  doc["cluster"]["server"] = server;
  doc["cluster"]["speed"] = {{"b", b_speed}};
  doc["workload"]["consistency"]["read"] = cl;
  return doc;
}

// b's replica reads that another coordinator sent it (its own reads are local, one per request
// it coordinates).
std::int64_t b_remote_reads(const RunResult& r) {
  return static_cast<std::int64_t>(r.nodes[1].replica_reads) - static_cast<std::int64_t>(r.nodes[1].coordinator_ops);
}

// cassandra-3.11 (badness 0.1): b at speed 0.1 answers in 4 + 2 = 6 ms, the fast remote replica in
// 4 ms; scores 1.0 and 0.67; 1.0 > 1.1 x 0.67, so every coordinator sorts by score and never picks
// b as its second target once the first update (100 ms) has b's samples. Without the snitch, ties
// keep the replica order and b is the second target of the other coordinators' reads whose
// replica order puts b before the third replica (603 of 2,000 on this ring).
TEST(DynamicSnitch, SlowReplicaAboveBadnessStopsGettingReads) {
  for (const char* cl : {"QUORUM", "TWO"}) {
    auto on = three_nodes("cassandra-3.11", 0.1, cl);
    auto off = on;
    off["cluster"]["dynamic_snitch"] = false;
    const RunResult with = run_first(build(on));
    const RunResult without = run_first(build(off));
    std::printf("%s: b's remote reads with the snitch %lld, without %lld\n", cl,
                static_cast<long long>(b_remote_reads(with)), static_cast<long long>(b_remote_reads(without)));
    // Without: the ring's share (8 vnodes per node), far above what the snitch leaves.
    EXPECT_GT(b_remote_reads(without), 400);
    // With: only the reads sent before the first update can reach b: 300 reads/s x 0.1 s = 30
    // requests, two thirds of them coordinated elsewhere, about half of those to b: ~10; at most 30.
    EXPECT_LE(b_remote_reads(with), 30);
    // The reads still succeed (a and c are enough for QUORUM / TWO).
    EXPECT_EQ(with.by_op[0].error_total(), 0u);
  }
}

// Below the threshold nothing moves. b at speed 0.5 answers in 4.4 ms, truncated to 4 ms like the
// fast replica: equal scores, subsnitch order, the same routing as without the snitch (the snitch
// draws from a stream of its own, so every other draw is the same).
TEST(DynamicSnitch, SlowReplicaBelowBadnessKeepsItsReads) {
  auto on = three_nodes("cassandra-3.11", 0.5);
  auto off = on;
  off["cluster"]["dynamic_snitch"] = false;
  const RunResult with = run_first(build(on));
  const RunResult without = run_first(build(off));
  for (std::size_t n = 0; n < 3; ++n) EXPECT_EQ(with.nodes[n].replica_reads, without.nodes[n].replica_reads) << n;
  EXPECT_GT(b_remote_reads(with), 400);
}

// cassandra-4.1's badness threshold is 1.0: b at speed 0.1 (score 1.0 vs 0.67) is not 2x worse
// than the best at its position, so the subsnitch order stays; at speed 0.04 (4 + 5 = 9 ms and
// more: score 1.0 vs 4 / 9 = 0.44 or less, more than 2x) the coordinators sort by score.
TEST(DynamicSnitch, BadnessThresholdIsPerRelease) {
  auto on = three_nodes("cassandra-4.1", 0.1);
  auto off = on;
  off["cluster"]["dynamic_snitch"] = false;
  EXPECT_EQ(b_remote_reads(run_first(build(on))), b_remote_reads(run_first(build(off))));
  // The object form overrides the release's default: 0.1 as in 3.11.
  auto low = on;
  low["cluster"]["dynamic_snitch"] = {{"badness_threshold", 0.1}};
  EXPECT_LE(b_remote_reads(run_first(build(low))), 30);
  auto slower = three_nodes("cassandra-4.1", 0.04);
  EXPECT_LE(b_remote_reads(run_first(build(slower))), 30);
}

// The reset interval drops the samples: with a 1 s reset, b's reservoir is emptied every second,
// the next update scores b as 0 (no samples), the subsnitch order returns until b has been sampled
// again and an update sees it: b gets reads after every reset, far more than the at-most-30 of the
// 600 s default, and fewer than without the snitch.
TEST(DynamicSnitch, ResetIntervalLetsTheSlowReplicaBackIn) {
  auto on = three_nodes("cassandra-3.11", 0.1);
  on["cluster"]["dynamic_snitch"] = {{"reset_interval_ms", 1000}};
  auto off = three_nodes("cassandra-3.11", 0.1);
  off["cluster"]["dynamic_snitch"] = false;
  const std::int64_t with = b_remote_reads(run_first(build(on)));
  const std::int64_t without = b_remote_reads(run_first(build(off)));
  std::printf("1 s reset: b's remote reads %lld (without the snitch %lld)\n", static_cast<long long>(with),
              static_cast<long long>(without));
  // 10 resets; after each, b has no score (0) until an update has sampled it again, and is even
// preferred meanwhile (a missing score sorts first): measured 61.
  EXPECT_GT(with, 40);
  EXPECT_LT(with, without / 2);
}

}  // namespace
}  // namespace lbsim
