// Lightweight transactions (issue 10): Scylla drivers route them to the replicas in replica order,
// unshuffled, without rack preference (java-driver#850), and the coordinator runs the Paxos model
// (four rounds at a quorum of the serial DC set).
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "policy_test_util.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using policy::testing::Harness;
using policy::testing::scassandra;
using policy::testing::simple;
using Names = std::vector<std::string>;

policy::Request lwt(policy::Request r) {
  r.lwt = true;
  return r;
}

TEST(LwtRouting, TokenAwareSendsEveryLwtToTheReplicasInReplicaOrderWithoutDraws) {
  for (const char* ordering : {"RANDOM", "NEUTRAL", "TOPOLOGICAL"}) {
    Harness h(scassandra({4}), simple(3),
              std::string(R"({"type": "TokenAware", "ordering": ")") + ordering +
                  R"(", "child": {"type": "RoundRobin"}})");
    for (int i = 0; i < 20; ++i) {
      const auto before = h.rnd.shared_draws + h.rnd.thread_local_draws;
      const auto p = h.plan_names(lwt(h.with_replicas({2, 0, 1})));
      ASSERT_EQ(p.size(), 4u);
      EXPECT_EQ((Names{p[0], p[1], p[2]}), (Names{"1:3", "1:1", "1:2"})) << ordering;
      EXPECT_EQ(h.rnd.shared_draws + h.rnd.thread_local_draws, before) << ordering << ": an LWT plan draws nothing";
    }
  }
}

TEST(LwtRouting, FourXPoliciesKeepReplicaOrderAndIgnoreTheLocalRack) {
  const auto topo = scassandra({6}, {{"a", "b", "a", "b", "a", "b"}});
  for (const char* spec : {R"({"type": "Default4x", "local_dc": "dc1", "local_rack": "a"})",
                           R"({"type": "Basic4x", "local_dc": "dc1"})"}) {
    Harness h(topo, simple(1), spec);
    for (int i = 0; i < 20; ++i) {
      const auto p = h.plan_names(lwt(h.with_replicas({3, 0, 2})));  // 1:4 (rack b) first
      ASSERT_EQ(p.size(), 6u);
      EXPECT_EQ((Names{p[0], p[1], p[2]}), (Names{"1:4", "1:1", "1:3"})) << spec;
    }
  }
}

TEST(LwtRouting, RackAwareChildDropsRackPriorityForLwt) {
  // 1:1 and 1:3 in the local rack a; without a routing key, a regular plan starts in rack a, an
  // LWT plan rotates over all four local hosts.
  const auto topo = scassandra({4}, {{"a", "b", "a", "b"}});
  Harness h(topo, simple(1), R"({"type": "RackAwareRoundRobin", "local_dc": "dc1", "local_rack": "a"})");
  std::set<std::string> regular_first, lwt_first;
  for (int i = 0; i < 8; ++i) regular_first.insert(h.plan_names(h.unrouted())[0]);
  for (int i = 0; i < 8; ++i) lwt_first.insert(h.plan_names(lwt(h.unrouted()))[0]);
  EXPECT_EQ(regular_first, (std::set<std::string>{"1:1", "1:3"}));
  EXPECT_EQ(lwt_first, (std::set<std::string>{"1:1", "1:2", "1:3", "1:4"}));
}

