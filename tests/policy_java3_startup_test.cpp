// Issue 44.14: the Java 3.x round-robin policies start and visit as the driver does
// (scylladb/java-driver scylla-3.x @07d0f665): Cluster.Manager.init hands the policy only the
// reachable contact points and adds the other hosts afterwards (onAdd), so with one contact point
// the start index is 0 whatever the seed; DCAwareRoundRobinPolicy and RackAwareRoundRobinPolicy
// visit remote DCs in the HashSet order of their names (dc2, dc1, dc3 for three DCs).
#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>

#include "policy_test_util.hpp"

namespace lbsim::policy {
namespace {

using namespace testing;
using Names = std::vector<std::string>;

TEST(Java3Startup, OneContactPointStartsEveryClientAtItThenTheOthersInDiscoveryOrder) {
  for (const char* type : {"DCAwareRoundRobin", "RackAwareRoundRobin", "RoundRobin"}) {
    const std::string spec = fmt::format(R"({{"type":"{}","contact_points":["1:3"]}})", type);
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      Harness h(scassandra({5}), simple(1), spec, seed);
      // init() got [1:3], the index is nextInt(1) = 0; onAdd appended 1:1, 1:2, 1:4, 1:5.
      EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:3", "1:1", "1:2", "1:4", "1:5"})) << type << " seed " << seed;
      EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:1", "1:2", "1:4", "1:5", "1:3"})) << type << " seed " << seed;
    }
  }
}

TEST(Java3Startup, WithoutContactPointsTheStartIsUniformOverTheHosts) {
  std::set<std::string> firsts;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Harness h(scassandra({5}), simple(1), R"({"type":"DCAwareRoundRobin"})", seed);
    firsts.insert(h.plan_names(h.unrouted()).front());
  }
  EXPECT_EQ(firsts.size(), 5u);
}

TEST(Java3Startup, TheStartIsUniformOverTheReachableContactPointsOnly) {
  std::set<std::string> firsts;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Harness h(scassandra({5}), simple(1), R"({"type":"RoundRobin","contact_points":["1:4","1:2"]})", seed);
    const Names plan = h.plan_names(h.unrouted());
    firsts.insert(plan.front());
    // The contact points first (the order given), then the others in topology order.
    const Names order{"1:4", "1:2", "1:1", "1:3", "1:5"};
    EXPECT_EQ(plan, plan.front() == "1:4" ? order : (Names{"1:2", "1:1", "1:3", "1:5", "1:4"}));
  }
  EXPECT_EQ(firsts, (std::set<std::string>{"1:2", "1:4"}));
}

TEST(Java3Startup, AnUnreachableContactPointIsNotGivenToInit) {
  // 1:2 is down when the client connects: init() gets [1:4] alone, so the start is 0.
  const Topology topo = scassandra({5});
  const TokenRing ring(topo, simple(1));
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    ClusterView view(ring.topology());
    view.set_up(1, false);
    auto p = make_policy(nlohmann::json::parse(R"({"type":"DCAwareRoundRobin","contact_points":["1:2","1:4"]})"), "",
                         BuildContext{&ring.topology(), &ring.replication()});
    Rng init_rng(seed);
    p->init(view, init_rng);
    Rng rng(seed);
    PlanRandom rnd(rng);
    PlanArena arena;
    Request req;
    Plan* pl = p->new_plan(req, rnd, arena);
    Names plan;
    for (HostId x = pl->next(); x != kNoHost; x = pl->next()) plan.push_back(ring.topology().nodes[x].id);
    EXPECT_EQ(plan, (Names{"1:4", "1:1", "1:3", "1:5"})) << seed;
  }
}

TEST(Java3Startup, TheDefaultLocalDcAndRackAreTheFirstContactPoints) {
  Harness dc(scassandra({2, 2}), nts({{"dc1", 1}, {"dc2", 1}}), R"({"type":"DCAwareRoundRobin","contact_points":["2:2"]})");
  EXPECT_EQ(dc.plan_names(dc.unrouted()), (Names{"2:2", "2:1"}));
  EXPECT_EQ(dc.policy().distance(dc.id("1:1")), Distance::Ignored);
  Harness rack(scassandra({4}, {{"r1", "r2", "r1", "r2"}}), simple(1),
               R"({"type":"RackAwareRoundRobin","contact_points":["1:4"]})");
  EXPECT_EQ(rack.plan_names(rack.unrouted()), (Names{"1:4", "1:2", "1:1", "1:3"}));
}

TEST(Java3RemoteDcs, ThreeDcsAreVisitedDc2Dc1Dc3) {
  // HashSet<String> of {dc1, dc2, dc3} iterates dc2, dc1, dc3 (policies/java3/java_hash_order.hpp).
  for (const char* type : {"DCAwareRoundRobin", "RackAwareRoundRobin"}) {
    for (const auto& [local, remote] : std::vector<std::pair<std::string, Names>>{
             {"dc3", {"2:1", "1:1"}}, {"dc1", {"2:1", "3:1"}}, {"dc2", {"1:1", "3:1"}}}) {
      Harness h(scassandra({2, 2, 2}), nts({{"dc1", 1}, {"dc2", 1}, {"dc3", 1}}),
                fmt::format(R"({{"type":"{}","local_dc":"{}","used_hosts_per_remote_dc":1}})", type, local));
      const Names plan = h.plan_names(h.unrouted(ConsistencyLevel::One));
      ASSERT_EQ(plan.size(), 4u) << type << " " << local;
      EXPECT_EQ(Names(plan.begin() + 2, plan.end()), remote) << type << " " << local;
    }
  }
}

}  // namespace
}  // namespace lbsim::policy
