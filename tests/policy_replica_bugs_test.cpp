// The drivers' replica-map bugs as switches (replica_source): gocql's map that appends a host
// again (topology.go networkTopology.replicaMap, "TODO: ensure we dont add the same host twice"),
// the Python driver 3.25's skipped_hosts queued twice (metadata.py
// NetworkTopologyStrategy.make_token_replica_map), and the plans of the Go, Python and Node.js
// policies over such lists: every driver yields a listed host as often as it is listed.
// Hand-traced rings first, then the shares of keys the bugs touch on vnode rings that lbsim
// allocates, then what a plan does with a repeat. The Python map is also compared list for list
// with the real driver in tests/python_driver_test.cpp, the Node.js map in policy_nodejs_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "policies/go/replicas.hpp"
#include "policies/nodejs/replicas.hpp"
#include "policies/plan_util.hpp"
#include "policies/python/replicas.hpp"
#include "policy_test_util.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/core/error.hpp"
#include "sim/config/scenario.hpp"
#include "sim_test_util.hpp"

namespace lbsim::policy::replica_bugs_test {

using namespace lbsim::policy::testing;
using Names = std::vector<std::string>;
using Counts = std::map<std::string, int>;

Topology nodes_of(const std::vector<std::tuple<std::string, std::string, std::string, std::vector<Token>>>& spec) {
  std::vector<NodeSpec> nodes;
  for (const auto& [id, dc, rack, tokens] : spec) nodes.push_back({id, dc, rack, tokens});
  return Topology::build(nodes);
}

Names ids(const Topology& t, std::span<const HostId> hosts) {
  Names out;
  for (HostId h : hosts) out.push_back(t.nodes[h].id);
  return out;
}

bool has_repeat(std::span<const HostId> l) { return std::set<HostId>(l.begin(), l.end()).size() < l.size(); }

// The share of the token space (so of uniformly hashed keys) whose list has a repeated host: each
// list belongs to the range (previous token, its token].
template <class Map>
double repeat_share(const Map& m) {
  long double repeated = 0;
  for (std::size_t i = 0; i < m.ranges(); ++i) {
    const Token lo = m.token_at(i == 0 ? m.ranges() - 1 : i - 1);
    const Token hi = m.token_at(i);
    // Width of (lo, hi] on the ring of 2^64 tokens (the first range wraps).
    const auto width = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (has_repeat(m.replicas_at(i))) repeated += static_cast<long double>(m.ranges() == 1 ? 0 : width);
  }
  return static_cast<double>(repeated / 18446744073709551616.0L);
}

// A one-DC vnode cluster as a scenario allocates it: lbsim's random tokens (Cassandra's
// Murmur3Partitioner.getRandomToken, num_tokens per node) from the scenario seed, nodes n1.. spread
// round-robin over racks r1...
Topology allocated(int nodes, int racks, int num_tokens, std::uint64_t seed) {
  jsonin::Json doc = lbsim::testing::cluster_doc(nodes);
  doc["seed"] = seed;
  doc["cluster"]["datacenters"] = jsonin::Json::array({{{"name", "dc1"}, {"racks", racks}, {"nodes", nodes}}});
  doc["cluster"]["num_tokens"] = num_tokens;
  return lbsim::testing::build(doc).topology();
}

// ---- gocql ---------------------------------------------------------------------------------------

// The minimal case: A(-5e18), B(-4e18, -3e18), C(0), one rack, RF 2.
Topology go_minimal() {
  return nodes_of({{"A", "dc1", "r1", {-5'000'000'000'000'000'000}},
                   {"B", "dc1", "r1", {-4'000'000'000'000'000'000, -3'000'000'000'000'000'000}},
                   {"C", "dc1", "r1", {0}}});
}

TEST(GoReplicaMap, TheMinimalCaseListsBTwiceAndPlansBBCA) {
  const Topology t = go_minimal();
  const Replication r = nts({{"dc1", 2}});
  const Token key = murmur3_token(std::vector<std::uint8_t>{0, 0, 0, 1});
  ASSERT_GT(key, -5'000'000'000'000'000'000);
  ASSERT_LE(key, -4'000'000'000'000'000'000) << "the key falls in B's first range";
  const DriverReplicaMap m = go::gocql_replica_map(t, r);
  // One rack: B(-4e18) places it, then B(-3e18) is "all racks seen, add this" again.
  EXPECT_EQ(ids(t, m.replicas(key)), (Names{"B", "B"}));
  EXPECT_EQ(ids(t, TokenRing(t, r).replicas(key, ReplicaOrder::Driver)), (Names{"B", "C"}));
  EXPECT_EQ(ids(t, m.replicas(-3'000'000'000'000'000'000)), (Names{"B", "C"}));
  EXPECT_EQ(ids(t, m.replicas(1)), (Names{"A", "B"})) << "past the last token: the first";
  // Upstream (no shuffle) over GoRoundRobin (its first plan rotates [A, B, C] by one): B twice,
  // then the child plan minus B. The correct map gives B C A.
  const std::string buggy =
      R"({"type":"GoTokenAware","version":"upstream","replica_source":"gocql","child":{"type":"GoRoundRobin"}})";
  Harness h(t, r, buggy);
  EXPECT_EQ(h.plan_names(h.routed(key)), (Names{"B", "B", "C", "A"}));
  EXPECT_EQ(h.plan_names(h.routed(key)), (Names{"B", "B", "A", "C"}));
  Harness c(t, r, R"({"type":"GoTokenAware","version":"upstream","child":{"type":"GoRoundRobin"}})");
  EXPECT_EQ(c.plan_names(c.routed(key)), (Names{"B", "C", "A"}));
}

TEST(GoReplicaMap, AHostDeferredTwiceIsDrainedTwiceAndRfZeroDcTokensGetNoList) {
  // Ring from 10: X1(r1) X2(r1) X2(r1) Y1(r2) X3(r1), and Z1 of dc2 (rf 0) at 60. From 10: X1
  // places r1; X2 is deferred twice; Y1 places r2, the last rack, and drains X2, X2 up to RF 4.
  const Topology t = nodes_of({{"X1", "dc1", "r1", {10}}, {"X2", "dc1", "r1", {20, 30}}, {"Y1", "dc1", "r2", {40}},
                               {"X3", "dc1", "r1", {50}}, {"Z1", "dc2", "r1", {60}}});
  const Replication r = nts({{"dc1", 4}, {"dc2", 0}});
  const DriverReplicaMap m = go::gocql_replica_map(t, r);
  EXPECT_EQ(ids(t, m.replicas(10)), (Names{"X1", "Y1", "X2", "X2"}));
  const Names server = ids(t, TokenRing(t, r).replicas(10, ReplicaOrder::Server));
  EXPECT_EQ(std::set<std::string>(server.begin(), server.end()),
            (std::set<std::string>{"X1", "X2", "X3", "Y1"}));
  // From 40: Y1, then X3 (a new rack, the last: nothing deferred), then, every rack placed, X1
  // (past Z1 of dc2, rf 0) and X2 appended as met: [Y1, X3, X1, X2] -- and from 50: X3, then X1,
  // X2 deferred (r1 placed, r2 not), X2 again, Y1 places r2 and drains X1, X2.
  EXPECT_EQ(ids(t, m.replicas(40)), (Names{"Y1", "X3", "X1", "X2"}));
  EXPECT_EQ(ids(t, m.replicas(50)), (Names{"X3", "Y1", "X1", "X2"}));
  // Z1's token (60, dc2 has rf 0) has no list: keys in (50, 60] and past it wrap to 10's.
  EXPECT_EQ(m.ranges(), 5u);
  EXPECT_EQ(ids(t, m.replicas(55)), ids(t, m.replicas(10)));
}

TEST(GoReplicaMap, RfAtMostTheRacksGivesTheCorrectSetsWithoutRepeats) {
  // The bug needs RF above a DC's racks: at RF <= racks each list is a set of distinct hosts, the
  // server's, led by the token's owner.
  for (const auto& [racks, rf] : std::vector<std::pair<int, int>>{{3, 3}, {3, 2}, {4, 3}}) {
    const Topology t = allocated(9, racks, 16, 5);
    const Replication r = nts({{"dc1", rf}});
    const DriverReplicaMap m = go::gocql_replica_map(t, r);
    const TokenRing ring(t, r);
    ASSERT_EQ(m.ranges(), ring.size());
    for (std::size_t i = 0; i < m.ranges(); ++i) {
      const auto l = m.replicas_at(i);
      const auto s = ring.replicas(m.token_at(i), ReplicaOrder::Server);
      ASSERT_FALSE(has_repeat(l)) << "racks " << racks << " rf " << rf;
      EXPECT_EQ(std::set<HostId>(l.begin(), l.end()), std::set<HostId>(s.begin(), s.end()));
      EXPECT_EQ(l[0], s[0]);
    }
  }
}

TEST(GoReplicaMap, ShareOfKeysWithARepeatOnRandomVnodeRings) {
  // With one rack every token after the owner's adds its owner, so a list repeats unless the
  // owners of the range's token and the next two differ. For random tokens, with 256 per node on
  // 6 nodes, that is 1 - (1280/1535)(1024/1534) = 44.3 % of ranges, and, since a range's width is
  // independent of the owners after it, 44.3 % of keys in expectation. Over 20 seeds lbsim's
  // allocation gives a mean within 1 point of that; each draw spreads by about 1.5 points (the
  // share is a sum over 1,536 ranges of exponential widths). The issue's 46.8 % is one such draw.
  // With 3 racks of 3 nodes and RF 5 there is no short closed form; 20 rings drawn with another
  // generator (std::mt19937_64, racks round-robin) gave 66.3 % of keys, these 20 give 66.1 %: the
  // mean is asserted to 1.5 points (over 4 standard errors). Racks of unequal size repeat less
  // (63 % with each node's rack drawn at random), which is where the issue's 62 % must come from.
  double sum1 = 0, sum3 = 0, lo1 = 1, hi1 = 0, lo3 = 1, hi3 = 0, sq3 = 0;
  constexpr int kSeeds = 20;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const double s1 = repeat_share(go::gocql_replica_map(allocated(6, 1, 256, seed), nts({{"dc1", 3}})));
    const double s3 = repeat_share(go::gocql_replica_map(allocated(9, 3, 256, seed), nts({{"dc1", 5}})));
    sum1 += s1;
    sum3 += s3;
    lo1 = std::min(lo1, s1);
    hi1 = std::max(hi1, s1);
    lo3 = std::min(lo3, s3);
    hi3 = std::max(hi3, s3);
    sq3 += s3 * s3;
  }
  const double mean1 = sum1 / kSeeds, mean3 = sum3 / kSeeds;
  const double sd3 = std::sqrt(std::max(0.0, (sq3 - kSeeds * mean3 * mean3) / (kSeeds - 1)));
  std::printf("gocql repeats: 1 rack, 6 nodes, RF 3: %.1f %% of keys (seeds 1-%d, %.1f-%.1f); 3 racks, 9 nodes, "
              "RF 5: %.1f %% (%.1f-%.1f, sd %.2f)\n",
              100 * mean1, kSeeds, 100 * lo1, 100 * hi1, 100 * mean3, 100 * lo3, 100 * hi3, 100 * sd3);
  // The 3-rack gallery entry (configs/incidents/gocql-replica-map-3-racks.json) says the issue's
  // 62 % lies below every equal-rack ring: keep it so, or revisit the entry.
  EXPECT_GT(lo3, 0.62);
  EXPECT_NEAR(mean1, 1.0 - (1280.0 / 1535.0) * (1024.0 / 1534.0), 0.01);
  EXPECT_GT(lo1, 0.39);
  EXPECT_LT(hi1, 0.50);
  EXPECT_NEAR(mean3, 0.663, 0.015);
}

