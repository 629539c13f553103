// The dynamic snitch through the core harness (tests/core/harness.hpp): its hooks fired and its
// read order asked directly, with chosen latencies, on the three-node cluster of
// snitch_scenarios_test.cpp (one rack, so the subsnitch order is the replicas' own).
#include <gtest/gtest.h>

#include <array>

#include "core/harness.hpp"
#include "sim/mech/snitch/snitch.hpp"

namespace lbsim {
namespace {

Scenario three_nodes(const std::string& server) {
  auto doc = jsonin::Json::parse(R"({
    "name": "snitch-core", "seed": 11,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 8, "shards": 1, "service": {"coordinator": 0, "read": 200, "write": 200}},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "client": {"dc": "dc1", "rate_ops_s": 300},
    "workload": {"ops": 10, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  doc["cluster"]["server"] = server;
  return testing::build(doc);
}

// Coordinator a hears b answer in 5 ms and c in 1 ms; at the next update (dynamic_snitch's
// default interval, 100 ms) b scores 5 / 5 = 1 and c 1 / 5 = 0.2 (median over the largest
// median). Cassandra 3.11's badness threshold 0.1: b first in the subsnitch order has score
// 1 > 0.2 x 1.1, so the replicas are sorted by score and a ONE read goes to c.
TEST(SnitchCore, ScoresFromChosenLatenciesReorderTheReadReplicas) {
  testing::CoreHarness h(three_nodes("cassandra-3.11"));
  Snitch* s = h.mechanism<Snitch>();
  ASSERT_NE(s, nullptr);
  const std::array<NodeId, 2> replicas{1, 2};  // b, c
  std::array<NodeId, 64> out{};
  const ClNeed one = cl_need(ConsistencyLevel::One, 0, h.core().rf_);
  // No samples yet: the subsnitch order, b first.
  ASSERT_EQ(s->targets(one, 0, replicas, out), 1u);
  EXPECT_EQ(out[0], 1u);

  const auto [cr_b, job_b] = h.read_job(0, 1);
  const auto [cr_c, job_c] = h.read_job(0, 2);
  h.set_now(10 * kMs);
  h.core().hooks_.read_sent.fire(job_b);
  h.core().hooks_.read_sent.fire(job_c);
  h.core().hooks_.read_answer.fire(job_b, 0, 1, 15 * kMs);
  h.core().hooks_.read_answer.fire(job_c, 0, 2, 11 * kMs);
  EXPECT_EQ(s->score(0, 1), -1.0);  // recorded at the next tick only
  h.set_now(100 * kMs);
  s->on_event(Snitch::kUpdate, 0);
  EXPECT_DOUBLE_EQ(s->score(0, 1), 1.0);
  EXPECT_DOUBLE_EQ(s->score(0, 2), 0.2);
  ASSERT_EQ(s->targets(one, 0, replicas, out), 1u);
  EXPECT_EQ(out[0], 2u);
  // Another coordinator has heard nothing: its order is the subsnitch's.
  ASSERT_EQ(s->targets(one, 1, std::array<NodeId, 2>{2, 0}, out), 1u);
  EXPECT_EQ(out[0], 2u);
  // A reset drops the samples but keeps the scores until the next update.
  s->on_event(Snitch::kReset, 0);
  EXPECT_DOUBLE_EQ(s->score(0, 2), 0.2);
  h.set_now(200 * kMs);
  s->on_event(Snitch::kUpdate, 0);
  EXPECT_EQ(s->score(0, 2), -1.0);
}

// The hooks the snitch subscribed to, and the strategy it claimed: none on ScyllaDB, where the
// snitch does not exist.
TEST(SnitchCore, SubscribesOnCassandraOnly) {
  testing::CoreHarness cassandra(three_nodes("cassandra-4.1"));
  EXPECT_NE(cassandra.mechanism<Snitch>(), nullptr);
  EXPECT_EQ(cassandra.core().hooks_.read_sent.size(), 1u);
  EXPECT_EQ(cassandra.core().hooks_.read_answer.size(), 1u);
  EXPECT_TRUE(static_cast<bool>(cassandra.core().hooks_.read_order));
  testing::CoreHarness scylla(three_nodes("scylla-2025.1"));
  EXPECT_EQ(scylla.mechanism<Snitch>(), nullptr);
  EXPECT_TRUE(scylla.core().hooks_.read_sent.empty());
  EXPECT_FALSE(static_cast<bool>(scylla.core().hooks_.read_order));
}

}  // namespace
}  // namespace lbsim
