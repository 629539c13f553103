// ScyllaDB's heat-weighted load balancing in the engine (cluster.cache_hit_rate_read_balancing;
// sim/mech/hwlb/hwlb.cpp cites scylladb/scylladb). Issue 37, items 2, 3 and 4: the restart
// experiment of ScyllaDB's 2017 write-up and the negative control of scylla-cluster-tests#9484.
// Scenarios built in memory, fixed seeds; each expected number is derived or measured next to
// its assertion.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::run_first;

// configs/hwlb-restart.json, shortened: 3 nodes in one rack, RF 3, scylla-2025.1, QUORUM reads of
// 30,000 keys in sequence at 1,000 op/s (open loop), a warm cache that holds every key (as after a
// CL ALL warm-up), a disk of 500 reads/s (assumed: "slow storage", no number published). Node b
// restarts at 10 s; the window is the `window_s` seconds after `from_s`.
jsonin::Json restart_doc(bool hwlb, double from_s = 10, double window_s = 30) {
  auto doc = jsonin::Json::parse(R"({
    "name": "hwlb-restart", "seed": 7,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 16, "shards": 1, "server": "scylla-2025.1",
                "service": {"coordinator": 20, "read": 100, "write": 50},
                "cache": {"capacity_mb": 64, "partition_size": 1000, "initial": "warm"},
                "disk": {"read_iops": 500, "read_bandwidth": 1000000000}},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "network": {"same_rack": 100, "same_dc": 100, "cross_dc": 100},
    "client": {"dc": "dc1", "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0, "rate_ops_s": 1000,
               "thread_local_draw_ns": 0, "shared_draw_ns": 0, "line_transfer_ns": 0, "max_in_flight": 1000000},
    "workload": {"duration_s": 30, "warmup_s": 10, "mix": {"read": 1}, "consistency": {"read": "QUORUM"},
                 "keys": {"count": 30000, "distribution": "sequential"}},
    "faults": {"events": [{"at_s": 10, "node": "b", "kind": "restart"}]},
    "policies": [{"name": "ta", "policy": {"type": "TokenAware", "child": {"type": "RoundRobin"}}}]
  })");
  doc["cluster"]["cache_hit_rate_read_balancing"] = hwlb;
  doc["workload"]["warmup_s"] = from_s;
  doc["workload"]["duration_s"] = window_s;
  return doc;
}

double miss_rate(const NodeResult& n, double secs) { return static_cast<double>(n.cache->misses) / secs; }

// The write-up's claim: without HWLB the restarted node's misses overload its disk and the
// latency climbs; with HWLB the cold node gets a small share and the latency stays low.
TEST(HwlbEngine, RestartSpikesWithoutHwlbNotWithIt) {
  const RunResult off = run_first(build(restart_doc(false)));
  const RunResult on = run_first(build(restart_doc(true)));
  std::printf("p99 over the 30 s after the restart: without HWLB %.2f ms, with %.2f ms\n",
              to_ms(off.latency.percentile(99)), to_ms(on.latency.percentile(99)));
  for (const RunResult* r : {&off, &on})
    for (const NodeResult& n : r->nodes)
      std::printf("  %s %s: replica reads %llu, misses/s %.1f, hit rate %.3f\n", r == &off ? "off" : "on ",
                  n.id.c_str(), static_cast<unsigned long long>(n.replica_reads), miss_rate(n, 30),
                  n.cache->hit_rate);
  // Without: b takes its own third of the reads and about half of the others' second reads, ~667/s,
  // all misses at first, against 500 disk reads/s: its queue grows for as long as the miss rate
  // exceeds 500/s, and a read waiting on b waits for the queue.
  EXPECT_GT(off.latency.percentile(99), 100 * kMs);
  // With: b's rate reads 0 (capped 0.95 for the others): its share is 1/41 of the picks, about
  // 50 reads/s, under its disk's 500/s; the p99 stays at a few ms.
  EXPECT_LT(on.latency.percentile(99), 10 * kMs);
  EXPECT_LT(on.nodes[1].replica_reads, off.nodes[1].replica_reads / 4);
}