TEST(GoTokenAware, ShuffledARepeatedHostTakesTwoInKOfFirstPicksAndTheDroppedReplicaNone) {
  // The minimal ring with RF 3 on one rack: from B(-4e18) the list is [B, B, C] (A, the real third
  // replica, is dropped). scylladb/gocql shuffles by default: B first 2 times in 3, C 1 in 3, A
  // never; the correct list [B, C, A] gives each a third.
  const Topology t = go_minimal();
  const Replication r = nts({{"dc1", 3}});
  const Token key = -4'500'000'000'000'000'000;
  EXPECT_EQ(ids(t, go::gocql_replica_map(t, r).replicas(key)), (Names{"B", "B", "C"}));
  Harness h(t, r, R"({"type":"GoTokenAware","replica_source":"gocql","child":{"type":"GoRoundRobin"}})", 3);
  constexpr int kPlans = 9000;
  const Counts c = first_counts(h, h.routed(key), kPlans);
  // Binomial: sd = sqrt(9000 * 2/9) ~ 45 for C; 200 is over 4 sd.
  EXPECT_NEAR(c.at("B"), 6000, 200);
  EXPECT_NEAR(c.at("C"), 3000, 200);
  EXPECT_EQ(c.count("A"), 0u);
  // Every plan yields B twice, and the retry after a first B goes to B again when the shuffle
  // put the two copies first (1 time in 3).
  int b_then_b = 0;
  for (int i = 0; i < 3000; ++i) {
    const Names p = h.plan_names(h.routed(key));
    ASSERT_EQ(p.size(), 4u);
    EXPECT_EQ(std::count(p.begin(), p.end(), "B"), 2);
    EXPECT_EQ(p.back(), "A") << "A only comes from the child plan";
    b_then_b += p[0] == "B" && p[1] == "B";
  }
  EXPECT_NEAR(b_then_b, 1000, 120);
  Harness ok(t, r, R"({"type":"GoTokenAware","child":{"type":"GoRoundRobin"}})", 3);
  const Counts k = first_counts(ok, ok.routed(key), kPlans);
  for (const char* n : {"A", "B", "C"}) EXPECT_NEAR(k.at(n), 3000, 200) << n;
}

