// Contract tests run over every registered policy (a new policy must add a spec here):
// no host twice, no IGNORED or down host, up LOCAL replicas first where the driver puts them
// first, same seed same plans, and empty plans (never a crash) for an empty or all-down cluster.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "policy_test_util.hpp"

namespace lbsim::policy {
namespace {

using namespace testing;

struct ContractCase {
  std::string name;
  std::string spec;
  bool replicas_first;     // the plan starts with the up LOCAL replicas
  bool down_last = false;  // down hosts may follow every up host (the Rust driver's fallback)
};
// Names the case in ctest's listing instead of dumping its bytes.
void PrintTo(const ContractCase& c, std::ostream* os) { *os << c.name; }

// Keyed by registered type: every registered policy must appear at least once.
const std::vector<std::pair<std::string, ContractCase>>& cases() {
  static const std::vector<std::pair<std::string, ContractCase>> c{
      {"RoundRobin", {"RoundRobin", R"({"type":"RoundRobin"})", false}},
      {"RoundRobin", {"RoundRobinContactPoints", R"({"type":"RoundRobin","contact_points":["n3","n9"]})", false}},
      {"DCAwareRoundRobin",
       {"DCAwareContactPoint", R"({"type":"DCAwareRoundRobin","used_hosts_per_remote_dc":1,"contact_points":["n7"]})", false}},
      {"DCAwareRoundRobin", {"DCAware", R"({"type":"DCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":2})", false}},
      {"RackAwareRoundRobin",
       {"RackAware", R"({"type":"RackAwareRoundRobin","local_dc":"dc1","local_rack":"r1","used_hosts_per_remote_dc":1})", false}},
      {"TokenAware",
       {"TokenAwareRandomDcAware",
        R"({"type":"TokenAware","child":{"type":"DCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":2}})", true}},
      {"TokenAware",
       {"TokenAwareTopologicalRackAware",
        R"({"type":"TokenAware","ordering":"TOPOLOGICAL","child":{"type":"RackAwareRoundRobin","local_dc":"dc1","local_rack":"r1","used_hosts_per_remote_dc":1}})",
        true}},
      {"TokenAware",
       {"TokenAwareNeutralRackAwareAfterFix",
        R"({"type":"TokenAware","ordering":"NEUTRAL","child":{"type":"RackAwareRoundRobin","local_dc":"dc1","remote_rack_distance":"REMOTE"}})",
        true}},
      {"TokenAware",
       {"TokenAwareNeutralLatencyAware",
        R"({"type":"TokenAware","ordering":"NEUTRAL","shuffle_rng":"thread_local","child":{"type":"LatencyAware","min_measure":4,"child":{"type":"DCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":3}}})",
        true}},
      {"LatencyAware",
       {"LatencyAwareDcAware",
        R"({"type":"LatencyAware","min_measure":4,"update_rate_ms":1,"child":{"type":"DCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":1}})",
        false}},
      {"Basic4x", {"Basic4x", R"({"type":"Basic4x","local_dc":"dc1","max_nodes_per_remote_dc":2})", true}},
      {"Default4x", {"Default4x", R"({"type":"Default4x","local_dc":"dc1","max_nodes_per_remote_dc":1})", true}},
      {"Default4x",
       {"Default4xScyllaLocalRack", R"({"type":"Default4x","local_dc":"dc1","local_rack":"r2","max_nodes_per_remote_dc":1})",
        true}},
      // Not replicas-first: with one live local replica the driver compares it with the next host
      // of the child plan, a non-replica, and a tie puts that one first.
      {"RandomTwoChoice",
       {"RandomTwoChoiceTokenAwareRandom",
        R"({"type":"RandomTwoChoice","child":{"type":"TokenAware","child":{"type":"DCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":2}}})",
        false}},
      // Python driver.
      {"PythonDCAwareRoundRobin",
       {"PythonDCAware", R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":2})", false}},
      {"PythonRackAwareRoundRobin",
       {"PythonRackAware",
        R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"r2","used_hosts_per_remote_dc":1})", false}},
      {"PythonTokenAware",
       {"PythonTokenAwareRackAware",
        R"({"type":"PythonTokenAware","child":{"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"r2","used_hosts_per_remote_dc":1}})",
        true}},
      {"PythonTokenAware",
       {"PythonTokenAware3280Shuffled",
        R"({"type":"PythonTokenAware","version":"scylla-3.28.0","shuffle_replicas":true,"child":{"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"r1"}})",
        true}},
      {"PythonTokenAware",
       {"PythonTokenAwareDatastax",
        R"({"type":"PythonTokenAware","version":"datastax","child":{"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":2}})",
        true}},
      // Rust driver: down hosts come last (and an all-down cluster still gets a plan of them).
      {"RustDefault", {"RustDefault", R"({"type":"RustDefault","preferred_dc":"dc1"})", true, true}},
      {"RustDefault",
       {"RustDefaultRackFailoverLatency",
        R"({"type":"RustDefault","preferred_dc":"dc1","preferred_rack":"r2","permit_dc_failover":true,"latency_awareness":true})",
        false, true}},
      {"RustDefault",
       {"RustDefaultNoShuffleNoPreference", R"({"type":"RustDefault","enable_shuffling_replicas":false})", false, true}},
      // Go driver.
      {"GoRoundRobin", {"GoRoundRobin", R"({"type":"GoRoundRobin"})", false}},
      {"GoDCAwareRoundRobin", {"GoDCAware", R"({"type":"GoDCAwareRoundRobin","local_dc":"dc1"})", false}},
      {"GoRackAwareRoundRobin",
       {"GoRackAware",
        R"({"type":"GoRackAwareRoundRobin","local_dc":"dc1","local_rack":"r1","disable_dc_failover":true})", false}},
      {"GoTokenAware",
       {"GoTokenAwareDc", R"({"type":"GoTokenAware","child":{"type":"GoDCAwareRoundRobin","local_dc":"dc1"}})", true}},
      {"GoTokenAware",
       {"GoTokenAwareRackAllOptions",
        R"({"type":"GoTokenAware","non_local_replicas_fallback":true,"avoid_slow_replicas":true,"child":{"type":"GoRackAwareRoundRobin","local_dc":"dc1","local_rack":"r2","disable_dc_failover":true}})",
        true}},
      // Node.js driver.
      {"NodeDCAwareRoundRobin", {"NodeDCAware", R"({"type":"NodeDCAwareRoundRobin","local_dc":"dc1"})", false}},
      {"NodeTokenAware",
       {"NodeTokenAwareDc",
        R"({"type":"NodeTokenAware","child":{"type":"NodeDCAwareRoundRobin","local_dc":"dc1"}})", true}},
      {"NodeDefault", {"NodeDefault", R"({"type":"NodeDefault","local_dc":"dc1"})", true}},
      {"NodeAllowList",
       {"NodeAllowListTokenAware",
        R"({"type":"NodeAllowList","hosts":["n1","n3","n4","n7"],"child":{"type":"NodeTokenAware","child":{"type":"NodeDCAwareRoundRobin","local_dc":"dc1"}}})",
        false}},
      {"GoTokenAware",
       {"GoTokenAwareUpstreamRr",
        R"({"type":"GoTokenAware","version":"upstream","shuffle_replicas":true,"child":{"type":"GoRoundRobin"}})", true}},
  };
  return c;
}

