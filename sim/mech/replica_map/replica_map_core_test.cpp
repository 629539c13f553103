// The replica maps' counters through the core harness (tests/core/harness.hpp): the hooks
// op_started and attempt_sent fired directly, with chosen tokens and hosts, on issue 36's minimal
// ring (configs/incidents/gocql-replica-map-shuffle.json): A(-5e18), B(-4e18, -3e18), C(0) on one
// rack, RF 2, where gocql's map lists [B, B] for B's first range (the correct replicas [B, C]) and
// [A, B] past the last token (tests/policy_replica_bugs_test.cpp traces both lists).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/harness.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/mech/replica_map/replica_map.hpp"

namespace lbsim::replica_map_core_test {
namespace {

Scenario minimal_ring(const std::string& replica_source) {
  auto doc = jsonin::Json::parse(R"({
    "name": "replica-map-core", "seed": 36,
    "cluster": {"nodes": [{"id": "A", "dc": "dc1", "rack": "r1", "tokens": [-5000000000000000000]},
                          {"id": "B", "dc": "dc1", "rack": "r1", "tokens": [-4000000000000000000, -3000000000000000000]},
                          {"id": "C", "dc": "dc1", "rack": "r1", "tokens": [0]}]},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 2}},
    "client": {"dc": "dc1", "rate_ops_s": 300},
    "workload": {"ops": 10, "mix": {"read": 1}, "consistency": {"read": "LOCAL_ONE"}},
    "policies": [{"name": "go", "policy": {"type": "GoTokenAware", "child": {"type": "GoRoundRobin"}}}]
  })");
  if (!replica_source.empty()) doc["policies"][0]["policy"]["replica_source"] = replica_source;
  return testing::build(doc);
}

std::uint32_t op_of(Simulation::Impl& core, Token token, bool routed = true) {
  const std::uint32_t op = core.ops_.alloc();
  core.ops_[op].token = token;
  core.ops_[op].routed = routed;
  return op;
}

std::uint32_t attempt_to(Simulation::Impl& core, std::uint32_t op, NodeId host) {
  const std::uint32_t a = core.attempts_.alloc();
  core.attempts_[a].op = op;
  core.attempts_[a].host = host;
  return a;
}

TEST(ReplicaMapCore, SubscribesOnlyToADriversMap) {
  testing::CoreHarness correct(minimal_ring(""));
  EXPECT_EQ(correct.mechanism<ReplicaMap>(), nullptr);
  EXPECT_TRUE(correct.core().hooks_.op_started.empty());
  EXPECT_TRUE(correct.core().hooks_.attempt_sent.empty());
  testing::CoreHarness gocql(minimal_ring("gocql"));
  ASSERT_NE(gocql.mechanism<ReplicaMap>(), nullptr);
  EXPECT_EQ(gocql.core().hooks_.op_started.size(), 1u);
  EXPECT_EQ(gocql.core().hooks_.attempt_sent.size(), 1u);
}

// The key 00000001 falls in B's first range: its list [B, B] repeats B. Token 1, past the last
// token, lists [A, B]. An unrouted operation has no list and is not counted.
TEST(ReplicaMapCore, AnOperationWhoseListRepeatsAHostIsCounted) {
  testing::CoreHarness h(minimal_ring("gocql"));
  ReplicaMap* m = h.mechanism<ReplicaMap>();
  ASSERT_NE(m, nullptr);
  auto& core = h.core();
  const Token key = murmur3_token(std::vector<std::uint8_t>{0, 0, 0, 1});
  ASSERT_GT(key, -5'000'000'000'000'000'000);
  ASSERT_LE(key, -4'000'000'000'000'000'000);
  core.hooks_.op_started.fire(op_of(core, key));
  EXPECT_EQ(m->counts().ops, 1u);
  EXPECT_EQ(m->counts().repeated, 1u);
  core.hooks_.op_started.fire(op_of(core, 1));
  EXPECT_EQ(m->counts().ops, 2u);
  EXPECT_EQ(m->counts().repeated, 1u);
  core.hooks_.op_started.fire(op_of(core, key, false));
  EXPECT_EQ(m->counts().ops, 2u);
  // The rule itself: a host named twice anywhere in the list.
  EXPECT_TRUE(ReplicaMap::repeats(std::vector<NodeId>{3, 1, 2, 1}));
  EXPECT_FALSE(ReplicaMap::repeats(std::vector<NodeId>{3, 1, 2, 0}));
  EXPECT_FALSE(ReplicaMap::repeats({}));
}

// One operation: its first attempt to B, a retry on the plan's next host that is B again (counted,
// and sent back to B), one to C (counted); a same-host retry decision to C is no retry on the next
// host; a speculative execution to A is not counted but is the attempt before the next retry,
// which goes to A again.
TEST(ReplicaMapCore, ARetryToTheHostOfTheAttemptBeforeIsCounted) {
  testing::CoreHarness h(minimal_ring("gocql"));
  ReplicaMap* m = h.mechanism<ReplicaMap>();
  ASSERT_NE(m, nullptr);
  auto& core = h.core();
  auto& sent = core.hooks_.attempt_sent;
  const std::uint32_t op = op_of(core, 1);
  sent.fire(op, attempt_to(core, op, 1), SendKind::First);
  sent.fire(op, attempt_to(core, op, 1), SendKind::NextHost);
  EXPECT_EQ(m->counts().retries, 1u);
  EXPECT_EQ(m->counts().retries_same_host, 1u);
  sent.fire(op, attempt_to(core, op, 2), SendKind::NextHost);
  sent.fire(op, attempt_to(core, op, 2), SendKind::SameHost);
  EXPECT_EQ(m->counts().retries, 2u);
  EXPECT_EQ(m->counts().retries_same_host, 1u);
  sent.fire(op, attempt_to(core, op, 0), SendKind::Speculative);
  sent.fire(op, attempt_to(core, op, 0), SendKind::NextHost);
  EXPECT_EQ(m->counts().retries, 3u);
  EXPECT_EQ(m->counts().retries_same_host, 2u);
  // Another operation's first attempt to A starts its own history.
  const std::uint32_t other = op_of(core, 1);
  sent.fire(other, attempt_to(core, other, 0), SendKind::First);
  sent.fire(other, attempt_to(core, other, 1), SendKind::NextHost);
  EXPECT_EQ(m->counts().retries, 4u);
  EXPECT_EQ(m->counts().retries_same_host, 2u);
  RunResult r;
  m->collect(r);
  ASSERT_TRUE(r.replica_map.has_value());
  EXPECT_EQ(r.replica_map->retries, 4u);
}

}  // namespace
}  // namespace lbsim::replica_map_core_test
