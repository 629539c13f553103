// The Python driver's policies: PythonDCAwareRoundRobin, PythonRackAwareRoundRobin and
// PythonTokenAware, with the cases of scylladb/python-driver tests/unit/test_policies.py
// (test_wrap_dc_aware, test_wrap_rack_aware, test_status_updates) and the Java 3.x vectors ("J3":
// scylladb/java-driver scylla-3.x DCAwareRoundRobinPolicyTest, RackAwareRoundRobinPolicyTest and
// TokenAwarePolicyTest, as in tests/policy_vectors_test.cpp) where the Python driver agrees (or,
// noted, differs).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "policy_test_util.hpp"
#include "sim/core/error.hpp"

namespace lbsim::policy::python_test {

using namespace lbsim::policy::testing;
using Names = std::vector<std::string>;
using Counts = std::map<std::string, int>;

// Nodes "h0", "h1", ... with the given (dc, rack), in that order (the driver's populate order).
Topology hosts(const std::vector<std::pair<std::string, std::string>>& where) {
  std::vector<NodeSpec> nodes;
  for (std::size_t i = 0; i < where.size(); ++i)
    nodes.push_back({"h" + std::to_string(i), where[i].first, where[i].second, {static_cast<Token>(i) * 1000}});
  return Topology::build(nodes);
}


std::string token_aware(const std::string& extra, const std::string& child) {
  return R"({"type":"PythonTokenAware")" + extra + R"(,"child":)" + child + "}";
}

// ---- DCAwareRoundRobinPolicy ----------------------------------------------------------------------

TEST(PythonDcAware, RotatesOverTheLocalDcOneStepPerPlan) {
  Harness h(scassandra({5, 5}), simple(1), R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1"})");
  EXPECT_EQ(first_counts(h, h.unrouted(), 25), (Counts{{"1:1", 5}, {"1:2", 5}, {"1:3", 5}, {"1:4", 5}, {"1:5", 5}}));
  const auto a = h.plan(h.unrouted());
  const auto b = h.plan(h.unrouted());
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(b.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(b[i], a[(i + 1) % 5]) << "each plan starts one host later";
}

TEST(PythonDcAware, RemoteHostsAreTheFirstUsedHostsPerRemoteDcUnrotatedForEveryCl) {
  Harness h(scassandra({5, 5}), simple(1), R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":2})");
  for (int i = 0; i < 7; ++i) {
    const Names p = h.plan_names(h.unrouted());
    ASSERT_EQ(p.size(), 7u);
    EXPECT_EQ(Names(p.begin() + 5, p.end()), (Names{"2:1", "2:2"}));
  }
  EXPECT_EQ(h.policy().distance(h.id("2:2")), Distance::Remote);
  EXPECT_EQ(h.policy().distance(h.id("2:3")), Distance::Ignored);
  EXPECT_EQ(h.policy().distance_tier(h.id("1:4")), 1);
  // J3's "dc1 nodes 1, 3, 5 down: 10 each to 1:2 and 1:4" holds too.
  for (const char* n : {"1:1", "1:3", "1:5"}) h.down(h.id(n));
  EXPECT_EQ(first_counts(h, h.unrouted(ConsistencyLevel::One), 20), (Counts{{"1:2", 10}, {"1:4", 10}}));
  // The local DC down: unlike J3 ({0,0,0,10,10}) the remote hosts are not rotated, and the Python
  // driver has no DC-local-CL check: every query goes to 2:1, LOCAL_ONE included.
  h.down(h.id("1:2"));
  h.down(h.id("1:4"));
  EXPECT_EQ(first_counts(h, h.unrouted(ConsistencyLevel::LocalOne), 20), (Counts{{"2:1", 20}}));
  // 2:1 down: 2:3 becomes the second used host of dc2.
  h.down(h.id("2:1"));
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"2:2", "2:3"}));
  EXPECT_EQ(h.policy().distance(h.id("2:3")), Distance::Remote);
}