// 2 DCs: dc1 with 5 nodes over racks r1/r2, dc2 with 4 nodes; 8 vnodes each.
Topology cluster() {
  std::vector<NodeSpec> nodes;
  Rng r(77);
  for (int i = 0; i < 9; ++i) {
    std::vector<Token> toks;
    for (int k = 0; k < 8; ++k) toks.push_back(static_cast<Token>(r.next_u64()));
    const bool dc1 = i < 5;
    nodes.push_back({"n" + std::to_string(i + 1), dc1 ? "dc1" : "dc2", (i % 2) ? "r2" : "r1", toks});
  }
  return Topology::build(nodes);
}

class PolicyContract : public ::testing::TestWithParam<ContractCase> {};

// Drives a harness through plans, feedback and host events, checking every plan.
void exercise(Harness& h, bool replicas_first, std::vector<std::vector<HostId>>* record, bool down_last = false) {
  Rng events(3);
  SimTime now = 0;
  for (int step = 0; step < 400; ++step) {
    now += 250 * kUs;
    if (step % 40 == 20) {
      const auto x = static_cast<HostId>(events.below(h.view().size()));
      if (h.view().is_up(x)) h.down(x);
      else h.up(x);
    }
    const auto t = static_cast<Token>(events.next_u64());
    const ConsistencyLevel cl = step % 3 == 0 ? ConsistencyLevel::LocalQuorum : ConsistencyLevel::One;
    const Request req = step % 7 == 0 ? h.unrouted(cl) : h.routed(t, cl, now);
    for (HostId x = 0; x < h.view().size(); ++x) h.view().set_in_flight(x, static_cast<std::int32_t>(events.below(20)));
    const std::vector<HostId> plan = h.plan(req);
    if (record) record->push_back(plan);
    std::set<HostId> seen;
    bool down_seen = false;
    for (HostId x : plan) {
      ASSERT_LT(x, h.view().size());
      EXPECT_TRUE(seen.insert(x).second) << "host " << h.name(x) << " twice";
      EXPECT_NE(h.policy().distance(x), Distance::Ignored) << h.name(x) << " is IGNORED";
      if (down_last) {
        EXPECT_FALSE(down_seen && h.view().is_up(x)) << h.name(x) << " is up after a down host";
        down_seen = down_seen || !h.view().is_up(x);
      } else {
        EXPECT_TRUE(h.view().is_up(x)) << h.name(x) << " is down";
      }
    }
    if (replicas_first && req.routed) {
      std::set<HostId> local_up;
      for (HostId r : req.replicas)
        if (h.view().is_up(r) && h.policy().distance(r) == Distance::Local) local_up.insert(r);
      ASSERT_GE(plan.size(), local_up.size());
      EXPECT_EQ(std::set<HostId>(plan.begin(), plan.begin() + static_cast<std::ptrdiff_t>(local_up.size())), local_up);
    }
    for (HostId x : plan) {
      h.policy().on_request_sent(x, now);
      const SimTime lat = (x == 1 ? 40 : 2) * kMs + static_cast<SimTime>(events.below(1000)) * kUs;
      h.policy().on_response(x, now + lat, lat, ResponseKind::Success);
      break;  // the first host answers
    }
  }
}