TEST(GoTokenAware, TheDefaultSourceIsTheRequestsReplicasDrawForDraw) {
  // "correct" is the default: the same plans, and the same draws, as without the key.
  const Topology t = allocated(6, 2, 8, 3);
  const Replication r = nts({{"dc1", 3}});
  Harness a(t, r, R"({"type":"GoTokenAware","child":{"type":"GoRoundRobin"}})", 9);
  Harness b(t, r, R"({"type":"GoTokenAware","replica_source":"correct","child":{"type":"GoRoundRobin"}})", 9);
  for (std::size_t i = 0; i < a.ring().size(); ++i) {
    const Token k = a.ring().token_at(i);
    ASSERT_EQ(a.plan(a.routed(k)), b.plan(b.routed(k)));
  }
  EXPECT_EQ(a.rnd.shared_draws, b.rnd.shared_draws);
  EXPECT_EQ(a.rnd.thread_local_draws, b.rnd.thread_local_draws);
}

TEST(GoTokenAware, ReplicaSourceIsCheckedWithItsPath) {
  const Topology t = go_minimal();
  const Replication r = nts({{"dc1", 2}});
  const std::string spec = R"({"type":"GoTokenAware","replica_source":"gocql","child":{"type":"GoRoundRobin"}})";
  EXPECT_EQ(error_of(spec, &t),
            "/p/replica_source: \"gocql\" computes the driver's replica map from the keyspace's replication, which is "
            "not known here (no cluster); use \"correct\"");
  EXPECT_EQ(error_of(spec, &t, &r), "no error");
  EXPECT_EQ(error_of(R"({"type":"GoTokenAware","replica_source":"python-3.25","child":{"type":"GoRoundRobin"}})", &t, &r),
            "/p/replica_source: unknown value 'python-3.25'; valid: correct, gocql");
  Replication tablets = r;
  tablets.tablets = TabletOptions{};
  EXPECT_NE(error_of(spec, &t, &tablets).find("tablet keyspace is routed by the driver's tablet cache"), std::string::npos);
}

