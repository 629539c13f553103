// Expected plans and per-node counts from the Java driver 3.x's own test suite, on the same
// topologies. J3 = scylladb/java-driver, branch scylla-3.x, driver-core/src/test/java/com/datastax/
// driver/core/: policies/TokenAwarePolicyTest.java (unit cases with mocks, and Scassandra cases on
// ScassandraCluster.java's token layout), policies/DCAwareRoundRobinPolicyTest.java,
// policies/RoundRobinPolicyTest.java and policies/RackAwareRoundRobinPolicyTest.java. The
// RackAware distance change is scylladb/java-driver PR #588 (issue #369).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "policies/wrappers.hpp"
#include "policy_test_util.hpp"
#include "sim/cluster/routing_key.hpp"

namespace lbsim::policy {
namespace {

using namespace testing;
using Names = std::vector<std::string>;

std::map<std::string, int> first_host_counts(Harness& h, const Request& req, int queries) {
  std::map<std::string, int> counts;
  for (int i = 0; i < queries; ++i) {
    const HostId f = h.first(req);
    if (f != kNoHost) ++counts[h.name(f)];
  }
  return counts;
}

// ---- J3 TokenAwarePolicyTest, unit cases: replicas [h1, h2], child plan [h4, h3, h2, h1] -------

std::unique_ptr<Harness> unit_case(ReplicaOrdering ordering) {
  auto child = std::make_unique<FixedChild>(std::vector<HostId>{3, 2, 1, 0});
  return std::make_unique<Harness>(scassandra({4}), simple(1), make_token_aware(std::move(child), {ordering, RngModel::Shared}));
}

TEST(PolicyVectors, TopologicalReturnsReplicasInDriverOrderThenTheRestOfTheChildPlan) {
  auto h = unit_case(ReplicaOrdering::Topological);
  EXPECT_EQ(h->plan_names(h->with_replicas({0, 1})), (Names{"1:1", "1:2", "1:4", "1:3"}));
}

TEST(PolicyVectors, NeutralReturnsReplicasInChildOrderThenTheRest) {
  auto h = unit_case(ReplicaOrdering::Neutral);
  EXPECT_EQ(h->plan_names(h->with_replicas({0, 1})), (Names{"1:2", "1:1", "1:4", "1:3"}));
}

TEST(PolicyVectors, RandomReturnsEachHostOnceAndEndsWithTheNonReplicas) {
  auto h = unit_case(ReplicaOrdering::Random);
  std::set<std::string> firsts;
  for (int i = 0; i < 50; ++i) {
    const auto before = h->rnd.shared_draws;
    const Names p = h->plan_names(h->with_replicas({0, 1}));
    ASSERT_EQ(p.size(), 4u);
    EXPECT_EQ(std::set<std::string>(p.begin(), p.end()).size(), 4u);
    EXPECT_EQ((Names{p[2], p[3]}), (Names{"1:4", "1:3"}));
    EXPECT_EQ(h->rnd.shared_draws - before, 1u) << "Collections.shuffle of 2 replicas draws once";
    firsts.insert(p[0]);
  }
  EXPECT_EQ(firsts, (std::set<std::string>{"1:1", "1:2"}));
}

// RANDOM keeps a shuffled copy of up to six replicas inside its plan, and of longer lists in the
// arena beside it: both shuffle the same way (Collections.shuffle, n - 1 draws).
TEST(PolicyVectors, RandomShufflesShortAndLongReplicaListsAlike) {
  for (const int n : {6, 7, 8}) {
    std::vector<HostId> child_plan, replicas;
    for (int i = n - 1; i >= 0; --i) child_plan.push_back(static_cast<HostId>(i));
    for (int i = 0; i < n; ++i) replicas.push_back(static_cast<HostId>(i));
    Harness h(scassandra({n}), simple(1),
              make_token_aware(std::make_unique<FixedChild>(child_plan), {ReplicaOrdering::Random, RngModel::Shared}));
    std::set<HostId> firsts;
    for (int i = 0; i < 200; ++i) {
      const auto before = h.rnd.shared_draws;
      const std::vector<HostId> p = h.plan(h.with_replicas(replicas));
      EXPECT_EQ(h.rnd.shared_draws - before, static_cast<std::uint32_t>(n - 1)) << n << " replicas";
      EXPECT_EQ(std::set<HostId>(p.begin(), p.end()), std::set<HostId>(replicas.begin(), replicas.end())) << n;
      EXPECT_EQ(p.size(), static_cast<std::size_t>(n)) << "every replica once, the child adds none";
      firsts.insert(p[0]);
    }
    EXPECT_EQ(firsts.size(), static_cast<std::size_t>(n)) << "each replica comes first in some of 200 plans";
  }
}

// The Java 3.x default plans fit the arena's inline memory (no overflow chunk), so an operation's
// plan stays in its two cache lines (issue 14), also with RF 3 in each of two DCs.
TEST(PolicyVectors, DefaultPlansStayInTheArenasInlineMemory) {
  for (const std::string spec : {
           R"({"type":"TokenAware","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})",
           R"({"type":"TokenAware","ordering":"TOPOLOGICAL","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})",
           R"({"type":"DCAwareRoundRobin","local_dc":"dc1"})"}) {
    Harness h(scassandra({4, 4}), nts({{"dc1", 3}, {"dc2", 3}}), spec);
    for (int i = 0; i < 100; ++i) {
      Request req = h.routed(static_cast<Token>(i) * 92233720368547758);
      req.lwt = i % 10 == 0;
      ASSERT_NE(h.first(req), kNoHost);
      EXPECT_EQ(h.arena.chunk_count(), 1u) << spec;
    }
  }
}

