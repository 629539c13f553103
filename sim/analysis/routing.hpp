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
// down nodes, as the policies build them at init. The Go, Python, Rust and Node.js policies are
// described by a DriverRouting (sim/analysis/driver_routing.cpp says how each maps). Adaptive
// policies (LatencyAware, RandomTwoChoice, Default4x, NodeDefault, GoTokenAware with
// avoid_slow_replicas, RustDefault with latency awareness) are "not modelled", with the feedback
// each one's choice depends on.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/SparseCore>

#include "sim/cluster/ring.hpp"
#include "sim/core/json_reader.hpp"

namespace lbsim {

// The first host of a driver's plan, for the policies of drivers other than Java 3.x / 4.x: the
// replicas by tiers, then the child plan's lists (driver_routing.cpp builds them per policy).
struct DriverRouting {
  // A list of the child's plan: `hosts` in the plan's order. Down hosts are removed from the list
  // (`keeps_down` false: the drivers' live-host lists) or stay and are skipped when reached. The
  // plan starts at a uniformly distributed position (`rotated`: a per-plan counter or a random
  // start) or at the head; its first host is the first one met that is up, in `mask` (empty: all)
  // and passes the policy's filter (`eligible`).
  struct List {
    std::vector<NodeId> hosts;
    bool rotated = true;
    bool keeps_down = false;
    std::vector<std::uint8_t> mask;
  };
  // A tier of replicas (in the driver's replica order): the members of the range's replica list.
  // `gated`: considered only when the previous tier has a member in the range, up or not (gocql
  // stops at the first empty tier).
  struct Tier {
    std::vector<std::uint8_t> member;
    bool gated = false;
  };
  // How a tier's first host is chosen: the first up member in replica order, uniformly among the
  // up members (a shuffle or a uniform index), or a rotation of the members from a uniform start
  // (down members stay in it and are skipped: gap / k shares, Node.js TokenAware).
  enum class Pick { First, Uniform, Rotation };
  std::vector<Tier> tiers;
  Pick pick = Pick::Uniform;
  std::vector<List> child;             // the child plan: routed fallback and unrouted requests
  std::vector<std::uint8_t> eligible;  // hosts a filter lets through (NodeAllowList); empty: all
  // The replicas regrouped by DC, DCs ranked by `dc_rank` (the Python driver's token map); empty:
  // the ring's driver order.
  std::vector<std::uint32_t> dc_rank;
};

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
  // Set for the Go, Python, Rust and Node.js policies: built for a down set; the fields above are
  // then unused.
  std::function<DriverRouting(const std::vector<bool>& down)> driver;
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

// The policies of drivers other than Java 3.x / 4.x (driver_routing.cpp). is_driver_policy: the
// type is one of them; driver_routing_spec: nullopt with `why` when the policy is not modelled.
bool is_driver_policy(const std::string& type);
std::optional<RoutingSpec> driver_routing_spec(const jsonin::Json& spec, const Topology& topo, std::string& why);
Routing driver_coordinator_routing(const TokenRing& ring, const DriverRouting& d, const std::vector<bool>& down);

}  // namespace lbsim
