// Shared fixtures for the policy tests: clusters with the J3 Scassandra token layout, a harness
// that owns a ring, a driver view and a policy, and test-only child policies.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policies/policy.hpp"
#include "policies/registry.hpp"
#include "sim/cluster/ring.hpp"
#include "sim/core/error.hpp"

namespace lbsim::policy::testing {

// The message of the ConfigError that building `spec` at JSON path `path` raises, or "no error".
inline std::string spec_error(const std::string& spec, const Topology* topo = nullptr, const std::string& path = "/p") {
  try {
    make_policy(nlohmann::json::parse(spec), path, BuildContext{topo, nullptr});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

inline Replication simple(int rf) { return {StrategyKind::Simple, rf, {}, {}}; }
inline Replication nts(std::vector<std::pair<std::string, int>> rf) {
  return {StrategyKind::NetworkTopology, 1, std::move(rf), {}};
}

// J3 ScassandraCluster.getTokensForDC: node i (1-based) of DC d (1-based) with n nodes gets
// (i-1) * floor((2^63-1)/n) + (d-1)*100.
inline Token scassandra_token(int i, int d, int n) {
  return static_cast<Token>(i - 1) * (kMaxToken / n) + static_cast<Token>(d - 1) * 100;
}

// Nodes "<dc>:<i>" ("1:1", "2:3", ...) with the Scassandra layout; `racks` (optional) per DC.
inline Topology scassandra(const std::vector<int>& per_dc, const std::vector<std::vector<std::string>>& racks = {}) {
  std::vector<NodeSpec> nodes;
  for (std::size_t d = 0; d < per_dc.size(); ++d)
    for (int i = 1; i <= per_dc[d]; ++i) {
      const std::string rack = d < racks.size() ? racks[d][static_cast<std::size_t>(i - 1)] : "r1";
      nodes.push_back({std::to_string(d + 1) + ":" + std::to_string(i), "dc" + std::to_string(d + 1), rack,
                       {scassandra_token(i, static_cast<int>(d) + 1, per_dc[d])}});
    }
  return Topology::build(nodes);
}

inline std::vector<std::uint8_t> text_key(const std::string& s) { return {s.begin(), s.end()}; }

// A test-only child: the plan is a fixed host list, every host LOCAL (J3 TokenAwarePolicyTest's
// mocked child policy).
class FixedChild final : public Policy {
 public:
  explicit FixedChild(std::vector<HostId> plan) : plan_(std::move(plan)) {}
  void init(const ClusterView&, Rng&) override {}
  Distance distance(HostId) const override { return Distance::Local; }
  Plan* new_plan(const Request&, PlanRandom&, PlanArena& arena) override;
  int plans_made = 0;

 private:
  std::vector<HostId> plan_;
};

// J3 test SortingLoadBalancingPolicy: the live hosts sorted by address (here: host index),
// removed on down, added back on up; every host LOCAL.
class SortingChild final : public Policy {
 public:
  void init(const ClusterView& view, Rng&) override;
  Distance distance(HostId) const override { return Distance::Local; }
  Plan* new_plan(const Request&, PlanRandom&, PlanArena& arena) override;
  void on_up(HostId h) override;
  void on_down(HostId h) override;

 private:
  std::vector<HostId> hosts_;
};

// Owns everything a policy needs. Hosts are all up at init; down()/up() then change the view
// and tell the policy, as the simulator does.
class Harness {
 public:
  Harness(Topology topo, Replication repl, std::unique_ptr<Policy> p, std::uint64_t seed = 1);
  Harness(Topology topo, Replication repl, const std::string& spec_json, std::uint64_t seed = 1);
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  const TokenRing& ring() const { return *ring_; }
  ClusterView& view() { return *view_; }
  Policy& policy() { return *policy_; }
  HostId id(const std::string& name) const;
  std::string name(HostId h) const { return ring_->topology().nodes[h].id; }

  Request routed(Token t, ConsistencyLevel cl = ConsistencyLevel::LocalOne, SimTime now = 0) const;
  Request unrouted(ConsistencyLevel cl = ConsistencyLevel::LocalOne) const;
  // A request with an explicit replica list (mocked metadata, as the driver unit tests do).
  Request with_replicas(const std::vector<HostId>& replicas, SimTime now = 0);

  std::vector<HostId> plan(const Request& req);
  std::vector<std::string> plan_names(const Request& req);
  HostId first(const Request& req);
  void down(HostId h);
  void up(HostId h);

  PlanArena arena;
  Rng rng;
  PlanRandom rnd{rng};

 private:
  std::unique_ptr<TokenRing> ring_;
  std::unique_ptr<ClusterView> view_;
  std::unique_ptr<Policy> policy_;
  std::vector<std::vector<HostId>> replica_lists_;
};

std::vector<std::string> names(const Harness& h, const std::vector<HostId>& ids);

// The message of the ConfigError that building `spec` at "/p" with a topology and a keyspace's
// replication raises, or "no error" (the replica_source checks need both).
std::string error_of(const std::string& spec, const Topology* topo = nullptr, const Replication* repl = nullptr);

// How often each host (by name) comes first in `plans` plans of `req`.
std::map<std::string, int> first_counts(Harness& h, const Request& req, int plans);

}  // namespace lbsim::policy::testing
