// The coordinators' speculative retry in whole runs (cluster.speculative_retry, the table option;
// sim/mech/spec_retry/spec_retry.cpp cites scylladb/scylladb and apache/cassandra). Issue 36,
// mechanism 1. Small scenarios built in memory, fixed seeds; each tolerance is stated next to its
// assertion. The mechanism's strategy and hook in isolation: spec_retry_core_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::run_first;

// Three nodes a, b, c in one rack, RF 3, reads at CL ONE only, coordinator cost 0, no network
// latency, no client cost; replica reads take a constant 1 ms, node b's 20 ms (speed 0.05). An
// open loop of `rate` reads/s, RoundRobin, so each node coordinates a third of the reads and, being
// a replica of every key, reads locally (closest first).
jsonin::Json spec_cluster(const std::string& spec_retry, double rate = 60, std::uint64_t ops = 3000) {
  auto doc = jsonin::Json::parse(R"({
    "name": "spec", "seed": 5,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 4, "shards": 1,
                "service": {"coordinator": 0, "read": 1000, "write": 1000},
                "speed": {"b": 0.05}},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "network": {"same_rack": 0, "same_dc": 0, "cross_dc": 0},
    "client": {"dc": "dc1", "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0,
               "thread_local_draw_ns": 0, "shared_draw_ns": 0, "line_transfer_ns": 0, "max_in_flight": 1000000},
    "workload": {"ops": 3000, "warmup_ops": 0, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  doc["client"]["rate_ops_s"] = rate;
  doc["workload"]["ops"] = ops;
  if (!spec_retry.empty()) doc["cluster"]["speculative_retry"] = spec_retry;
  return doc;
}

std::uint64_t reads_of(const RunResult& r) { return r.by_op[static_cast<std::size_t>(OpKind::Read)].ops; }

// The bucket offset (us) of EstimatedHistogram holding `us` (apache/cassandra
// utils/EstimatedHistogram.java newOffsets: 1, then x 1.2 rounded, at least +1), computed here
// independently of the engine.
double bucket_offset_us(double us) {
  double last = 1;
  while (last < us) {
    double next = std::round(last * 1.2);
    if (next == last) ++next;
    last = next;
  }
  return last;
}

// Xms: reads coordinated by the slow node b wait 5 ms for its own 20 ms read, then the next
// replica (1 ms) answers: a third of the reads speculate and none takes longer than 5 + 1 ms plus
// a short queue wait on the fast node. Without speculation b's reads take 20 ms and more.
TEST(SpeculativeRetry, FixedThresholdCapsTheSlowReplica) {
  const RunResult none = run_first(build(spec_cluster("")));
  const RunResult fixed = run_first(build(spec_cluster("5ms")));
  const double frac = static_cast<double>(fixed.speculative_retry->reads) / static_cast<double>(reads_of(fixed));
  std::printf("NONE: max %.2f ms; 5ms: %llu speculative reads of %llu (%.3f), max %.2f ms, p99 %.2f ms\n",
              to_ms(none.latency.max()), static_cast<unsigned long long>(fixed.speculative_retry->reads),
              static_cast<unsigned long long>(reads_of(fixed)), frac, to_ms(fixed.latency.max()),
              to_ms(fixed.latency.percentile(99)));
  EXPECT_FALSE(none.speculative_retry.has_value());  // NONE: no report block
  EXPECT_GE(none.latency.max(), 20 * kMs);
  // A third of the reads are b's (RoundRobin over three nodes): binomial sd at 3,000 reads 0.009;
  // 0.03 is more than three of them.
  EXPECT_NEAR(frac, 1.0 / 3.0, 0.03);
  // 5 ms + the fast replica's 1 ms; a queue wait on a or c (one shard, load 3 %, 1 ms reads) adds
  // at most a read or two (measured max 6.99 ms). Without the cap b's reads take 20 ms and more.
  EXPECT_LT(fixed.latency.max(), 8 * kMs);
  EXPECT_GE(fixed.latency.max(), 6 * kMs);
  EXPECT_EQ(fixed.by_op[0].error_total(), 0u);
}

// ALWAYS: every read with a replica to spare sends it at once: one extra read per read, and b's
// reads end when the fast replica answers (1 ms).
TEST(SpeculativeRetry, AlwaysSendsTheExtraReadAtOnce) {
  const RunResult r = run_first(build(spec_cluster("ALWAYS")));
  EXPECT_EQ(r.speculative_retry->reads, r.issued);
  EXPECT_LT(r.latency.percentile(99), 3 * kMs);
}

// A threshold at or above the read timeout never speculates (Cassandra's rule; ScyllaDB's timer
// would fire after the timeout).
TEST(SpeculativeRetry, ThresholdAboveTheTimeoutNeverSpeculates) {
  const RunResult r = run_first(build(spec_cluster("6000ms"), {"timeouts.read_ms=5000"}));
  EXPECT_EQ(r.speculative_retry->reads, 0u);
}

// CL ALL has no replica to spare: no speculation (never_speculating_read_executor).
TEST(SpeculativeRetry, ClAllHasNoSpareReplica) {
  const RunResult r = run_first(build(spec_cluster("ALWAYS"), {"workload.consistency.read=ALL"}));
  EXPECT_EQ(r.speculative_retry->reads, 0u);
}

// The percentile form, ScyllaDB against Cassandra, with every read taking exactly 2.5 ms (no slow
// node): the p99 bucket's offset is the first >= 2,500 us. ScyllaDB truncates it to whole ms
// (2 ms), below the reads' latency, so once its histogram has data nearly every read speculates;
// in its first second the threshold comes from the empty histogram: 1 ms. Cassandra keeps
// microseconds (offset >= 2.5 ms: no read speculates) and starts at read_request_timeout / 2.
TEST(SpeculativeRetry, PercentileThresholdByRelease) {
  const double off = bucket_offset_us(2500);
  ASSERT_GE(off, 2500);
  ASSERT_LT(off, 3000);  // so ScyllaDB's whole-ms threshold is 2 ms
  // 32 shards per node: a read rarely queues behind another (load 0.3 % per shard), so fewer than
  // 1 % of the reads take longer than 2.5 ms and the p99 bucket is the one of 2,500 us.
  std::vector<std::string> sets{"cluster.speed.b=1", "cluster.service.read=2500", "cluster.shards=32"};
  for (const std::string server : {"scylla-2025.1", "cassandra-4.1", "unspecified"}) {
    auto s = sets;
    s.push_back("cluster.server=" + server);
    const RunResult r = run_first(build(spec_cluster("99.0PERCENTILE"), s));
    const auto& sr = *r.speculative_retry;
    std::printf("%s: %llu speculative reads of %llu, thresholds %.3f %.3f %.3f ms\n", server.c_str(),
                static_cast<unsigned long long>(sr.reads), static_cast<unsigned long long>(reads_of(r)),
                sr.threshold_ms[0], sr.threshold_ms[1], sr.threshold_ms[2]);
    ASSERT_EQ(sr.threshold_ms.size(), 3u);
    if (server == "cassandra-4.1") {
      for (double t : sr.threshold_ms) EXPECT_DOUBLE_EQ(t, off / 1000.0);
      // Only the rare read that queued outlasts the offset (under 1 %, from the shard load above).
      EXPECT_LT(static_cast<double>(sr.reads), 0.01 * static_cast<double>(reads_of(r)));
    } else {  // ScyllaDB's rule (unspecified takes it too)
      for (double t : sr.threshold_ms) EXPECT_DOUBLE_EQ(t, 2.0);
      // Every read outlasts 2 ms; the extra reads double the shards' load, still far from queueing.
      EXPECT_GT(static_cast<double>(sr.reads), 0.97 * static_cast<double>(reads_of(r)));
    }
  }
}

// Cassandra's first threshold is read_request_timeout / 2 until the periodic task finds data:
// with a 20 s read timeout and a 10 s run, the threshold stays 10 s, far above any read.
// ScyllaDB's first one (empty histogram) is 1 ms: every read of the first second speculates.
TEST(SpeculativeRetry, InitialThresholdByRelease) {
  std::vector<std::string> sets{"cluster.speed.b=1", "cluster.service.read=2500", "timeouts.read_ms=20000",
                                "timeouts.client_ms=30000", "workload.ops=600"};  // 10 s at 60/s
  auto cs = sets;
  cs.push_back("cluster.server=cassandra-5.0");
  const RunResult c = run_first(build(spec_cluster("99p"), cs));
  EXPECT_EQ(c.speculative_retry->reads, 0u);
  for (double t : c.speculative_retry->threshold_ms) EXPECT_DOUBLE_EQ(t, 10'000.0);
  auto ss = sets;
  ss.push_back("cluster.server=scylla-2026.1");
  ss.push_back("workload.ops=30");  // half a second: the first threshold only
  const RunResult s = run_first(build(spec_cluster("99.0PERCENTILE"), ss));
  EXPECT_EQ(s.speculative_retry->reads, reads_of(s));
}

// scylladb#7342's mechanism: a node dies without the coordinators knowing (gossip takes longer
// than the run). QUORUM reads that chose it as their second replica speculate after the threshold,
// and their latency (threshold + a read) enters the histogram's p99; the next refresh raises the
// threshold, which the next speculated reads exceed again: the threshold ratchets up each second
// while the speculative reads continue. Compared with the same run without the kill.
TEST(SpeculativeRetry, KilledNodeRatchetsThePercentileThreshold) {
  auto doc = spec_cluster("99.0PERCENTILE", 300, 6000);  // 20 s
  doc["cluster"]["speed"] = jsonin::Json::object();
  doc["cluster"]["service"]["read"] = {{"dist", "exponential"}, {"mean_us", 500}};
  doc["network"]["same_rack"] = 200;  // us, each way
  doc["workload"]["consistency"]["read"] = "QUORUM";
  doc["cluster"]["server"] = "scylla-2025.1";
  doc["policies"] = jsonin::Json::parse(R"([{"name": "rr", "policy": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}])");
  const RunResult calm = run_first(build(doc));
  doc["faults"] = jsonin::Json::parse(
      R"({"driver_detection_ms": 100, "server_detection_ms": 600000, "events": [{"at_s": 5, "node": "c", "kind": "down"}]})");
  const RunResult killed = run_first(build(doc));
  std::printf("calm: %llu speculative reads, thresholds a %.0f b %.0f ms; killed: %llu, a %.0f b %.0f ms\n",
              static_cast<unsigned long long>(calm.speculative_retry->reads), calm.speculative_retry->threshold_ms[0],
              calm.speculative_retry->threshold_ms[1], static_cast<unsigned long long>(killed.speculative_retry->reads),
              killed.speculative_retry->threshold_ms[0], killed.speculative_retry->threshold_ms[1]);
  // Without the kill about 10 % of the reads speculate (ScyllaDB's threshold is the p99 truncated to
  // whole ms, 2 ms here, below the slowest reads); after it the QUORUM reads that pick c as their
  // second replica speculate too: 3,085 against 581 (measured), asserted as more than 3x.
  EXPECT_GT(killed.speculative_retry->reads, 3 * calm.speculative_retry->reads);
  for (int n : {0, 1}) {
    // The threshold ratchets: a speculated read takes threshold + a read + a round trip, and the
    // p99 is read as its bucket's upper offset (x 1.2), so each refresh raises it by 20 % or more:
    // 2 ms calm, 61 ms after 15 s with c dead (measured). Asserted: above 10x the calm value.
    EXPECT_GT(killed.speculative_retry->threshold_ms[n], 10 * calm.speculative_retry->threshold_ms[n]) << n;
  }
}

}  // namespace
}  // namespace lbsim
