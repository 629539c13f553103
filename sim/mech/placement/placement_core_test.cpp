// The placement through the core harness (tests/core/harness.hpp): the topology changes' events
// handled by hand at their times, the strategies asked directly with chosen requests, the hooks
// fired as the request path fires them. Every expected figure follows from the scenarios below.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "core/harness.hpp"
#include "sim/mech/placement/tablets.hpp"
#include "sim/mech/placement/vnodes.hpp"

namespace lbsim {
namespace {

// 3 nodes in racks r1..r3 (n4 joins r1 at 1 s when `join`), 1 shard, RF 3 per rack, 16 tablets
// (or 16 vnodes), faults detected after 100 ms. A tablet migration takes 100 ms plus 10 MB
// (160 MB over 16 tablets) at 100 MB/s: writes both and reads old until 1.15 s, then reads new
// until 1.2 s (lbsim's unspecified rules).
jsonin::Json placement_core_doc(bool tablets, bool join, int nodes = 3) {
  auto d = jsonin::Json::parse(R"({
    "name": "placement-core", "seed": 7,
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": 3}], "num_tokens": 16, "shards": 1,
                "service": {"coordinator": 20, "read": 100, "write": 50}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}, "tablets": {"initial": 16}},
    "faults": {"driver_detection_ms": 100, "server_detection_ms": 100},
    "client": {"dc": "dc1", "rate_ops_s": 100},
    "workload": {"duration_s": 3, "mix": {"read": 1, "write": 1}, "consistency": {"read": "QUORUM", "write": "QUORUM"}},
    "policies": [{"name": "random", "policy": {"type": "TokenAware", "ordering": "RANDOM",
                                              "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}}]
  })");
  d["cluster"]["datacenters"][0]["nodes"] = nodes;
  if (!tablets) d["keyspace"].erase("tablets");
  if (join) {
    d["changes"] = jsonin::Json::parse(
        R"({"events": [{"at_s": 1, "action": "add_node", "nodes": [{"dc": "dc1", "rack": "r1"}]}]})");
    if (tablets)
      d["changes"]["migration"] =
          jsonin::Json::parse(R"({"latency_ms": 100, "table_size_mb": 160, "stream_mb_s": 100})");
    else
      d["changes"]["streaming_s"] = 0.1;
  }
  return d;
}

// Pops the next mechanism event, which must be the placement's `sub`, and handles it at its time;
// the detections before it are handled too (the drivers and gossip learn of the nodes).
void handle_next_placement_event(testing::CoreHarness& h, std::uint16_t sub, SimTime at) {
  auto& core = h.core();
  ASSERT_FALSE(core.q_.empty());
  auto e = core.q_.pop();
  while (e.type() == Simulation::Impl::kDetect) {
    h.set_now(e.at);
    core.on_detect(e.id());
    ASSERT_FALSE(core.q_.empty());
    e = core.q_.pop();
  }
  ASSERT_EQ(e.type(), Simulation::Impl::kMech);
  EXPECT_EQ(core.mech_events_.peek(e.id()).sub, sub);
  EXPECT_EQ(e.at, at);
  h.set_now(e.at);
  core.on_mech(e.id());
}

// A coordinator request of `kind` for (range, token) on `node`: its slot.
std::uint32_t placement_request(Simulation::Impl& core, OpKind kind, std::uint32_t range, Token token,
                                NodeId node = 0) {
  const std::uint32_t cr = core.crs_.alloc();
  auto& c = core.crs_[cr];
  c.kind = kind;
  c.range = range;
  c.token = token;
  c.node = node;
  c.shard = 0;
  c.routed = true;
  return cr;
}

std::vector<NodeId> hosts_of(std::span<const NodeId> s) { return {s.begin(), s.end()}; }
bool holds(std::span<const NodeId> s, NodeId n) { return std::find(s.begin(), s.end(), n) != s.end(); }

TEST(PlacementCore, AJoiningNodeIsUnknownUntilItJoinsAndItsChangeIsPushedAtOnce) {
  testing::CoreHarness h(testing::build(placement_core_doc(true, true)));
  auto& core = h.core();
  ASSERT_NE(h.mechanism<TabletPlacement>(), nullptr);
  EXPECT_EQ(h.mechanism<VnodeChanges>(), nullptr);
  EXPECT_FALSE(core.view_.is_known(3));
  EXPECT_FALSE(core.view_.is_up(3));
  EXPECT_EQ(core.server_up_[3], 0);
  EXPECT_TRUE(core.view_.is_known(0));
  EXPECT_FALSE(core.answers_fixed_);  // replicas move during the run
  ASSERT_EQ(core.q_.size(), 1u);      // the change, nothing else
  handle_next_placement_event(h, Placement::kChange, 1 * kSec);
  // The joining node is a member for gossip at once, for the drivers after their detection delay.
  EXPECT_EQ(core.server_up_[3], 1);
  EXPECT_FALSE(core.view_.is_known(3));
  ASSERT_FALSE(core.detections_.empty());
  const auto& d = core.detections_[core.detections_.size() - 2];
  EXPECT_TRUE(d.driver);
  EXPECT_EQ(d.node, 3u);
  EXPECT_EQ(d.at, 1100 * kMs);
  EXPECT_EQ(d.member, 1);
}

TEST(PlacementCore, ATabletsWritesGoToItsPendingReplicaWhileItMovesAndReadsSwitchAfterTheStreaming) {
  testing::CoreHarness h(testing::build(placement_core_doc(true, true)));
  auto& core = h.core();
  auto* p = h.mechanism<TabletPlacement>();
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->map().count(), 16u);
  handle_next_placement_event(h, Placement::kChange, 1 * kSec);
  // Gossip knows n4 at once; the balancer moved two tablets (two streams per shard) from n1, the
  // only other node of rack r1, to n4.
  EXPECT_EQ(core.server_up_[3], 1);
  std::vector<const TabletPlacement::Migration*> active;
  for (const auto& m : p->migrations())
    if (m.active) active.push_back(&m);
  ASSERT_EQ(active.size(), 2u);
  const TabletPlacement::Migration& m = *active[0];
  EXPECT_EQ(m.m.from.host, 0u);
  EXPECT_EQ(m.m.to.host, 3u);
  EXPECT_EQ(m.stage, TabletPlacement::MigStage::WriteBothReadOld);
  const auto tablet = static_cast<std::uint32_t>(m.m.tablet);