// One closed-loop thread, constant costs: an LWT takes client -> coordinator, four Paxos rounds
// each as long as the quorum's slowest answer, and the way back.
jsonin::Json lwt_doc(const std::string& serial) {
  return jsonin::Json::parse(R"({
    "name": "lwt", "seed": 3,
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": 3}, {"name": "dc2", "racks": 3, "nodes": 3}],
                "num_tokens": 16, "shards": 1,
                "service": {"coordinator": 0, "read": {"dist": "constant", "us": 100}, "write": {"dist": "constant", "us": 50}}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3, "dc2": 3}},
    "network": {"same_rack": 200, "same_dc": 200, "cross_dc": 10000},
    "client": {"dc": "dc1", "threads": 1, "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0},
    "workload": {"ops": 200, "mix": {"lwt": 1}, "consistency": {"lwt": ")" + serial + R"("}},
    "policies": [{"name": "ta", "policy": {"type": "TokenAware", "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}}]
  })");
}

TEST(LwtPaxos, LocalSerialRoundsWaitForTheLocalQuorum) {
  // LOCAL_SERIAL: quorum 2 of the 3 local replicas. The coordinator is a replica (its own answer
  // after the service time) and the second answer comes from a local peer: 2 x 200 us + service.
  // Rounds: prepare 50, read 100, propose 50, commit 50 (+400 each), plus 200 us each way.
  const RunResult r = testing::run_first(testing::build(lwt_doc("LOCAL_SERIAL")));
  const double expected_us = 200 + (400 + 50) + (400 + 100) + (400 + 50) + (400 + 50) + 200;
  ASSERT_EQ(r.by_op[2].ops, 200u);
  EXPECT_EQ(r.by_op[2].error_total(), 0u);
  EXPECT_NEAR(r.by_op[2].latency.mean() / 1e3, expected_us, 1.0);
  // Work per transaction: prepare, propose, commit writes and one read on each of the 3 local
  // replicas; nothing in dc2.
  std::uint64_t writes_dc1 = 0, reads_dc1 = 0, dc2 = 0;
  for (const auto& n : r.nodes) {
    if (n.dc == "dc1") {
      writes_dc1 += n.replica_writes;
      reads_dc1 += n.replica_reads;
    } else {
      dc2 += n.replica_writes + n.replica_reads;
    }
  }
  EXPECT_EQ(writes_dc1, 200u * 3 * 3);
  EXPECT_EQ(reads_dc1, 200u * 3);
  EXPECT_EQ(dc2, 0u);
}

TEST(LwtPaxos, SerialRoundsCrossDatacenters) {
  // SERIAL: quorum 4 of 6, so every round waits for a dc2 replica: 2 x 10 ms + service.
  const RunResult r = testing::run_first(testing::build(lwt_doc("SERIAL")));
  const double expected_us = 200 + (20000 + 50) + (20000 + 100) + (20000 + 50) + (20000 + 50) + 200;
  EXPECT_EQ(r.by_op[2].error_total(), 0u);
  EXPECT_NEAR(r.by_op[2].latency.mean() / 1e3, expected_us, 1.0);
  std::printf("LWT latency: SERIAL %.1f us (model %.0f)\n", r.by_op[2].latency.mean() / 1e3, expected_us);
}

TEST(LwtPaxos, AnLwtMixIsReportedApartAndNotModelledAnalytically) {
  auto doc = lwt_doc("LOCAL_SERIAL");
  doc["workload"]["mix"] = {{"read", 1}, {"write", 1}, {"lwt", 1}};
  doc["client"]["threads"] = 8;
  doc["workload"]["ops"] = 3000;
  const RunResult r = testing::run_first(testing::build(doc));
  EXPECT_GT(r.by_op[0].ops, 800u);
  EXPECT_GT(r.by_op[1].ops, 800u);
  EXPECT_GT(r.by_op[2].ops, 800u);
  EXPECT_EQ(r.measured_ops(), r.by_op[0].ops + r.by_op[1].ops + r.by_op[2].ops);
}

TEST(LwtPaxos, TransactionsAreNeverSpeculatedOrRetriedAfterClientTimeouts) {
  // A 1 ms client timeout against 80 ms SERIAL transactions: every attempt times out on the client.
  // Regular writes would be retried twice; an LWT is not idempotent and fails on its first attempt.
  auto doc = lwt_doc("SERIAL");
  doc["timeouts"] = {{"client_ms", 1}};
  doc["speculative"] = {{"delay_ms", 0.5}};
  const RunResult r = testing::run_first(testing::build(doc));
  EXPECT_EQ(r.client.retries, 0u);
  EXPECT_EQ(r.client.speculative, 0u);
  EXPECT_EQ(r.by_op[2].errors[static_cast<std::size_t>(ErrorKind::ClientTimeout)], 200u);
}

}  // namespace
}  // namespace lbsim