// The child plan made after the replicas run out is made for the plan's request: its consistency
// level decides whether the DC-aware child goes on to the remote DC.
TEST(PolicyVectors, TokenAwaresLateChildPlanSeesTheRequestsConsistencyLevel) {
  Harness h(scassandra({2, 2}), nts({{"dc1", 1}, {"dc2", 1}}),
            R"({"type":"TokenAware","child":{"type":"DCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":1}})");
  EXPECT_EQ(h.plan(h.routed(7, ConsistencyLevel::LocalOne)).size(), 2u);
  EXPECT_EQ(h.plan(h.routed(7, ConsistencyLevel::One)).size(), 3u);
}

TEST(PolicyVectors, TokenAwareBuildsTheChildPlanOnlyWhenTheReplicasRunOut) {
  auto child = std::make_unique<FixedChild>(std::vector<HostId>{3, 2, 1, 0});
  FixedChild* c = child.get();
  Harness h(scassandra({4}), simple(1), make_token_aware(std::move(child), {ReplicaOrdering::Topological, RngModel::Shared}));
  h.arena.reset();
  Plan* p = h.policy().new_plan(h.with_replicas({0, 1}), h.rnd, h.arena);
  EXPECT_EQ(p->next(), 0u);
  EXPECT_EQ(p->next(), 1u);
  EXPECT_EQ(c->plans_made, 0);
  EXPECT_EQ(p->next(), 3u);
  EXPECT_EQ(c->plans_made, 1);
}

// ---- J3 TokenAwarePolicyTest, Scassandra cases ---------------------------------------------------

TEST(PolicyVectors, SampleTextKeyOnEightNodesHasReplicasSixSevenEight) {
  for (auto ordering : {ReplicaOrdering::Topological, ReplicaOrdering::Neutral, ReplicaOrdering::Random}) {
    Harness h(scassandra({8}), simple(3), make_token_aware(std::make_unique<SortingChild>(), {ordering, RngModel::Shared}));
    const Request req = h.routed(murmur3_token(text_key("This is some sample text")));
    EXPECT_EQ(req.token, 4874351301193663061);
    EXPECT_EQ(names(h, {req.replicas.begin(), req.replicas.end()}), (Names{"1:6", "1:7", "1:8"}));
    Names p = h.plan_names(req);
    ASSERT_EQ(p.size(), 8u);
    Names head(p.begin(), p.begin() + 3);
    if (ordering == ReplicaOrdering::Random) std::sort(head.begin(), head.end());
    EXPECT_EQ(head, (Names{"1:6", "1:7", "1:8"}));
  }
}

TEST(PolicyVectors, TokenAwareRoundRobinSendsEveryQueryToTheOnlyReplica) {
  Harness h(scassandra({3}), simple(1), R"({"type":"TokenAware","child":{"type":"RoundRobin"}})");
  const Request req = h.routed(murmur3_token(text_key("should_choose_proper_host_based_on_routing_key")));
  EXPECT_EQ(req.token, 4557949199137838892);
  EXPECT_EQ(first_host_counts(h, req, 10), (std::map<std::string, int>{{"1:3", 10}}));
}