  std::array<NodeId, 64> buf;
  std::uint32_t pending = 9;
  const std::uint32_t w = placement_request(core, OpKind::Write, tablet, 0);
  const std::uint32_t r = placement_request(core, OpKind::Read, tablet, 0);
  // Write both: n1, n2, n3, then n4 pending; read old: n1, n2, n3.
  auto writes = hosts_of(core.coordinator_replicas(w, false, buf, pending));
  EXPECT_EQ(pending, 1u);
  ASSERT_EQ(writes.size(), 4u);
  EXPECT_EQ(writes.back(), 3u);
  EXPECT_TRUE(holds(writes, 0));
  auto reads = hosts_of(core.coordinator_replicas(r, true, buf, pending));
  EXPECT_EQ(pending, 0u);
  EXPECT_EQ(reads.size(), 3u);
  EXPECT_TRUE(holds(reads, 0));
  EXPECT_FALSE(holds(reads, 3));

  // 1.15 s: streamed; reads go to n4 instead of n1, writes still to both.
  handle_next_placement_event(h, Placement::kMigration, 1150 * kMs);
  handle_next_placement_event(h, Placement::kMigration, 1150 * kMs);  // the other migration
  EXPECT_EQ(m.stage, TabletPlacement::MigStage::WriteBothReadNew);
  reads = hosts_of(core.coordinator_replicas(r, true, buf, pending));
  EXPECT_TRUE(holds(reads, 3));
  EXPECT_FALSE(holds(reads, 0));
  writes = hosts_of(core.coordinator_replicas(w, false, buf, pending));
  EXPECT_EQ(pending, 1u);
  EXPECT_EQ(writes.size(), 4u);