// test_status_updates (both policies), then a DC that empties and comes back goes last.
TEST(PythonDcAware, StatusUpdatesFollowTheDriversDictOrder) {
  const Topology t = hosts({{"dc1", "rack1"}, {"dc1", "rack1"}, {"dc1", "rack2"}, {"dc1", "rack2"}, {"dc2", "rack1"},
                            {"dc1", "rack1"}, {"dc9000", "rack1"}});
  for (const char* spec : {R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":1})",
                           R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"rack1","used_hosts_per_remote_dc":1})"}) {
    Harness h(t, simple(1), spec);
    h.down(5);  // not yet in the cluster
    h.down(6);
    h.down(0);
    h.down(2);
    h.up(5);
    h.up(6);
    auto p = h.plan(h.unrouted());
    ASSERT_EQ(p.size(), 5u) << spec;
    EXPECT_EQ(std::set<HostId>(p.begin(), p.begin() + 3), (std::set<HostId>{1, 3, 5})) << spec;
    EXPECT_EQ(std::vector<HostId>(p.begin() + 3, p.end()), (std::vector<HostId>{4, 6})) << spec;
    EXPECT_EQ(h.policy().distance(6), Distance::Remote);
    h.down(4);  // dc2 empties: its key is deleted, and re-added after dc9000
    h.up(4);
    p = h.plan(h.unrouted());
    EXPECT_EQ(std::vector<HostId>(p.begin() + 3, p.end()), (std::vector<HostId>{6, 4})) << spec;
    h.down(5);
    h.down(1);
    p = h.plan(h.unrouted());
    EXPECT_EQ(std::set<HostId>(p.begin(), p.end()), (std::set<HostId>{3, 4, 6})) << spec;
    for (HostId x : {6u, 3u, 4u}) h.down(x);
    EXPECT_TRUE(h.plan(h.unrouted()).empty()) << spec;
  }
}

// ---- RackAwareRoundRobinPolicy ----------------------------------------------------------------------

TEST(PythonRackAware, LocalRackThenOtherRacksAndTheReducedIndexQuirk) {
  const std::vector<std::vector<std::string>> racks{{"r1", "r2", "r1", "r2", "r1"}, {"r1", "r1", "r1", "r1", "r1"}};
  Harness h(scassandra({5, 5}, racks), simple(1),
            R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"r1"})");
  EXPECT_EQ(first_counts(h, h.unrouted(), 15), (Counts{{"1:1", 5}, {"1:3", 5}, {"1:5", 5}}));
  const Names p = h.plan_names(h.unrouted());
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(std::set<std::string>(p.begin(), p.begin() + 3), (std::set<std::string>{"1:1", "1:3", "1:5"}));
  EXPECT_EQ(std::set<std::string>(p.begin() + 3, p.end()), (std::set<std::string>{"1:2", "1:4"}));
  h.down(h.id("1:5"));
  EXPECT_EQ(first_counts(h, h.unrouted(), 20), (Counts{{"1:1", 10}, {"1:3", 10}}));
  // All of r1 down: J3 gives 10 each to 1:2 and 1:4; Python rotates the other racks by
  // (pos % 0 -> 0) % 2 = 0, so every plan starts at the same host.
  h.down(h.id("1:1"));
  h.down(h.id("1:3"));
  EXPECT_EQ(first_counts(h, h.unrouted(), 20), (Counts{{"1:2", 20}}));
}

TEST(PythonRackAware, OtherRacksStartAtPositionModRackSizeModOthersSize) {
  // Local rack {1:1, 1:2}, other racks {1:3, 1:4, 1:5}: the first other-rack host of a plan is
  // others[(pos % 2) % 3], so 1:5 never comes third.
  Harness h(scassandra({5}, {{"a", "a", "b", "b", "c"}}), simple(1),
            R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"a"})");
  Counts first, third;
  for (int i = 0; i < 60; ++i) {
    const Names p = h.plan_names(h.unrouted());
    ASSERT_EQ(p.size(), 5u);
    ++first[p[0]];
    ++third[p[2]];
  }
  EXPECT_EQ(first, (Counts{{"1:1", 30}, {"1:2", 30}}));
  EXPECT_EQ(third, (Counts{{"1:3", 30}, {"1:4", 30}}));
}

