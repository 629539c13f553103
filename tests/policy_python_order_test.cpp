// The Python driver's orders (issue 36, items 7 and 8):
// - Replica order: the driver's token map lists each DC's replicas together, the DCs in the order in
//   which they first own a token on the sorted ring (cassandra/metadata.py
//   NetworkTopologyStrategy.make_token_replica_map: `for dc in dc_to_token_offset.keys()`, the same
//   in datastax/python-driver 3.25.0 and scylladb/python-driver 3.29.5-scylla .. master 76430785),
//   where Request::replicas interleaves the DCs (Java 3.x). The tier rule of 3.29.5-scylla
//   (scylladb/python-driver 2f271be1, PR #574: `for replica in hosts: if ... distance(replica) ==
//   distance`) yields the REMOTE replicas in that list order, so with two remote DCs the driver's
//   retries go through one remote DC before the next. The vectors below are traced by hand from
//   those two files; the within-DC order is the one tests/python_driver_test.cpp checks against
//   the Debian python3-cassandra 3.25 oracle.
// - Cluster.connect (cassandra/cluster.py 3.29.5-scylla: _add_resolved_hosts, then
//   ControlConnection._connect_host_in_lbp over lbp.make_query_plan(), then
//   _refresh_node_list_and_token_map): populate() sees only the contact points, randint(0, C - 1);
//   the control connection consumes one plan; each DC's tuple is the control host, then the peers.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "policy_test_util.hpp"