  // 1.2 s: the map has n4 in n1's place, nothing pending, and the balancer starts the next moves.
  handle_next_placement_event(h, Placement::kMigration, 1200 * kMs);
  handle_next_placement_event(h, Placement::kMigration, 1200 * kMs);
  writes = hosts_of(core.coordinator_replicas(w, false, buf, pending));
  EXPECT_EQ(pending, 0u);
  EXPECT_EQ(writes.size(), 3u);
  EXPECT_TRUE(holds(writes, 3));
  EXPECT_FALSE(holds(writes, 0));
  std::size_t moving = 0;
  for (const auto& x : p->migrations()) moving += x.active ? 1 : 0;
  EXPECT_EQ(moving, 2u);
  EXPECT_EQ(core.replica_shard(tablet, 0, 3), 0u);  // one shard
}

// 4 nodes in 3 racks: a tablet has a node that holds none of its replicas.
TEST(PlacementCore, ACachedMissLearnsTheTabletFromThePayloadOfTheAnswer) {
  auto doc = placement_core_doc(true, false, 4);
  doc["client"]["tablets"] = jsonin::Json::parse(R"({"cache": "cold"})");
  testing::CoreHarness h(testing::build(doc));
  auto& core = h.core();
  auto* p = h.mechanism<TabletPlacement>();
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(core.answers_fixed_);  // no change: every scheduled answer arrives
  // A tablet and a token in it; the node outside its replicas.
  const std::uint32_t tablet = 5;
  Token token = 0;
  for (std::int64_t i = 0; i < 256; ++i) {  // 256 steps of 2^56 cover the ring
    const Token t = kMinToken + i * (Token{1} << 56);
    if (tablet_index(t, p->map().log2_count()) == tablet) {
      token = t;
      break;
    }
  }
  ASSERT_EQ(tablet_index(token, p->map().log2_count()), tablet);
  EXPECT_EQ(core.hooks_.op_range(token), tablet);
  NodeId outside = 0;
  std::vector<NodeId> replicas;
  for (const TabletReplica& x : p->map().replicas(tablet)) replicas.push_back(x.host);
  while (holds(replicas, outside)) ++outside;
  ASSERT_LT(outside, 4u);

  // Cold: the driver falls back to the vnode token map, once counted.
  EXPECT_FALSE(p->cached(tablet));
  EXPECT_EQ(hosts_of(core.hooks_.driver_replicas(tablet, token)),
            hosts_of(core.ring_.replicas(token, ReplicaOrder::Driver)));
  EXPECT_EQ(p->counters().fallback, 1u);

  // The non-replica coordinator marks its answer with the payload; the driver merges it.
  const std::uint32_t cr = placement_request(core, OpKind::Read, tablet, token, outside);
  core.hooks_.coordinator_executed.fire(cr);
  EXPECT_TRUE(core.crs_[cr].payload);
  EXPECT_EQ(p->counters().non_replica, 1u);
  core.crs_[cr].success = true;
  core.hooks_.answer_received.fire(cr);
  EXPECT_TRUE(p->cached(tablet));
  EXPECT_EQ(p->counters().payloads, 1u);
  EXPECT_EQ(p->counters().cache_updates, 1u);
  EXPECT_EQ(hosts_of(core.hooks_.driver_replicas(tablet, token)), replicas);
  EXPECT_EQ(p->counters().fallback, 1u);

  // A replica coordinator on the tablet's shard adds no payload.
  const std::uint32_t ok = placement_request(core, OpKind::Read, tablet, token, replicas[0]);
  core.hooks_.coordinator_executed.fire(ok);
  EXPECT_FALSE(core.crs_[ok].payload);
  EXPECT_EQ(p->counters().non_replica, 1u);
  EXPECT_EQ(p->counters().wrong_shard, 0u);
}

TEST(PlacementCore, AVnodeJoinsPendingRangesTakeWritesThenTheRingSwitchesAndTheDriverFollows) {
  testing::CoreHarness h(testing::build(placement_core_doc(false, true)));
  auto& core = h.core();
  auto* v = h.mechanism<VnodeChanges>();
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(h.mechanism<TabletPlacement>(), nullptr);
  EXPECT_FALSE(core.view_.is_known(3));
  EXPECT_EQ(v->pending_ring(), nullptr);
  EXPECT_EQ(v->coordinators_ring(), &core.ring_);
  handle_next_placement_event(h, Placement::kChange, 1 * kSec);
  const TokenRing* next = v->pending_ring();
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(core.server_up_[3], 1);  // gossip knows the joining node: it takes pending writes

  // Every range of the new ring: a write goes to the current replicas and, where n4 takes the
  // range over, n4 pending; a read to the current replicas only. n4 joins rack r1, whose only
  // member n1 held every range: each range of the new ring has n1 or n4 (one replica per rack).
  std::array<NodeId, 64> buf;
  std::uint32_t pending = 0;
  std::size_t with_pending = 0;
  for (std::size_t i = 0; i < next->size(); ++i) {
    const Token t = next->token_at(i);
    const std::uint32_t w = placement_request(core, OpKind::Write, 0, t);
    const auto writes = hosts_of(core.coordinator_replicas(w, false, buf, pending));
    EXPECT_EQ(core.crs_[w].range, core.ring_.range_index(t));  // the coordinators' ring is still the old one
    const bool takes = holds(next->replicas(t, ReplicaOrder::Server), 3);
    EXPECT_EQ(pending, takes ? 1u : 0u) << i;
    EXPECT_EQ(writes.size(), takes ? 4u : 3u) << i;
    if (takes) {
      EXPECT_EQ(writes.back(), 3u);
    }
    EXPECT_NE(takes, holds(next->replicas(t, ReplicaOrder::Server), 0)) << i;
    with_pending += pending;
    const std::uint32_t r = placement_request(core, OpKind::Read, 0, t);
    const auto reads = hosts_of(core.coordinator_replicas(r, true, buf, pending));
    EXPECT_EQ(pending, 0u);
    EXPECT_FALSE(holds(reads, 3));
    EXPECT_EQ(reads.size(), 3u);
  }
  // 4 x 16 tokens; n4 replicates at least the 16 ranges it owns, n1 keeps some.
  EXPECT_EQ(next->size(), 64u);
  EXPECT_GE(with_pending, 16u);
  EXPECT_LT(with_pending, 64u);

  // 1.1 s: the coordinators switch; the drivers keep the old map until their detection (1.2 s).
  handle_next_placement_event(h, Placement::kChangeDone, 1100 * kMs);
  EXPECT_EQ(v->coordinators_ring(), next);
  EXPECT_EQ(v->pending_ring(), nullptr);
  EXPECT_EQ(v->drivers_ring(), &core.ring_);
  const Token t = next->token_at(0);
  EXPECT_EQ(core.hooks_.op_range(t), core.ring_.range_index(t));
  std::uint32_t driver = 0;
  for (std::uint32_t i = 0; i < core.detections_.size(); ++i)
    if (core.detections_[i].driver && core.detections_[i].ring == next) driver = i;
  EXPECT_EQ(core.detections_[driver].at, 1200 * kMs);
  h.set_now(1200 * kMs);
  core.on_detect(driver);
  EXPECT_EQ(v->drivers_ring(), next);
  EXPECT_TRUE(core.view_.is_known(3));
  EXPECT_TRUE(core.view_.is_up(3));
  EXPECT_EQ(core.hooks_.op_range(t), next->range_index(t));
}

}  // namespace
}  // namespace lbsim