// ---- Python driver 3.25 --------------------------------------------------------------------------

TEST(PythonReplicaMap, AHostSkippedTwiceIsAppendedTwiceAndARealReplicaIsLost) {
  // One DC, racks r1 = {A, B, E}, r2 = {C, D}; ring A:0 B:10 B:20 C:30 D:40 E:50; RF 4. From 0: A
  // places r1; B is skipped twice (r1 placed, r2 not); C places r2, the last rack, and the queue
  // [B, B] is appended up to the RF: D, a real replica, is missing.
  const Topology t = nodes_of({{"A", "dc1", "r1", {0}}, {"B", "dc1", "r1", {10, 20}}, {"C", "dc1", "r2", {30}},
                               {"D", "dc1", "r2", {40}}, {"E", "dc1", "r1", {50}}});
  const Replication r = nts({{"dc1", 4}});
  const DriverReplicaMap m = python::python325_replica_map(t, r);
  EXPECT_EQ(ids(t, m.replicas(0)), (Names{"A", "C", "B", "B"}));
  const Names server = ids(t, TokenRing(t, r).replicas(0, ReplicaOrder::Server));
  EXPECT_EQ(std::set<std::string>(server.begin(), server.end()), (std::set<std::string>{"A", "B", "C", "D"}));
  // From 30: C, then D skipped (r2 placed), E places r1 and drains D: [C, E, D], then A (every
  // rack placed, not listed): [C, E, D, A]. No repeat where each host is met once.
  EXPECT_EQ(ids(t, m.replicas(30)), (Names{"C", "E", "D", "A"}));
  // RF 3 = racks + 1 cannot repeat (one deferral at most before the last rack).
  const DriverReplicaMap m3 = python::python325_replica_map(t, nts({{"dc1", 3}}));
  for (std::size_t i = 0; i < m3.ranges(); ++i) EXPECT_FALSE(has_repeat(m3.replicas_at(i)));
}