TEST_P(PolicyContract, PlansHaveNoDuplicateIgnoredOrDownHostAndPutLocalReplicasFirst) {
  Harness h(cluster(), nts({{"dc1", 3}, {"dc2", 2}}), GetParam().spec, 11);
  exercise(h, GetParam().replicas_first, nullptr, GetParam().down_last);
}

TEST_P(PolicyContract, TheSameSeedGivesTheSamePlans) {
  std::vector<std::vector<HostId>> a, b, c;
  {
    Harness h(cluster(), nts({{"dc1", 3}, {"dc2", 2}}), GetParam().spec, 5);
    exercise(h, false, &a, GetParam().down_last);
  }
  {
    Harness h(cluster(), nts({{"dc1", 3}, {"dc2", 2}}), GetParam().spec, 5);
    exercise(h, false, &b, GetParam().down_last);
  }
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 400u);
}

TEST_P(PolicyContract, AllHostsDownGivesEmptyPlans) {
  Harness h(cluster(), nts({{"dc1", 3}, {"dc2", 2}}), GetParam().spec, 5);
  for (HostId x = 0; x < h.view().size(); ++x) h.down(x);
  if (GetParam().down_last) {
    // The Rust driver still tries down hosts (enabled but down, last): each at most once.
    const auto plan = h.plan(h.routed(12345, ConsistencyLevel::One));
    EXPECT_FALSE(plan.empty());
    EXPECT_EQ(std::set<HostId>(plan.begin(), plan.end()).size(), plan.size());
    return;
  }
  EXPECT_TRUE(h.plan(h.routed(12345, ConsistencyLevel::One)).empty());
  EXPECT_TRUE(h.plan(h.unrouted(ConsistencyLevel::One)).empty());
  EXPECT_TRUE(h.plan(h.routed(-7, ConsistencyLevel::LocalOne)).empty());
}