TEST(PythonRackAware, DistanceTiersAreLocalRackLocalRemoteIgnored) {
  Harness h(scassandra({3, 3}, {{"a", "b", "a"}, {"a", "a", "a"}}), simple(1),
            R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"a","used_hosts_per_remote_dc":1})");
  Policy& p = h.policy();
  EXPECT_EQ(p.distance_tier(h.id("1:1")), 0);
  EXPECT_EQ(p.distance(h.id("1:1")), Distance::Local);
  EXPECT_EQ(p.distance_tier(h.id("1:2")), 1);
  EXPECT_EQ(p.distance_tier(h.id("2:1")), 2);  // rack "a" of dc2 is not the local rack
  EXPECT_EQ(p.distance_tier(h.id("2:2")), -1);
  EXPECT_EQ(p.distance(h.id("2:2")), Distance::Ignored);
}

// ---- TokenAwarePolicy -------------------------------------------------------------------------------

// test_wrap_dc_aware: local replica, remote replica, local non-replica, remote non-replica (PR #574);
// before it (the datastax rules, used_hosts_per_remote_dc 1): local replica, local non-replica, 2:1.
TEST(PythonTokenAware, WrapDcAwareVectorBeforeAndAfterPr574) {
  const Topology t = hosts({{"dc1", "r"}, {"dc1", "r"}, {"dc2", "r"}, {"dc2", "r"}});
  Harness now(t, simple(1), token_aware("", R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":2})"));
  Harness old(t, simple(1), token_aware(R"(,"version":"datastax")",
                                        R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":1})"));
  for (int i = 0; i < 4; ++i) {
    const bool even = i % 2 == 0;
    const Request req = now.with_replicas(even ? std::vector<HostId>{0, 2} : std::vector<HostId>{1, 3});
    EXPECT_EQ(now.plan(req), even ? (std::vector<HostId>{0, 2, 1, 3}) : (std::vector<HostId>{1, 3, 0, 2}));
    const Request req_old = old.with_replicas(even ? std::vector<HostId>{0, 2} : std::vector<HostId>{1, 3});
    EXPECT_EQ(old.plan(req_old), even ? (std::vector<HostId>{0, 1, 2}) : (std::vector<HostId>{1, 0, 2}));
  }
}

const char* kRackChild = R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"rack1","used_hosts_per_remote_dc":4})";

Topology wrap_rack_aware_topology() {
  return hosts({{"dc1", "rack1"}, {"dc1", "rack2"}, {"dc2", "rack1"}, {"dc2", "rack2"}, {"dc1", "rack1"},
                {"dc1", "rack2"}, {"dc2", "rack1"}, {"dc2", "rack2"}});
}

// test_wrap_rack_aware (scylladb/python-driver#573/#574): local-rack replica, local-DC replica,
// the remote DC's replicas, then the non-replicas local rack -> local DC -> remote.
TEST(PythonTokenAware, WrapRackAwareVectorGivesLocalRackThenLocalDcThenRemoteThenNonReplicas) {
  Harness h(wrap_rack_aware_topology(), simple(1), token_aware("", kRackChild));
  for (int i = 0; i < 40; ++i) {
    const bool even = i % 2 == 0;
    const HostId b = even ? 0 : 4;  // replicas b, b+1, b+2, b+3
    const std::vector<HostId> p = h.plan(h.with_replicas({b, b + 1, b + 2, b + 3}));
    ASSERT_EQ(p.size(), 8u);
    EXPECT_EQ(p[0], b);
    EXPECT_EQ(p[1], b + 1);
    EXPECT_EQ(std::set<HostId>(p.begin() + 2, p.begin() + 4), (std::set<HostId>{b + 2, b + 3}));
    const HostId o = even ? 4 : 0;
    EXPECT_EQ(std::vector<HostId>(p.begin() + 4, p.end()), (std::vector<HostId>{o, o + 1, o + 2, o + 3}));
  }
}

