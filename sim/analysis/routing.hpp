// Routing probabilities of the non-adaptive policies: for each vnode range, the probability that
// each node is the first host of the plan (the coordinator), as a sparse ranges x nodes matrix.
//
// Closed forms, derived from what the drivers' policy classes do rather than by running the policy
// code (Java 3.x: scylladb/java-driver, branch scylla-3.x, driver-core/src/main/java/com/datastax/
// driver/core/policies/TokenAwarePolicy.java, DCAwareRoundRobinPolicy.java, RoundRobinPolicy.java,
// RackAwareRoundRobinPolicy.java; Java 4.x: apache/cassandra-java-driver, core/src/main/java/com/
// datastax/oss/driver/internal/core/loadbalancing/BasicLoadBalancingPolicy.java):
// - TokenAware TOPOLOGICAL: the first up LOCAL replica in driver order.
// - TokenAware RANDOM, Basic4x: uniform over the up LOCAL replicas.
// - TokenAware NEUTRAL: the child plan is a rotation of its host list(s) from a uniformly
//   distributed start, so the first up LOCAL replica met is replica k with probability
//   gap_k / m, where gap_k counts the list positions from the previous such replica (exclusive) to
//   k (inclusive), cyclically, in the first list that holds any of them (m = list length).
// - No up LOCAL replica, no routing key, or no TokenAware: the first host of the child plan,
//   uniform over its first non-empty list.
// Children: RoundRobin (all live hosts, one list), DCAwareRoundRobin (live local-DC hosts, then
// used_hosts_per_remote_dc per remote DC unless the CL is DC-local), RackAwareRoundRobin (local
// rack, then the other local racks, then remote DCs). Host lists are in topology order minus the
// down nodes, as the policies build them at init. Adaptive policies (LatencyAware, Default4x) are
// "not modelled".
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <Eigen/SparseCore>

#include "sim/cluster/ring.hpp"
#include "sim/core/json_reader.hpp"

namespace lbsim {

struct RoutingSpec {
  enum class Ordering { Topological, Random, Neutral };
  enum class Child { RoundRobin, DcAware, RackAware };
  bool token_aware = false;
  Ordering ordering = Ordering::Random;
  Child child = Child::DcAware;
  std::uint32_t local_dc = 0;
  std::string local_rack;           // RackAware: a rack name, compared by name within the local DC
  bool remote_racks_local = true;   // RackAware distance() before scylladb/java-driver PR #588
  int used_hosts_per_remote_dc = 0;
  bool allow_remote_dcs_for_local_cl = false;
};

// Reads a (validated) policy spec. Returns nullopt and sets `why` for a policy the model does not
// cover (adaptive ones).
std::optional<RoutingSpec> routing_spec(const jsonin::Json& spec, const Topology& topo, std::string& why);

using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;

struct Routing {
  // ranges x nodes: P(coordinator = node | range, request has a routing key). A range whose plan
  // starts with the child's first list (no up local replica, or no TokenAware) has an empty row
  // and `fallback[r]` set: its distribution is `unrouted`, stored once rather than per range
  // (a dense row per range was O(ranges x nodes) in time and memory).
  SparseRows routed;
  std::vector<std::uint8_t> fallback;
  Eigen::VectorXd unrouted;  // P(coordinator = node | no routing key)
  double no_host = 0;    // fraction of routed ranges with an empty plan (NoHostAvailable), unweighted
};

// `down[n]` marks nodes the driver knows are down; `dc_local_cl` whether the CL is DC-local.
Routing coordinator_routing(const TokenRing& ring, const RoutingSpec& spec, const std::vector<bool>& down,
                            bool dc_local_cl);

}  // namespace lbsim