TEST_P(PolicyContract, AnEmptyClusterGivesAnEmptyPlan) {
  const Topology empty;
  ClusterView view(empty);
  auto p = make_policy(nlohmann::json::parse(GetParam().spec), "", BuildContext{});
  Rng rng(1);
  p->init(view, rng);
  PlanArena arena;
  PlanRandom rnd(rng);
  Request req;
  EXPECT_EQ(p->new_plan(req, rnd, arena)->next(), kNoHost);
}

// The driver's token map over the members only (the engine's member_ring): placement computed on
// the members, renumbered to the whole topology's ids.
TokenRing member_ring(const Topology& full, const std::vector<std::uint8_t>& member, const Replication& repl) {
  std::vector<NodeSpec> nodes;
  std::vector<NodeId> to_full;
  for (NodeId n = 0; n < full.size(); ++n)
    if (member[n]) {
      nodes.push_back(full.nodes[n]);
      to_full.push_back(n);
    }
  return TokenRing(Topology::build(std::move(nodes)), repl).renumbered(full, to_full);
}

// Issue 44.1: the view `lbsim plan` and the engine give a policy while nodes join and leave
// (`changes`): n5 (dc1) and n8 (dc2) are in the topology from the start but have not joined, so
// they are unknown and down; n5 then joins; n2 is then removed (down, then unknown). No plan
// holds a host the driver does not know, whatever the other hosts' state (with every known host
// down, the Rust driver's "every node, up or down" steps are all that is left).
TEST_P(PolicyContract, NoPlanHoldsAHostBeforeItJoinsOrAfterItIsRemoved) {
  const Topology topo = cluster();
  const Replication repl = nts({{"dc1", 3}, {"dc2", 2}});
  ClusterView view(topo);
  std::vector<std::uint8_t> member(topo.size(), 1);
  for (HostId x : {HostId{4}, HostId{7}}) {
    member[x] = 0;
    view.set_known(x, false);
    view.set_up(x, false);
  }
  TokenRing ring = member_ring(topo, member, repl);
  auto p = make_policy(nlohmann::json::parse(GetParam().spec), "", BuildContext{&topo, &repl});
  Rng init_rng = Rng(9).fork("policy-init");
  p->init(view, init_rng);
  Rng rng = Rng(9).fork("policy");
  PlanRandom rnd(rng);
  PlanArena arena;
  Rng tokens(21);
  std::vector<int> planned(topo.size(), 0);
  auto check = [&](const char* phase) {
    for (int i = 0; i < 300; ++i) {
      Request req;
      req.routed = i % 5 != 0;
      req.token = static_cast<Token>(tokens.next_u64());
      if (req.routed) req.replicas = ring.replicas(req.token, ReplicaOrder::Driver);
      req.cl = i % 2 ? ConsistencyLevel::LocalQuorum : ConsistencyLevel::One;
      req.lwt = i % 11 == 3;
      req.now = static_cast<SimTime>(i) * kMs;
      arena.reset();
      Plan* pl = p->new_plan(req, rnd, arena);
      for (HostId x = pl->next(); x != kNoHost; x = pl->next()) {
        ASSERT_LT(x, topo.size());
        EXPECT_TRUE(view.is_known(x)) << phase << ": plan " << i << " holds " << topo.nodes[x].id;
        ++planned[x];
      }
    }
  };
  auto set_known_up = [&](bool up) {  // every known host up or down, as the driver learns it
    for (HostId x = 0; x < topo.size(); ++x)
      if (view.is_known(x) && view.is_up(x) != up) {
        view.set_up(x, up);
        if (up) p->on_up(x);
        else p->on_down(x);
      }
  };
  check("before the join");
  set_known_up(false);
  check("before the join, every known host down");
  set_known_up(true);
  // n5 joins: known, then up, then in the token map.
  member[4] = 1;
  ring = member_ring(topo, member, repl);
  view.set_known(4, true);
  view.set_up(4, true);
  p->on_up(4);
  check("after the join");
  // n2 is removed: down, then gone from the metadata and the token map.
  view.set_up(1, false);
  p->on_down(1);
  view.set_known(1, false);
  member[1] = 0;
  ring = member_ring(topo, member, repl);
  check("after the removal");
  set_known_up(false);
  check("after the removal, every known host down");
  EXPECT_EQ(planned[7], 0);
  // The test is not vacuous: the plans go somewhere (the allow list excludes n5 and n2).
  EXPECT_GT(planned[0] + planned[2], 0);
}