TEST(PythonReplicaMap, TheDcsAreGroupedInRingOrderNotInterleaved) {
  // dc2 owns the ring's first token, so every list starts with dc2's replicas.
  const Topology t = nodes_of({{"A1", "dc1", "r1", {20}}, {"A2", "dc1", "r1", {40}}, {"B1", "dc2", "r1", {10}},
                               {"B2", "dc2", "r1", {30}}});
  const DriverReplicaMap m = python::python325_replica_map(t, nts({{"dc1", 1}, {"dc2", 2}}));
  EXPECT_EQ(ids(t, m.replicas(20)), (Names{"B2", "B1", "A1"}));
  EXPECT_EQ(ids(t, m.replicas(40)), (Names{"B1", "B2", "A2"}));
}

TEST(PythonTokenAware, ARepeatedHostIsYieldedTwiceByEveryVersion) {
  // The AHostSkippedTwice ring: the driver's list at 0 is [A, C, B, B]. Unshuffled (datastax 3.25
  // and scylla-3.29.5), every LOCAL entry is yielded: A C B B, then the child plan minus the
  // listed hosts (E; D is not listed, so the child's D comes too).
  const Topology t = nodes_of({{"A", "dc1", "r1", {0}}, {"B", "dc1", "r1", {10, 20}}, {"C", "dc1", "r2", {30}},
                               {"D", "dc1", "r2", {40}}, {"E", "dc1", "r1", {50}}});
  const Replication r = nts({{"dc1", 4}});
  for (const char* v : {"datastax", "scylla-3.29.5"}) {
    Harness h(t, r, fmt::format(R"({{"type":"PythonTokenAware","version":"{}","replica_source":"python-3.25",)"
                                R"("child":{{"type":"PythonDCAwareRoundRobin","local_dc":"dc1"}}}})", v));
    const Names p = h.plan_names(h.routed(0));
    ASSERT_EQ(p.size(), 6u) << v;
    EXPECT_EQ(Names(p.begin(), p.begin() + 4), (Names{"A", "C", "B", "B"})) << v;
    EXPECT_EQ(std::set<std::string>(p.begin() + 4, p.end()), (std::set<std::string>{"D", "E"})) << v;
    Harness ok(t, r, fmt::format(R"({{"type":"PythonTokenAware","version":"{}",)"
                                 R"("child":{{"type":"PythonDCAwareRoundRobin","local_dc":"dc1"}}}})", v));
    const Names q = ok.plan_names(ok.routed(0));
    EXPECT_EQ(q.size(), 5u) << v;
    EXPECT_EQ(Names(q.begin(), q.begin() + 4), ids(t, ok.ring().replicas(0, ReplicaOrder::Driver))) << v;
  }
  // Shuffled (scylla-3.29.6's default): B first 2 times in 4, D never.
  Harness s(t, r, R"({"type":"PythonTokenAware","replica_source":"python-3.25",)"
                  R"("child":{"type":"PythonDCAwareRoundRobin","local_dc":"dc1"}})", 5);
  const Counts c = first_counts(s, s.routed(0), 8000);
  EXPECT_NEAR(c.at("B"), 4000, 200);
  EXPECT_NEAR(c.at("A"), 2000, 180);
  EXPECT_EQ(c.count("D"), 0u);
}

