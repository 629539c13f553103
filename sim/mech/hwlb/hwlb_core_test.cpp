// HWLB through the core harness (tests/core/harness.hpp): chosen cache counters drive the meters
// and rates, read responses and a lost process drive what coordinators know, and the read_order
// strategy is asked directly.
#include <gtest/gtest.h>

#include <array>

#include "core/harness.hpp"
#include "sim/mech/hwlb/hwlb.hpp"

namespace lbsim {
namespace {

Scenario three_scylla_nodes() {
  return testing::build(jsonin::Json::parse(R"({
    "name": "hwlb-core", "seed": 11,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 16, "shards": 1, "server": "scylla-2025.1",
                "service": {"coordinator": 20, "read": 100, "write": 50},
                "cache": {"capacity_mb": 64, "partition_size": 1000},
                "cache_hit_rate_read_balancing": true},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "client": {"dc": "dc1", "rate_ops_s": 300},
    "workload": {"ops": 10, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })"));
}

// Over the first 10 s meter tick, a's reads hit 900 times and missed 100 times, b's hit 1,000 and
// never missed, c's hit and missed 500 times each: rates 0.9, 1 and 0.5 (reads without misses over
// all reads). Coordinator a hears b and c in read responses; b's rate is capped at 0.95
// (scylla-2025.1). For a ONE read among b and c, the miss-equalising shares are R = 1 / (1 - h):
// 20 and 2, so b gets 20 / 22 = 0.909 of them (a is no replica: the shares are used as they are).
TEST(HwlbCore, ChosenCountersGiveTheMissEqualisingShares) {
  testing::CoreHarness h(three_scylla_nodes());
  Hwlb* w = h.mechanism<Hwlb>();
  ASSERT_NE(w, nullptr);
  CacheDisk* c = h.mechanism<CacheDisk>();
  ASSERT_NE(c, nullptr);
  c->counts(0).hits = 900;
  c->counts(0).misses = 100;
  c->counts(1).hits = 1000;
  c->counts(2).hits = 500;
  c->counts(2).misses = 500;
  h.set_now(10 * kSec);
  w->on_event(0, 0);  // the tick on the 10 s meter
  EXPECT_DOUBLE_EQ(w->node_rate(0), 0.9);
  EXPECT_DOUBLE_EQ(w->node_rate(1), 1.0);
  EXPECT_DOUBLE_EQ(w->node_rate(2), 0.5);
  w->response(0, 1, 10 * kSec);
  w->response(0, 2, 10 * kSec);
  EXPECT_DOUBLE_EQ(w->peer_rate(0, 0), 0.9);   // its own rate, always fresh
  EXPECT_DOUBLE_EQ(w->peer_rate(0, 1), 0.95);  // capped
  EXPECT_DOUBLE_EQ(w->peer_rate(0, 2), 0.5);

  const ClNeed one = cl_need(ConsistencyLevel::One, 0, h.core().rf_);
  const std::array<NodeId, 2> replicas{1, 2};
  std::array<NodeId, 64> out{};
  int to_b = 0;
  constexpr int kReads = 4000;
  for (int i = 0; i < kReads; ++i) {
    ASSERT_EQ(h.core().hooks_.read_order(one, 0, replicas, out), 1u);
    to_b += out[0] == 1 ? 1 : 0;
  }
  // Binomial(4000, 0.909): mean 3,636, standard deviation 18; within 4 of them.
  EXPECT_NEAR(to_b, 4000.0 * 20.0 / 22.0, 4 * 18.2);

  // b's process is lost: its rate starts over and a forgets it; its gossip has nothing published
  // yet (-1), which switches HWLB off for the read: the proximity order, where b and c (one rack)
  // tie and scylla-2025.1 shuffles them (shuffle_equal_distance_reads): b gets half the reads.
  h.core().hooks_.process_lost.fire(1);
  EXPECT_DOUBLE_EQ(w->node_rate(1), 0.0);
  EXPECT_DOUBLE_EQ(w->peer_rate(0, 1), -1.0);
  to_b = 0;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(h.core().hooks_.read_order(one, 0, replicas, out), 1u);
    to_b += out[0] == 1 ? 1 : 0;
  }
  EXPECT_NEAR(to_b, 500.0, 4 * 15.8);  // Binomial(1000, 1/2): standard deviation 15.8
}

}  // namespace
}  // namespace lbsim
