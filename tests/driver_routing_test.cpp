// The analytic routing of the Go, Python, Rust and Node.js policies (sim/analysis/driver_routing.cpp)
// against the policy code itself: per range, the first hosts of K plans made by the registered
// policy, with some nodes down, have the model's frequencies. K = 5040 (a multiple of every list
// length here, so a per-plan counter's rotation is exact); a random choice (shuffle, random start)
// must fall within 4.5 binomial standard deviations, sqrt(p (1 - p) / K) <= 0.0071.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "policies/registry.hpp"
#include "sim/analysis/load_model.hpp"
#include "sim/config/cluster_config.hpp"
#include "two_dcs_topology.hpp"

namespace lbsim {
namespace {

using policy::ClusterView;
using policy::PlanArena;
using policy::PlanRandom;

using testing::two_dcs_topology;

struct Case {
  std::string spec;
  std::vector<NodeId> down;
};

// The model's P(first host = h | range r) (routed) or the child's (unrouted, r = npos).
double model_p(const Routing& m, std::size_t r, NodeId h) {
  if (r == static_cast<std::size_t>(-1) || m.fallback[r]) return m.unrouted[h];
  return m.routed.coeff(static_cast<Eigen::Index>(r), h);
}

void check_against_policy_code(const TokenRing& ring, const Case& c, double& worst_sd) {
  const auto& topo = ring.topology();
  SCOPED_TRACE(c.spec + fmt::format(" down={}", c.down.size()));
  const auto spec = nlohmann::json::parse(c.spec);
  std::vector<bool> down(topo.size(), false);
  ClusterView view(topo);
  for (NodeId d : c.down) {
    down[d] = true;
    view.set_up(d, false);
  }
  std::string why;
  const auto rs = routing_spec(spec, topo, why);
  ASSERT_TRUE(rs) << why;
  const Routing model = coordinator_routing(ring, *rs, down, /*dc_local_cl=*/true);
  auto pol = policy::make_policy(spec, "/policy", {&topo});
  Rng rng(5);
  pol->init(view, rng);
  PlanArena arena;
  constexpr std::size_t kPlans = 5040;
  for (std::size_t r = 0; r <= ring.size(); ++r) {
    const bool unrouted = r == ring.size();
    const std::size_t row = unrouted ? static_cast<std::size_t>(-1) : r;
    policy::Request req;
    req.routed = !unrouted;
    if (!unrouted) {
      req.token = ring.token_at(r);
      req.replicas = ring.replicas_at(r, ReplicaOrder::Driver);
    }
    req.cl = ConsistencyLevel::LocalOne;
    std::vector<double> freq(topo.size(), 0.0);
    for (std::size_t k = 0; k < kPlans; ++k) {
      arena.reset();
      PlanRandom rnd(rng);
      const auto h = pol->new_plan(req, rnd, arena)->next();
      ASSERT_NE(h, policy::kNoHost) << "range " << r;
      freq[h] += 1.0 / static_cast<double>(kPlans);
    }
    for (NodeId h = 0; h < topo.size(); ++h) {
      const double p = model_p(model, row, h);
      const double sd = std::sqrt(p * (1 - p) / static_cast<double>(kPlans));
      ASSERT_LE(std::fabs(freq[h] - p), 4.5 * sd + 1e-9)
          << (unrouted ? std::string("unrouted") : fmt::format("range {}", r)) << " node " << topo.nodes[h].id
          << ": model " << p << ", policy code " << freq[h];
      if (sd > 0) worst_sd = std::max(worst_sd, std::fabs(freq[h] - p) / sd);
    }
  }
}

TEST(DriverRouting, FirstHostsMatchThePolicyCode) {
  const TokenRing ring(two_dcs_topology(), {StrategyKind::NetworkTopology, 1, {{"dc1", 3}, {"dc2", 2}}, {}});
  const std::string go_rr = R"({"type":"GoRoundRobin"})";
  const std::string go_dc = R"({"type":"GoDCAwareRoundRobin","local_dc":"dc1"})";
  const std::string go_rack = R"({"type":"GoRackAwareRoundRobin","local_dc":"dc1","local_rack":"r1"})";
  const std::string py_dc = R"({"type":"PythonDCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":1})";
  const std::string py_rack =
      R"({"type":"PythonRackAwareRoundRobin","local_dc":"dc1","local_rack":"r1","used_hosts_per_remote_dc":2})";
  const std::string node_dc = R"({"type":"NodeDCAwareRoundRobin","local_dc":"dc1"})";
  auto go = [](const std::string& extra, const std::string& child) {
    return R"({"type":"GoTokenAware")" + extra + R"(,"child":)" + child + "}";
  };
  auto py = [](const std::string& extra, const std::string& child) {
    return R"({"type":"PythonTokenAware")" + extra + R"(,"child":)" + child + "}";
  };
  const std::vector<Case> cases{
      // gocql: shuffled (scylladb default) and in replica order (upstream default).
      {go("", go_rr), {}},
      {go(R"(,"version":"upstream")", go_rr), {2}},
      {go("", go_dc), {1}},
      {go(R"(,"version":"upstream")", go_dc), {}},
      {go(R"(,"shuffle_replicas":false,"non_local_replicas_fallback":true)", go_rack), {1}},
      {go(R"(,"non_local_replicas_fallback":true)", go_rack), {4}},
      {go(R"(,"version":"upstream")", go_rack), {1, 4}},  // the local rack down: the child's next layer
      {go_dc, {0}},
      // Python: rule B (3.29.5 unshuffled, 3.29.6 shuffled), rule A (datastax, 3.28.0).
      {py("", py_dc), {}},
      {py(R"(,"version":"scylla-3.29.5")", py_dc), {2}},
      {py(R"(,"version":"scylla-3.29.5")", py_rack), {1}},
      {py("", py_rack), {1, 4}},
      {py(R"(,"version":"datastax")", py_dc), {0, 3}},
      {py(R"(,"version":"scylla-3.28.0")", py_rack), {}},
      {py(R"(,"version":"scylla-3.29.5")", py_dc), {0, 1, 2, 3, 4, 5}},  // no local host: the remote heads
      {py_rack, {1}},
      // Rust DefaultPolicy.
      {R"({"type":"RustDefault"})", {3}},
      {R"({"type":"RustDefault","preferred_dc":"dc2"})", {}},
      {R"({"type":"RustDefault","preferred_dc":"dc1","preferred_rack":"r1"})", {4}},
      {R"({"type":"RustDefault","preferred_dc":"dc1","preferred_rack":"r1"})", {1, 4}},
      {R"({"type":"RustDefault","preferred_dc":"dc2","permit_dc_failover":true})", {6, 7, 8, 9}},
      {R"({"type":"RustDefault","token_aware":false,"preferred_dc":"dc1"})", {2}},
      // Node.js: a random start over the local replicas, down ones in the rotation.
      {R"({"type":"NodeTokenAware","child":)" + node_dc + "}", {}},
      {R"({"type":"NodeTokenAware","child":)" + node_dc + "}", {1, 2}},
      {R"({"type":"NodeAllowList","hosts":["a0","a1","a3","b0"],"child":{"type":"NodeTokenAware","child":)" + node_dc +
           "}}",
       {3}},
      {R"({"type":"NodeTokenAware","child":{"type":"NodeAllowList","hosts":["a0","a2","a4","a5"],"child":)" +
           node_dc + "}}",
       {}},
      {node_dc, {4}},
  };
  double worst = 0;
  for (const auto& c : cases) check_against_policy_code(ring, c, worst);
  std::printf("driver routing vs policy code: %zu cases, worst |freq - p| = %.2f sd\n", cases.size(), worst);
}

TEST(DriverRouting, AdaptiveOrSeedDependentPoliciesSayWhy) {
  const Topology topo = two_dcs_topology();
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"({"type":"GoTokenAware","avoid_slow_replicas":true,"child":{"type":"GoRoundRobin"}})",
       "adaptive: avoid_slow_replicas puts the replicas with max_in_flight_threshold or more requests in flight last"},
      {R"({"type":"GoTokenAware","replica_source":"gocql","child":{"type":"GoRoundRobin"}})",
       "replica_source \"gocql\": the driver's own replica map"},
      {R"({"type":"PythonTokenAware","replica_source":"python-3.25","child":{"type":"PythonDCAwareRoundRobin"}})",
       "replica_source \"python-3.25\""},
      {R"({"type":"PythonDCAwareRoundRobin","contact_points":["a0","b0"]})",
       "contact_points: the driver's host lists start with a control host drawn at random"},
      {R"({"type":"RustDefault","latency_awareness":true})", "adaptive: latency awareness skips the replicas"},
      {R"({"type":"RustDefault","enable_shuffling_replicas":false})",
       "enable_shuffling_replicas false: the replica picked is fixed per replica-set size by a generator seeded once"},
      {R"({"type":"NodeDefault","local_dc":"dc1"})",
       "adaptive: NodeDefault puts the first two replicas in order of their requests in flight"},
      {R"({"type":"NodeAllowList","hosts":["a0"],"child":{"type":"NodeDefault","local_dc":"dc1"}})",
       "adaptive: NodeDefault puts the first two replicas in order"},
      {R"({"type":"Default4x","local_dc":"dc1"})",
       "adaptive: Default4x puts the first two replicas in order of their requests in flight"},
      {R"({"type":"LatencyAware","child":{"type":"RoundRobin"}})", "adaptive: LatencyAware defers the hosts"},
      {R"({"type":"TokenAware","child":{"type":"LatencyAware","child":{"type":"RoundRobin"}}})",
       "child policy adaptive: LatencyAware defers"},
      {R"({"type":"RandomTwoChoice","child":{"type":"TokenAware","child":{"type":"RoundRobin"}}})",
       "adaptive: RandomTwoChoice puts first the one of the child plan's first two hosts with fewer requests in flight"},
  };
  for (const auto& [spec, reason] : cases) {
    std::string why;
    EXPECT_FALSE(routing_spec(nlohmann::json::parse(spec), topo, why)) << spec;
    EXPECT_NE(why.find(reason), std::string::npos) << spec << "\n  got: " << why;
  }
}

}  // namespace
}  // namespace lbsim