TEST(PolicyVectors, TokenAwareDcAwarePicksTheLocalDcReplica) {
  Harness h(scassandra({3, 3}), nts({{"dc1", 1}, {"dc2", 1}}),
            R"({"type":"TokenAware","child":{"type":"DCAwareRoundRobin","local_dc":"dc2","used_hosts_per_remote_dc":3}})");
  const Request req = h.routed(murmur3_token(
      text_key("should_choose_host_in_local_dc_when_using_network_topology_strategy_and_dc_aware")));
  EXPECT_EQ(req.token, -8124212968526248339);
  EXPECT_EQ(names(h, {req.replicas.begin(), req.replicas.end()}), (Names{"1:1", "2:1"}));
  EXPECT_EQ(first_host_counts(h, req, 10), (std::map<std::string, int>{{"2:1", 10}}));
}

TEST(PolicyVectors, NeutralFollowsNodesGoingDownAndComingBack) {
  Harness h(scassandra({4}), simple(2), make_token_aware(std::make_unique<SortingChild>(), {ReplicaOrdering::Neutral, RngModel::Shared}));
  const Request req = h.routed(murmur3_token(text_key("should_use_other_nodes_when_replicas_having_token_are_down")));
  EXPECT_EQ(req.token, 6444339665561646341);
  EXPECT_EQ(names(h, {req.replicas.begin(), req.replicas.end()}), (Names{"1:4", "1:1"}));
  EXPECT_EQ(h.plan_names(req), (Names{"1:1", "1:4", "1:2", "1:3"}));
  using Counts = std::map<std::string, int>;
  EXPECT_EQ(first_host_counts(h, req, 10), (Counts{{"1:1", 10}}));
  h.down(h.id("1:1"));
  EXPECT_EQ(first_host_counts(h, req, 10), (Counts{{"1:4", 10}}));
  h.down(h.id("1:4"));
  EXPECT_EQ(first_host_counts(h, req, 10), (Counts{{"1:2", 10}}));
  h.up(h.id("1:4"));
  EXPECT_EQ(first_host_counts(h, req, 10), (Counts{{"1:4", 10}}));
  h.up(h.id("1:1"));
  EXPECT_EQ(first_host_counts(h, req, 10), (Counts{{"1:1", 10}}));
}

TEST(PolicyVectors, BigintAndCompositeRoutingKeysReachTheirOwners) {
  Harness h(scassandra({4}), simple(1), R"({"type":"TokenAware","child":{"type":"RoundRobin"}})");
  const auto big = bigint_key(33);
  const Request r1 = h.routed(murmur3_token(big));
  EXPECT_EQ(r1.token, 4891967783720036163);
  EXPECT_EQ(h.name(h.first(r1)), "1:4");
  const auto k42 = bigint_key(42);
  const Bytes composite = pack_composite({Bytes(k42.begin(), k42.end()), text_key("hello_world")});
  const Request r2 = h.routed(murmur3_token(composite));
  EXPECT_EQ(r2.token, 3735658072872431718);
  EXPECT_EQ(h.name(h.first(r2)), "1:3");
}

// ---- J3 DCAwareRoundRobinPolicyTest / RoundRobinPolicyTest / RackAwareRoundRobinPolicyTest -------

TEST(PolicyVectors, DcAwareRoundRobinsWithinTheLocalDc) {
  Harness h(scassandra({5, 5}), simple(1), R"({"type":"DCAwareRoundRobin","local_dc":"dc1"})");
  EXPECT_EQ(first_host_counts(h, h.unrouted(), 25),
            (std::map<std::string, int>{{"1:1", 5}, {"1:2", 5}, {"1:3", 5}, {"1:4", 5}, {"1:5", 5}}));
}

TEST(PolicyVectors, DcAwareStaysLocalWhileSomeLocalNodesAreUp) {
  Harness h(scassandra({5, 5}), simple(1), R"({"type":"DCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":2})");
  for (const char* n : {"1:5", "1:3", "1:1"}) h.down(h.id(n));
  EXPECT_EQ(first_host_counts(h, h.unrouted(ConsistencyLevel::One), 20), (std::map<std::string, int>{{"1:2", 10}, {"1:4", 10}}));
}