// The #573 symptom: with the replicas listed remote rack first, the pre-#574 rules (3.28.0-scylla
// .. 3.29.4-scylla) put the remote-rack replica first; the tier rules never do.
TEST(PythonTokenAware, Issue573RemoteRackReplicaFirstBeforeTheFixOnly) {
  const Topology t = wrap_rack_aware_topology();
  Harness old(t, simple(1), token_aware(R"(,"version":"scylla-3.28.0")", kRackChild));
  Harness fixed(t, simple(1), token_aware(R"(,"version":"scylla-3.29.6","shuffle_replicas":false)", kRackChild));
  EXPECT_EQ(old.plan(old.with_replicas({1, 0, 2, 3})), (std::vector<HostId>{1, 0, 4, 5, 2, 3, 6, 7}));
  EXPECT_EQ(fixed.plan(fixed.with_replicas({1, 0, 2, 3})), (std::vector<HostId>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Shuffled: the old rules start at the remote rack about half the time, the new ones never.
  Harness old_shuffled(t, simple(1), token_aware(R"(,"version":"scylla-3.28.0","shuffle_replicas":true)", kRackChild));
  Harness now(t, simple(1), token_aware("", kRackChild));
  int old_remote_rack = 0, now_remote_rack = 0;
  for (int i = 0; i < 400; ++i) {
    old_remote_rack += old_shuffled.first(old_shuffled.with_replicas({0, 1, 2, 3})) == 1;
    now_remote_rack += now.first(now.with_replicas({0, 1, 2, 3})) == 1;
  }
  EXPECT_NEAR(old_remote_rack, 200, 60);  // binomial(400, 1/2): sd 10
  EXPECT_EQ(now_remote_rack, 0);
}

// A J3 vector the Python driver shares: NTS {dc1:1, dc2:1}, local dc2 -> the dc2 replica.
TEST(PythonTokenAware, PicksTheLocalDcReplicaOfARealToken) {
  Harness h(scassandra({3, 3}), nts({{"dc1", 1}, {"dc2", 1}}),
            token_aware("", R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc2","used_hosts_per_remote_dc":3})"));
  const Request req = h.routed(murmur3_token(
      text_key("should_choose_host_in_local_dc_when_using_network_topology_strategy_and_dc_aware")));
  EXPECT_EQ(names(h, {req.replicas.begin(), req.replicas.end()}), (Names{"1:1", "2:1"}));
  EXPECT_EQ(first_counts(h, req, 10), (Counts{{"2:1", 10}}));
  EXPECT_EQ(h.plan_names(req)[1], "1:1");  // the remote replica before the local non-replicas
}

TEST(PythonTokenAware, ShuffleOffKeepsTheReplicaOrderWithinEachTierAndDrawsNothing) {
  Harness h(scassandra({3, 3}), nts({{"dc1", 2}, {"dc2", 2}}),
            token_aware(R"(,"shuffle_replicas":false)", R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":3})"));
  for (Token t : {Token{-7000000000000000000}, Token{123456789}, Token{5000000000000000000}}) {
    const Request req = h.routed(t);
    std::vector<HostId> expected;  // dc1 replicas in the token map's order, then dc2's
    for (std::uint32_t dc : {0u, 1u})
      for (HostId r : req.replicas)
        if (h.ring().topology().node_dc[r] == dc) expected.push_back(r);
    for (int i = 0; i < 5; ++i) {
      const auto p = h.plan(req);
      ASSERT_EQ(p.size(), 6u);
      EXPECT_EQ(std::vector<HostId>(p.begin(), p.begin() + 4), expected);
    }
  }
  EXPECT_EQ(h.rnd.shared_draws, 0u);
}

TEST(PythonTokenAware, LwtAndSerialAreUnshuffledFromTheReleasesThatSaySo) {
  const std::string child = R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1"})";
  struct Case {
    std::string version;
    bool lwt;
    ConsistencyLevel cl;
    bool shuffled;
  };
  const std::vector<Case> cases{{"scylla-3.29.6", true, ConsistencyLevel::Serial, false},
                                {"scylla-3.29.6", false, ConsistencyLevel::Serial, true},
                                {"scylla-master", false, ConsistencyLevel::LocalSerial, false},
                                {"scylla-master", false, ConsistencyLevel::Quorum, true},
                                {"scylla-3.29.5", true, ConsistencyLevel::Serial, true}};
  for (const Case& c : cases) {
    Harness h(scassandra({6}), simple(3),
              token_aware(R"(,"version":")" + c.version + R"(","shuffle_replicas":true)", child));
    Request req = h.with_replicas({4, 1, 2});
    req.lwt = c.lwt;
    req.cl = c.cl;
    std::set<HostId> firsts;
    for (int i = 0; i < 100; ++i) {
      const auto p = h.plan(req);
      ASSERT_EQ(p.size(), 6u);
      firsts.insert(p[0]);
      if (!c.shuffled) {
        EXPECT_EQ(std::vector<HostId>(p.begin(), p.begin() + 3), (std::vector<HostId>{4, 1, 2}));
      }
    }
    EXPECT_EQ(h.rnd.shared_draws, c.shuffled ? 200u : 0u) << c.version;  // RF - 1 draws per plan
    EXPECT_EQ(firsts.size(), c.shuffled ? 3u : 1u) << c.version;
  }
}

TEST(PythonTokenAware, VersionDefaultsAndTheExplicitOverride) {
  const std::string child = R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1"})";
  const std::vector<std::pair<std::string, std::uint32_t>> cases{
      {"", 20}, {R"(,"version":"scylla-master")", 20}, {R"(,"version":"scylla-3.29.5")", 0},
      {R"(,"version":"scylla-3.28.0")", 0}, {R"(,"version":"datastax")", 0},
      {R"(,"version":"datastax","shuffle_replicas":true)", 20}, {R"(,"shuffle_replicas":false)", 0}};
  for (const auto& [extra, draws] : cases) {
    Harness h(scassandra({4}), simple(3), token_aware(extra, child));
    for (int i = 0; i < 10; ++i) h.plan(h.with_replicas({0, 1, 2}));
    EXPECT_EQ(h.rnd.shared_draws, draws) << extra;
    EXPECT_EQ(h.rnd.thread_local_draws, 0u);
  }
}

TEST(PythonTokenAware, DownReplicasAreSkippedAndTheViewDecides) {
  for (const char* version : {"datastax", "scylla-3.28.0", "scylla-3.29.5", "scylla-3.29.6"}) {
    Harness h(scassandra({5}), simple(3),
              token_aware(std::string(R"(,"version":")") + version + "\"", R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1"})"));
    h.down(1);
    for (int i = 0; i < 10; ++i) {
      const auto p = h.plan(h.with_replicas({0, 1, 2}));
      EXPECT_EQ(p.size(), 4u) << version;
      EXPECT_EQ(std::count(p.begin(), p.end(), 1u), 0) << version;
      EXPECT_EQ(std::set<HostId>(p.begin(), p.begin() + 2), (std::set<HostId>{0, 2})) << version;
    }
  }
  // Host.is_up is read as the plan runs: a replica the view marks down is skipped before the
  // policy hears of it (the tier rules also check the non-replicas).
  Harness h(scassandra({5}), simple(3), token_aware("", R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1"})"));
  h.view().set_up(2, false);
  h.view().set_up(4, false);
  const auto p = h.plan(h.with_replicas({0, 1, 2}));
  EXPECT_EQ(std::set<HostId>(p.begin(), p.end()), (std::set<HostId>{0, 1, 3}));
}

TEST(PythonTokenAware, UnroutedIsTheChildPlanAndTheChildPlanIsMadeOnlyWhenReplicasRunOut) {
  const std::string child = R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":1})";
  Harness ta(scassandra({4, 2}), simple(1), token_aware("", child), 7);
  Harness rr(scassandra({4, 2}), simple(1), child, 7);
  // Ten routed requests that stop at the first replica never build a child plan.
  for (int i = 0; i < 10; ++i) EXPECT_NE(ta.first(ta.with_replicas({1, 2})), kNoHost);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(ta.plan(ta.unrouted()), rr.plan(rr.unrouted()));
  EXPECT_EQ(ta.rnd.shared_draws, 10u);  // the routed ones' shuffles only
}

TEST(PythonTokenAware, PlansNeverRepeatAHostUnderChurn) {
  Rng churn(99);
  for (const char* version : {"datastax", "scylla-3.28.0", "scylla-3.29.5", "scylla-3.29.6", "scylla-master"}) {
    const bool rack = std::string(version) != "datastax";
    Harness h(scassandra({4, 4}, {{"a", "b", "a", "b"}, {"a", "b", "a", "b"}}), nts({{"dc1", 2}, {"dc2", 2}}),
              token_aware(std::string(R"(,"shuffle_replicas":true,"version":")") + version + "\"",
                          rack ? R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"a","used_hosts_per_remote_dc":2})"
                               : R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":2})"));
    for (int i = 0; i < 2000; ++i) {
      if (i % 10 == 0) {
        const auto x = static_cast<HostId>(churn.below(8));
        h.view().is_up(x) ? h.down(x) : h.up(x);
      }
      const auto p = h.plan(h.routed(static_cast<Token>(churn.next_u64())));
      EXPECT_EQ(std::set<HostId>(p.begin(), p.end()).size(), p.size()) << version;
      for (HostId x : p) EXPECT_TRUE(x < 8 && h.view().is_up(x)) << version;
    }
  }
}