TEST(PythonTokenAware, ReplicaSourceIsCheckedWithItsPath) {
  const std::string spec = R"({"type":"PythonTokenAware","replica_source":"python-3.25",)"
                           R"("child":{"type":"PythonDCAwareRoundRobin","local_dc":"dc1"}})";
  EXPECT_EQ(error_of(spec),
            "/p/replica_source: \"python-3.25\" computes the driver's replica map from the keyspace's replication, "
            "which is not known here (no cluster); use \"correct\"");
  EXPECT_EQ(error_of(R"({"type":"PythonTokenAware","replica_source":"gocql",)"
                     R"("child":{"type":"PythonDCAwareRoundRobin","local_dc":"dc1"}})"),
            "/p/replica_source: unknown value 'gocql'; valid: correct, python-3.25");
}

// ---- Node.js driver 4.10 -------------------------------------------------------------------------

TEST(NodeJsReplicaBug, ARepeatedHostIsYieldedTwiceSoTheRetryCanGoToItAgain) {
  // The Node.js map's own case (policy_nodejs_test.cpp): [X1, Y1, X2, X2] at 10. TokenAware
  // rotates it from a random start, so X2 X2 X1 Y1 opens one plan in four: the retry after X2 is
  // X2. Then the child's X3.
  const Topology t = nodes_of(
      {{"X1", "dc1", "r1", {10}}, {"X2", "dc1", "r1", {20, 30}}, {"Y1", "dc1", "r2", {40}}, {"X3", "dc1", "r1", {50}}});
  const Replication r = nts({{"dc1", 4}});
  Harness h(t, r, R"({"type":"NodeTokenAware","replica_source":"nodejs-4.10",)"
                  R"("child":{"type":"NodeDCAwareRoundRobin","local_dc":"dc1"}})", 4);
  std::map<Names, int> seen;
  for (int i = 0; i < 4000; ++i) ++seen[h.plan_names(h.routed(10))];
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_NEAR(seen[(Names{"X2", "X2", "X1", "Y1", "X3"})], 1000, 110);
  EXPECT_NEAR(seen[(Names{"X2", "X1", "Y1", "X2", "X3"})], 1000, 110);
  EXPECT_NEAR(seen[(Names{"X1", "Y1", "X2", "X2", "X3"})], 1000, 110);
  EXPECT_NEAR(seen[(Names{"Y1", "X2", "X2", "X1", "X3"})], 1000, 110);
  // NodeDefault shuffles the four entries: X2 is yielded twice in every plan.
  Harness d(t, r, R"({"type":"NodeDefault","local_dc":"dc1","replica_source":"nodejs-4.10"})", 4);
  for (int i = 0; i < 200; ++i) {
    const Names p = d.plan_names(d.routed(10));
    ASSERT_EQ(p.size(), 5u);
    EXPECT_EQ(std::count(p.begin(), p.end(), "X2"), 2);
    EXPECT_EQ(p.back(), "X3");
  }
}

// ---- what the bugs do, at each driver's default -------------------------------------------------

// Over the key space of a shipped scenario (each range weighted by its width, kSamples plans per
// range), with every node up: each node's share of first picks (where an operation goes) and of
// second picks (where its retry or speculative execution goes), and the share of operations
// whose second pick is the first one again.
struct Picks {
  std::vector<double> first, second;
  double same = 0;
};