TEST(PolicyVectors, DcAwareUsesOnlyUsedHostsPerRemoteDcWhenTheLocalDcIsDown) {
  Harness h(scassandra({5, 5}), simple(1), R"({"type":"DCAwareRoundRobin","used_hosts_per_remote_dc":2})");
  for (int i = 1; i <= 5; ++i) h.down(h.id("1:" + std::to_string(i)));
  const auto counts = first_host_counts(h, h.unrouted(ConsistencyLevel::One), 20);
  std::vector<int> dc2;
  for (int i = 1; i <= 5; ++i) dc2.push_back(counts.count("2:" + std::to_string(i)) ? counts.at("2:" + std::to_string(i)) : 0);
  std::sort(dc2.begin(), dc2.end());
  EXPECT_EQ(dc2, (std::vector<int>{0, 0, 0, 10, 10}));
}

TEST(PolicyVectors, DcAwareHopsToRemoteDcsOnlyForNonLocalConsistencyUnlessAllowed) {
  for (bool allow : {false, true}) {
    const std::string spec = std::string(R"({"type":"DCAwareRoundRobin","used_hosts_per_remote_dc":2,"allow_remote_dcs_for_local_cl":)") +
                             (allow ? "true" : "false") + "}";
    Harness h(scassandra({2, 2}), simple(1), spec);
    h.down(h.id("1:1"));
    h.down(h.id("1:2"));
    for (auto cl : {ConsistencyLevel::One, ConsistencyLevel::Quorum, ConsistencyLevel::LocalOne, ConsistencyLevel::LocalQuorum}) {
      const auto counts = first_host_counts(h, h.unrouted(cl), 20);
      if (is_dc_local(cl) && !allow) {
        EXPECT_TRUE(counts.empty()) << "NoHostAvailable for " << to_string(cl);
      } else {
        EXPECT_EQ(counts, (std::map<std::string, int>{{"2:1", 10}, {"2:2", 10}})) << to_string(cl);
      }
    }
  }
}

TEST(PolicyVectors, RoundRobinSpreadsEvenlyOverAllHostsOfAllDcs) {
  Harness h1(scassandra({5}), simple(1), R"({"type":"RoundRobin"})");
  const auto c1 = first_host_counts(h1, h1.unrouted(), 50);
  ASSERT_EQ(c1.size(), 5u);
  for (const auto& [n, c] : c1) EXPECT_EQ(c, 10) << n;
  Harness h2(scassandra({2, 2, 2, 2, 2}), simple(1), R"({"type":"RoundRobin"})");
  const auto c2 = first_host_counts(h2, h2.unrouted(), 50);
  ASSERT_EQ(c2.size(), 10u);
  for (const auto& [n, c] : c2) EXPECT_EQ(c, 5) << n;
}

TEST(PolicyVectors, RackAwarePrefersTheLocalRackThenOtherLocalRacks) {
  const std::vector<std::vector<std::string>> racks{{"r1", "r2", "r1", "r2", "r1"}, {"r1", "r1", "r1", "r1", "r1"}};
  Harness h(scassandra({5, 5}, racks), simple(1), R"({"type":"RackAwareRoundRobin","local_dc":"dc1","local_rack":"r1"})");
  using Counts = std::map<std::string, int>;
  EXPECT_EQ(first_host_counts(h, h.unrouted(), 15), (Counts{{"1:1", 5}, {"1:3", 5}, {"1:5", 5}}));
  h.down(h.id("1:5"));
  EXPECT_EQ(first_host_counts(h, h.unrouted(), 20), (Counts{{"1:1", 10}, {"1:3", 10}}));
  h.down(h.id("1:1"));
  h.down(h.id("1:3"));
  EXPECT_EQ(first_host_counts(h, h.unrouted(), 20), (Counts{{"1:2", 10}, {"1:4", 10}}));
}

TEST(PolicyVectors, RackAwareDistanceOfRemoteRacksIsLocalBeforePr588AndRemoteAfter) {
  const std::vector<std::vector<std::string>> racks{{"r1", "r2", "r1", "r2", "r1"}};
  Harness before(scassandra({5}, racks), simple(1), R"({"type":"RackAwareRoundRobin","local_rack":"r1"})");
  Harness after(scassandra({5}, racks), simple(1), R"({"type":"RackAwareRoundRobin","local_rack":"r1","remote_rack_distance":"REMOTE"})");
  EXPECT_EQ(before.policy().distance(before.id("1:2")), Distance::Local);
  EXPECT_EQ(after.policy().distance(after.id("1:2")), Distance::Remote);
  EXPECT_EQ(after.policy().distance(after.id("1:3")), Distance::Local);
}

}  // namespace
}  // namespace lbsim::policy