// random.shuffle over 3 LOCAL replicas: the first host is uniform. 30,000 plans, chi-square with
// 2 degrees of freedom below 13.82 (p = 0.001), fixed seed.
TEST(PythonTokenAware, ShuffledFirstHostIsUniformOverTheReplicas) {
  Harness h(scassandra({6}), simple(3), token_aware("", R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1"})"), 2024);
  const Request req = h.with_replicas({1, 3, 5});
  std::map<HostId, int> counts;
  constexpr int kPlans = 30000;
  for (int i = 0; i < kPlans; ++i) ++counts[h.first(req)];
  ASSERT_EQ(counts.size(), 3u);
  double chi2 = 0;
  for (const auto& [host, n] : counts) chi2 += (n - kPlans / 3.0) * (n - kPlans / 3.0) / (kPlans / 3.0);
  EXPECT_LT(chi2, 13.82);
  EXPECT_EQ(h.rnd.shared_draws, 2u * kPlans);
}

TEST(PythonTokenAware, SpecErrorsNameThePath) {
  const Topology t = scassandra({2, 2});
  EXPECT_NE(spec_error(R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1"})").find("/p/local_rack: required field is missing"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"nope"})", &t).find("/p/local_rack: unknown rack"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"PythonDCAwareRoundRobin","used_hosts_per_remote_dc":-1})").find("/p/used_hosts_per_remote_dc"),
            std::string::npos);
  EXPECT_NE(spec_error(token_aware(R"(,"version":"3.29")", R"({"type":"PythonDCAwareRoundRobin"})"))
                .find("/p/version: unknown value '3.29'; valid: datastax, scylla-3.28.0, scylla-3.29.5, scylla-3.29.6, scylla-master"),
            std::string::npos);
  EXPECT_NE(spec_error(token_aware(R"(,"version":"datastax")", kRackChild)).find("/p/child/type: the DataStax Python driver has no"),
            std::string::npos);
  EXPECT_NE(spec_error(token_aware("", R"({"type":"DCAwareRoundRobin"})")).find("/p/child/type: PythonTokenAware"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"PythonTokenAware"})").find("/p/child: required field is missing"), std::string::npos);
  EXPECT_EQ(spec_error(token_aware("", kRackChild)), "no error");
}

}  // namespace lbsim::policy::python_test