// The shares in the engine: from 2 s after the restart (b's rate, 0, published and heard) until
// b's first meter tick shows hits, the rates read (0.95, 0, 0.95) after the cap: p = R / sum R with
// R = 1 / (1 - h) = (20, 1, 20), so b should take 1/41 of the 2,000 replica reads per second
// (48.8/s) and a and c 20/41 each (975.6/s); the clip at 1/CL = 0.5 does not bind (20/41 < 0.5).
// heat_load_balance.hpp's coordinator shares keep these totals whoever coordinates.
TEST(HwlbEngine, RestartedNodeGetsItsMissEqualisingShare) {
  const RunResult r = run_first(build(restart_doc(true, 12, 25)));
  const double b = static_cast<double>(r.nodes[1].replica_reads) / 25;
  const double a = static_cast<double>(r.nodes[0].replica_reads) / 25;
  const double c = static_cast<double>(r.nodes[2].replica_reads) / 25;
  std::printf("replica reads/s: a %.1f, b %.1f, c %.1f (expected 975.6, 48.8, 975.6)\n", a, b, c);
  // Measured a 975.0, b 48.0, c 974.0. The systematic sampling is random: b's count over
  // 25 s is about binomial(50,000, 1/41), sd 35 reads, 1.4/s; 10 % (4.9/s) is over three of them.
  EXPECT_NEAR(b, 2000.0 / 41, 0.1 * 2000.0 / 41);
  EXPECT_NEAR(a, 2000.0 * 20 / 41, 0.02 * 2000.0 * 20 / 41);
  EXPECT_NEAR(c, 2000.0 * 20 / 41, 0.02 * 2000.0 * 20 / 41);
  // The cap before scylladb#8815's fix (0.999, before scylla-4.6): R = (1000, 1, 1000), so b gets
  // 1/2001 of the picks, about 1 read/s: the cold node barely warms (the fix's second reason).
  // Measured 1.48: a coordinator that has not heard b for 1 s reads its rate as the cap once
  // (the staleness rule), and then all rates tie and the proximity order sends b a read.
  auto old_cap = restart_doc(true, 12, 25);
  old_cap["cluster"]["cache_hit_rate_read_balancing"] = {{"max_hit_rate", 0.999}};
  const double b_old = static_cast<double>(run_first(build(old_cap)).nodes[1].replica_reads) / 25;
  std::printf("with the 0.999 cap: b %.2f reads/s (expected 1.0)\n", b_old);
  EXPECT_LT(b_old, 3.0);
  EXPECT_GT(b_old, 0.2);
}

// scylladb#14927's warm criterion: every node's miss rate within 20 % of the average (here over 10 s
// windows; with the hot nodes at 0 misses, the restarted node must reach 0 too). Measured over
// windows every 60 s (a scratch run, docs/read-balancing.md): without HWLB the criterion first holds
// in the window starting 240 s after the restart (b's hit rate 0.879 at 60 s, 0.998 at 180 s);
// with HWLB in the one starting 1,020 s after it (b's hit rate 0.12 at 60 s, 0.52 at 360 s, 0.95
// at about 720 s): HWLB trades the latency spike for a warm-up four times longer, the concern
// #14927 states ("for workloads with very low miss rates, it takes too long to warm the cache up").
// Asserted at the window starting 240 s after the restart.
TEST(HwlbEngine, RestartedNodeWarmsSlowerWithHwlb) {
  auto warm = [](const RunResult& r) {
    double avg = 0;
    for (const NodeResult& n : r.nodes) avg += miss_rate(n, 10) / 3;
    bool all = true;
    for (const NodeResult& n : r.nodes) all = all && std::abs(miss_rate(n, 10) - avg) <= 0.2 * avg;
    return all;
  };
  const RunResult off = run_first(build(restart_doc(false, 250, 10)));
  const RunResult on = run_first(build(restart_doc(true, 250, 10)));
  std::printf("240 s after the restart: b's hit rate without HWLB %.3f, with %.3f\n", off.nodes[1].cache->hit_rate,
              on.nodes[1].cache->hit_rate);
  EXPECT_TRUE(warm(off));
  EXPECT_FALSE(warm(on));
  EXPECT_GT(off.nodes[1].cache->hit_rate, 0.99);  // measured 1.000
  EXPECT_LT(on.nodes[1].cache->hit_rate, 0.5);    // measured 0.354
}

}  // namespace
}  // namespace lbsim