namespace lbsim::policy::python_order_test {

using namespace lbsim::policy::testing;
using Names = std::vector<std::string>;

std::string token_aware(const std::string& version, const std::string& child, const std::string& extra = "") {
  return R"({"type":"PythonTokenAware","version":")" + version + R"(","shuffle_replicas":false)" + extra +
         R"(,"child":)" + child + "}";
}

const char* kDc1Child = R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":3})";

// Three DCs of three nodes, Scassandra tokens: node i of DC d at (i-1) * (2^63-1)/3 + (d-1) * 100,
// so the ring reads 1:1 2:1 3:1 1:2 2:2 3:2 1:3 2:3 3:3. NTS {dc1: 1, dc2: 2, dc3: 2}, token 0
// (owned by 1:1). Java 3.x walks the ring once: [1:1, 2:1, 3:1, 2:2, 3:2]. The Python map (traced
// from make_token_replica_map): dc1 (first token 0), dc2 (100), dc3 (200), each walked from the
// range: [1:1] + [2:1, 2:2] + [3:1, 3:2].
TEST(PythonReplicaOrder, RemoteTierFollowsTheDriversDcGroupedListFrom3295) {
  const Replication r = nts({{"dc1", 1}, {"dc2", 2}, {"dc3", 2}});
  for (const char* version : {"scylla-3.29.5", "scylla-3.29.6", "scylla-master"}) {
    Harness h(scassandra({3, 3, 3}), r, token_aware(version, kDc1Child));
    const Request req = h.routed(0);
    ASSERT_EQ(names(h, {req.replicas.begin(), req.replicas.end()}), (Names{"1:1", "2:1", "3:1", "2:2", "3:2"}));
    for (int i = 0; i < 3; ++i) {
      const Names p = h.plan_names(req);
      ASSERT_EQ(p.size(), 9u) << version;
      // The local replica, the remote replicas DC by DC (not 2:1 3:1 2:2 3:2), the local
      // non-replicas rotated, then the remote non-replicas in dict order.
      EXPECT_EQ(Names(p.begin(), p.begin() + 5), (Names{"1:1", "2:1", "2:2", "3:1", "3:2"})) << version;
      EXPECT_EQ(Names(p.begin() + 7, p.end()), (Names{"2:3", "3:3"})) << version;
    }
  }
  // Rule A (the DataStax driver, 3.28.0-scylla .. 3.29.4-scylla) yields only LOCAL replicas from the
  // list; the remote ones come where the child puts them: dc2's first three, then dc3's.
  for (const char* version : {"datastax", "scylla-3.28.0"}) {
    Harness h(scassandra({3, 3, 3}), r, token_aware(version, kDc1Child));
    const Names p = h.plan_names(h.routed(0));
    ASSERT_EQ(p.size(), 9u) << version;
    EXPECT_EQ(p[0], "1:1") << version;
    EXPECT_EQ(Names(p.begin() + 3, p.end()), (Names{"2:1", "2:2", "2:3", "3:1", "3:2", "3:3"})) << version;
  }
}

// The DCs' order is the ring's, not the topology's: here dc3 owns the smallest token, then dc1,
// then dc2, so the Python list is dc3's replicas, then dc1's, then dc2's.
TEST(PythonReplicaOrder, DcsComeInTheOrderOfTheirFirstRingToken) {
  std::vector<NodeSpec> nodes;
  // Topology order dc1, dc2, dc3; ring order: c1 (-900, dc3), a1 (-800, dc1), b1 (-700, dc2), a2
  // (100, dc1), c2 (200, dc3), b2 (300, dc2).
  nodes.push_back({"a1", "dc1", "r", {-800}});
  nodes.push_back({"b1", "dc2", "r", {-700}});
  nodes.push_back({"c1", "dc3", "r", {-900}});
  nodes.push_back({"a2", "dc1", "r", {100}});
  nodes.push_back({"b2", "dc2", "r", {300}});
  nodes.push_back({"c2", "dc3", "r", {200}});
  const Topology t = Topology::build(nodes);
  const Replication r = nts({{"dc1", 2}, {"dc2", 2}, {"dc3", 2}});
  const std::string child = R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc2","used_hosts_per_remote_dc":2})";
  Harness h(t, r, token_aware("scylla-3.29.5", child));
  Harness bug_map(t, r, token_aware("scylla-3.29.5", child, R"(,"replica_source":"python-3.25")"));
  // Token 0, owned by a2 (100): Java 3.x walks a2 c2 b2 c1 a1 b1.
  const Request req = h.routed(0);
  ASSERT_EQ(names(h, {req.replicas.begin(), req.replicas.end()}), (Names{"a2", "c2", "b2", "c1", "a1", "b1"}));
  // The driver: local dc2 replicas [b2, b1] (its walk from 300 wraps to -700), then REMOTE in the
  // list's DC order dc3 [c2, c1], dc1 [a2, a1].
  const Names want{"b2", "b1", "c2", "c1", "a2", "a1"};
  EXPECT_EQ(h.plan_names(req), want);
  EXPECT_EQ(bug_map.plan_names(bug_map.routed(0)), want);  // the map model agrees (no repeat here)
}

// Without the duplicate bug's conditions (RF at most one above a DC's racks, and at most its nodes),
// "correct" regrouped must give every plan the driver's own map gives: 3 DCs x 2 racks x 4 nodes,
// 8 vnodes each, over many tokens, in every version.
TEST(PythonReplicaOrder, RegroupedReplicasEqualTheDriversMapWhereItHasNoRepeat) {
  std::vector<NodeSpec> nodes;
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int d = 1; d <= 3; ++d)
    for (int i = 1; i <= 4; ++i) {
      NodeSpec n{"n" + std::to_string(d) + std::to_string(i), "dc" + std::to_string(d), i % 2 ? "r1" : "r2", {}};
      for (int k = 0; k < 8; ++k) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        n.tokens.push_back(static_cast<Token>(x));
      }
      nodes.push_back(n);
    }
  const Topology t = Topology::build(nodes);
  const Replication r = nts({{"dc1", 3}, {"dc2", 2}, {"dc3", 3}});
  const std::string child = R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc2","used_hosts_per_remote_dc":4})";
  for (const char* version : {"datastax", "scylla-3.28.0", "scylla-3.29.5", "scylla-master"}) {
    Harness correct(t, r, token_aware(version, child));
    Harness map(t, r, token_aware(version, child, R"(,"replica_source":"python-3.25")"));
    int interleaved = 0;
    for (int k = 0; k < 300; ++k) {
      const Token tok = static_cast<Token>(static_cast<std::uint64_t>(k) * 0x0369d036a0369d03ull);
      const Request req = correct.routed(tok);
      for (std::size_t i = 1; i < req.replicas.size(); ++i)
        if (t.node_dc[req.replicas[i]] != t.node_dc[req.replicas[i - 1]]) ++interleaved;
      ASSERT_EQ(correct.plan(req), map.plan(map.routed(tok))) << version << " token " << tok;
    }
    EXPECT_GT(interleaved, 300 * 2);  // Java's lists switch DC more than twice on average: the case is real
  }
}

// A one-DC topology is left as it is: the same plans and the same draws as before, shuffled too.
TEST(PythonReplicaOrder, ShuffledListsOfOneDcAreUntouched) {
  Harness h(scassandra({6}), simple(3), R"({"type":"PythonTokenAware","child":{"type":"PythonDCAwareRoundRobin"}})", 3);
  std::map<std::string, int> first;
  for (int i = 0; i < 600; ++i) ++first[h.name(h.first(h.routed(0)))];
  EXPECT_EQ(h.rnd.shared_draws, 600u * 2);  // random.shuffle of 3: two draws
  ASSERT_EQ(first.size(), 3u);
  for (const auto& [n, c] : first) EXPECT_NEAR(c, 200, 45) << n;  // binomial(600, 1/3): sd 11.5
}

// ---- Cluster.connect: contact points ------------------------------------------------------------