// Issue 44.1: a driver that does not know some nodes yet (they have not joined) plans exactly as
// a driver of the cluster without them: their place in the topology neither enters a list nor
// counts in a random start or rotation. n8 (dc2) and n9 (dc1) are the joiners, last in the
// topology, so the other nodes have the same ids in both.
TEST_P(PolicyContract, UnjoinedNodesChangeNoPlanAndNoDraw) {
  std::vector<NodeSpec> nodes = cluster().nodes;
  nodes[8].dc = "dc1";
  const Topology full = Topology::build(nodes);
  const Topology joined = Topology::build(std::vector<NodeSpec>(nodes.begin(), nodes.begin() + 7));
  const Replication repl = nts({{"dc1", 3}, {"dc2", 2}});
  std::vector<std::uint8_t> member(full.size(), 1);
  member[7] = member[8] = 0;
  const TokenRing ring_a = member_ring(full, member, repl);
  const TokenRing ring_b(joined, repl);
  ClusterView view_a(full), view_b(joined);
  for (HostId x : {HostId{7}, HostId{8}}) {
    view_a.set_known(x, false);
    view_a.set_up(x, false);
  }
  auto make = [&](const Topology&) {
    return make_policy(nlohmann::json::parse(GetParam().spec), "", BuildContext{nullptr, &repl});
  };
  auto pa = make(full), pb = make(joined);
  Rng ia = Rng(4).fork("policy-init"), ib = Rng(4).fork("policy-init");
  pa->init(view_a, ia);
  pb->init(view_b, ib);
  Rng ra = Rng(4).fork("policy"), rb = Rng(4).fork("policy");
  PlanRandom rnd_a(ra), rnd_b(rb);
  PlanArena arena_a, arena_b;
  Rng tokens(8);
  for (int i = 0; i < 300; ++i) {
    const bool routed = i % 5 != 0;
    const auto token = static_cast<Token>(tokens.next_u64());
    auto request = [&](const TokenRing& ring) {
      Request req;
      req.routed = routed;
      req.token = token;
      if (routed) req.replicas = ring.replicas(token, ReplicaOrder::Driver);
      req.cl = i % 2 ? ConsistencyLevel::LocalQuorum : ConsistencyLevel::One;
      req.now = static_cast<SimTime>(i) * kMs;
      return req;
    };
    auto walk = [](Policy& p, const Request& req, PlanRandom& rnd, PlanArena& arena) {
      arena.reset();
      std::vector<HostId> out;
      Plan* pl = p.new_plan(req, rnd, arena);
      for (HostId x = pl->next(); x != kNoHost; x = pl->next()) out.push_back(x);
      return out;
    };
    const auto a = walk(*pa, request(ring_a), rnd_a, arena_a);
    const auto b = walk(*pb, request(ring_b), rnd_b, arena_b);
    ASSERT_EQ(a, b) << "plan " << i;
    ASSERT_EQ(rnd_a.shared_draws + rnd_a.thread_local_draws, rnd_b.shared_draws + rnd_b.thread_local_draws) << "plan " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryRegisteredPolicy, PolicyContract,
                         ::testing::ValuesIn([] {
                           std::vector<ContractCase> v;
                           for (const auto& [type, c] : cases()) v.push_back(c);
                           return v;
                         }()),
                         [](const ::testing::TestParamInfo<ContractCase>& i) { return i.param.name; });

TEST(PolicyContractCoverage, EveryRegisteredPolicyHasAContractCase) {
  std::set<std::string> covered;
  for (const auto& [type, c] : cases()) covered.insert(type);
  const auto names = Registry::instance().names();
  EXPECT_GE(names.size(), 8u);
  for (const auto& n : names) EXPECT_TRUE(covered.count(n)) << n << " has no contract case";
}

}  // namespace
}  // namespace lbsim::policy