Picks measure(const Scenario& sc, const std::string& policy_name) {
  const PolicyEntry* e = sc.find_policy(policy_name);
  EXPECT_NE(e, nullptr) << policy_name;
  const Topology& topo = sc.topology();
  auto p = make_policy(e->spec, e->path, BuildContext{&topo, &sc.cluster.replication});
  ClusterView view(topo);
  Rng init = Rng(sc.seed).fork("policy-init");
  p->init(view, init);
  Rng rng = Rng(sc.seed).fork("policy");
  PlanRandom rnd(rng);
  PlanArena arena;
  constexpr int kSamples = 16;
  Picks out{std::vector<double>(topo.size(), 0), std::vector<double>(topo.size(), 0), 0};
  const TokenRing& ring = *sc.ring;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Token hi = ring.token_at(i), lo = ring.token_at(i == 0 ? ring.size() - 1 : i - 1);
    const double w = static_cast<double>(static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo)) /
                     18446744073709551616.0 / kSamples;
    Request req;
    req.routed = true;
    req.token = hi;
    req.replicas = ring.replicas(hi, ReplicaOrder::Driver);
    for (int k = 0; k < kSamples; ++k) {
      arena.reset();
      Plan* plan = p->new_plan(req, rnd, arena);
      const HostId a = plan->next(), b = plan->next();
      out.first[a] += w;
      out.second[b] += w;
      if (a == b) out.same += w;
    }
  }
  return out;
}

std::string shares(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += fmt::format(" {:4.1f}", 100 * x);
  return s;
}

TEST(ReplicaBugMeasure, FirstAndSecondPicksWithAndWithoutEachBug) {
  struct Case {
    const char* config;
    const char* correct;
    const char* buggy;
  };
  const std::vector<Case> cases{{"replica-bug-gocql.json", "go-correct", "go-gocql-map"},
                                {"replica-bug-python.json", "python-correct", "python-3.25-map"},
                                {"replica-bug-python.json", "scylla-correct", "scylla-3.25-map"},
                                {"replica-bug-nodejs.json", "nodejs-correct", "nodejs-4.10-map"}};
  std::map<std::string, Picks> got;
  std::map<std::string, double> keys_repeated;
  for (const Case& c : cases) {
    const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/" + c.config);
    const Replication& repl = sc.cluster.replication;
    keys_repeated[c.config] = std::string(c.buggy).starts_with("go")       ? repeat_share(go::gocql_replica_map(sc.topology(), repl))
                              : std::string(c.buggy).starts_with("nodejs") ? repeat_share(nodejs::ReplicaMap(sc.topology(), repl))
                                                                           : repeat_share(python::python325_replica_map(sc.topology(), repl));
    std::printf("%s: the driver's list repeats a host for %.1f %% of keys\n", c.config, 100 * keys_repeated[c.config]);
    for (const char* name : {c.correct, c.buggy}) {
      const Picks m = measure(sc, name);
      std::printf("%-16s first%s | second%s | second = first %.2f %%\n", name, shares(m.first).c_str(),
                  shares(m.second).c_str(), 100 * m.same);
      got[name] = m;
    }
  }
  EXPECT_GT(keys_repeated["replica-bug-gocql.json"], 0.39);
  EXPECT_GT(keys_repeated["replica-bug-python.json"], 0.0);
  EXPECT_GT(keys_repeated["replica-bug-nodejs.json"], 0.0);
  // The correct lists never repeat a host, so no retry goes back to the first pick.
  for (const char* n : {"go-correct", "python-correct", "scylla-correct", "nodejs-correct"}) EXPECT_EQ(got[n].same, 0) << n;
  // gocql (shuffled by default) and Node.js (DefaultLoadBalancingPolicy shuffles) retry on the same
  // host after some first picks.
  EXPECT_GT(got["go-gocql-map"].same, 0.03);
  EXPECT_GT(got["nodejs-4.10-map"].same, 0.0);
  EXPECT_GT(got["scylla-3.25-map"].same, 0.0);
  // Unshuffled (the DataStax default), the Python map's repeat comes after two racks' worth of
  // hosts, never first or second: first and second picks are the correct ones.
  EXPECT_EQ(got["python-3.25-map"].same, 0);
  for (std::size_t h = 0; h < got["python-correct"].first.size(); ++h) {
    EXPECT_DOUBLE_EQ(got["python-3.25-map"].first[h], got["python-correct"].first[h]);
    EXPECT_DOUBLE_EQ(got["python-3.25-map"].second[h], got["python-correct"].second[h]);
  }
}

}  // namespace lbsim::policy::replica_bugs_test