// One contact point: randint(0, 0) = 0, the control connection's plan takes it and advances the
// position to 1; the local tuple is [control, then the peers]. So the first application plan starts
// at the second discovered host, whatever the seed.
TEST(PythonContactPoints, OneContactPointStartsTheFirstPlanAtTheSecondDiscoveredHost) {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    Harness h(scassandra({5}), simple(1),
              R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","contact_points":["1:3"]})", seed);
    EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:1", "1:2", "1:4", "1:5", "1:3"}));
    EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:2", "1:4", "1:5", "1:3", "1:1"}));
  }
}

// Without local_dc the control host's DC is the local one (on_up of the first contact point marked
// up), and the DC dict starts with it: dc2 here, then dc1 (the peers).
TEST(PythonContactPoints, TheControlHostsDcIsTheDefaultLocalDc) {
  Harness h(scassandra({3, 3}), simple(1),
            R"({"type":"PythonDCAwareRoundRobin","used_hosts_per_remote_dc":1,"contact_points":["2:2"]})");
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"2:1", "2:3", "2:2", "1:1"}));
  EXPECT_EQ(h.policy().distance(h.id("2:2")), Distance::Local);
  EXPECT_EQ(h.policy().distance(h.id("1:1")), Distance::Remote);
  EXPECT_EQ(h.policy().distance(h.id("1:2")), Distance::Ignored);
  // Without contact points lbsim keeps its approximation: the DC of the first host.
  Harness a(scassandra({3, 3}), simple(1), R"({"type":"PythonDCAwareRoundRobin","used_hosts_per_remote_dc":1})");
  EXPECT_EQ(a.policy().distance(a.id("1:2")), Distance::Local);
}

// Three contact points of six hosts: p0 = randint(0, 2), control = cp[p0], the first plan's
// position p0 + 1 over [control, the rest in order]:
//   p0 0: [1:1 1:2 1:3 1:4 1:5 1:6] at 1 -> 1:2;  p0 1: [1:2 1:1 1:3 1:4 ...] at 2 -> 1:3;
//   p0 2: [1:3 1:1 1:2 1:4 ...] at 3 -> 1:4.
// So the first plan starts at 1:2, 1:3 or 1:4, a third each, never at 1:1 (the contact point
// listed first), 1:5 or 1:6; without contact points lbsim's start is uniform over the six.
TEST(PythonContactPoints, FirstPlanStartFollowsTheContactPointDraw) {
  std::map<std::string, int> with, without;
  for (std::uint64_t seed = 1; seed <= 600; ++seed) {
    Harness h(scassandra({6}), simple(1),
              R"({"type":"PythonDCAwareRoundRobin","contact_points":["1:1","1:2","1:3"]})", seed);
    ++with[h.name(h.first(h.unrouted()))];
    Harness a(scassandra({6}), simple(1), R"({"type":"PythonDCAwareRoundRobin"})", seed);
    ++without[a.name(a.first(a.unrouted()))];
  }
  ASSERT_EQ(with.size(), 3u);
  for (const char* n : {"1:2", "1:3", "1:4"}) EXPECT_NEAR(with[n], 200, 45) << n;  // binomial(600, 1/3): sd 11.5
  ASSERT_EQ(without.size(), 6u);
  for (const auto& [n, c] : without) EXPECT_NEAR(c, 100, 40) << n;  // binomial(600, 1/6): sd 9.1
}

// Rack-aware: the contact points are filed under (local_dc, local_rack) at populate; after
// discovery the local rack's tuple is the control host (if it is in that rack), then the peers.
TEST(PythonContactPoints, RackAwareLocalRackStartsWithTheControlHost) {
  const Topology t = scassandra({6}, {{"r1", "r2", "r1", "r2", "r1", "r2"}});
  Harness h(t, simple(1),
            R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"r1","contact_points":["1:5"]})");
  // local rack [1:5 1:1 1:3] at 1 % 3 = 1; other racks [1:2 1:4 1:6] at 1 % 3 = 1.
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:1", "1:3", "1:5", "1:4", "1:6", "1:2"}));
}

TEST(PythonContactPoints, SpecErrorsNameThePath) {
  const Topology t = scassandra({2, 2});
  EXPECT_NE(spec_error(R"({"type":"PythonDCAwareRoundRobin","contact_points":["9:9"]})", &t)
                .find("/p/contact_points/0: unknown node '9:9'; valid: 1:1, 1:2, 2:1, 2:2"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"PythonDCAwareRoundRobin","contact_points":["1:1","1:1"]})", &t)
                .find("/p/contact_points/1: node '1:1' is listed twice"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"PythonDCAwareRoundRobin","contact_points":[]})", &t).find("/p/contact_points"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"r1","contact_points":"1:1"})", &t)
                .find("/p/contact_points"),
            std::string::npos);
  EXPECT_EQ(spec_error(R"({"type":"PythonDCAwareRoundRobin","contact_points":["2:1"]})", &t), "no error");
}

}  // namespace lbsim::policy::python_order_test