namespace lbsim {
namespace {

// The negative control, scylla-cluster-tests#9484's read test shape: 3 nodes, RF 3, QUORUM reads
// in sequence over a working set that fits in every node's cache, warm (as after the CL ALL
// warm-up), closed loop at saturation (the test measured max throughput). c-s 3.13.0 (NEUTRAL)
// against 3.17.0 (RANDOM): every node holds every key and the coordinator always reads itself plus
// one other replica, so the ordering cannot move a hit rate. Sizes are the shape's, scaled down
// (20,000 keys of 1 KiB instead of 20 M); the CPU costs are lbsim's defaults.
jsonin::Json control_doc(const std::string& ordering, bool cache) {
  auto doc = jsonin::Json::parse(R"({
    "name": "negative-control", "seed": 3,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r2"},
                          {"id": "c", "dc": "dc1", "rack": "r3"}],
                "num_tokens": 16, "shards": 2, "server": "scylla-2025.1",
                "cache": {"capacity_mb": 64, "partition_size": 1024, "initial": "warm"},
                "disk": {"read_iops": 500, "read_bandwidth": 1000000000}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}},
    "client": {"dc": "dc1", "threads": 64},
    "workload": {"ops": 60000, "warmup_ops": 6000, "mix": {"read": 1}, "consistency": {"read": "QUORUM"},
                 "keys": {"count": 20000, "distribution": "sequential"}},
    "policies": [{"name": "ta", "policy": {"type": "TokenAware", "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}}]
  })");
  doc["policies"][0]["policy"]["ordering"] = ordering;
  if (!cache) {
    doc["cluster"].erase("cache");
    doc["cluster"].erase("disk");
  }
  return doc;
}

TEST(HwlbEngine, NegativeControlOrderingDoesNotMoveTheCache) {
  double tput[2][2], hit[2];
  for (int c = 0; c < 2; ++c)
    for (int o = 0; o < 2; ++o) {
      const RunResult r = run_first(build(control_doc(o == 0 ? "NEUTRAL" : "RANDOM", c == 1)));
      tput[c][o] = r.throughput();
      if (c == 1) {
        std::uint64_t h = 0, m = 0;
        for (const NodeResult& n : r.nodes) {
          h += n.cache->hits;
          m += n.cache->misses;
        }
        hit[o] = static_cast<double>(h) / static_cast<double>(h + m);
      }
    }
  const double ratio_cache = tput[1][0] / tput[1][1], ratio_plain = tput[0][0] / tput[0][1];
  std::printf("hit rate NEUTRAL %.4f RANDOM %.4f; throughput NEUTRAL/RANDOM with the cache %.4f, without %.4f\n",
              hit[0], hit[1], ratio_cache, ratio_plain);
  EXPECT_LT(std::abs(hit[0] - hit[1]), 0.01);
  EXPECT_GT(hit[0], 0.99);  // warm, and it fits: no miss but cold ones
  // What the cache adds to the NEUTRAL/RANDOM throughput ratio: less than 1 %.
  EXPECT_LT(std::abs(ratio_cache - ratio_plain), 0.01);
}

}  // namespace
}  // namespace lbsim
