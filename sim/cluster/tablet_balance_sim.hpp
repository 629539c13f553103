// A perf-load-balancing-like run of the tablet balancer: several tables on a cluster whose nodes
// join and leave, without traffic (scylladb/scylladb test/perf/tablet_load_balancing.cc: tables
// allocated on the initial nodes, balanced, then each step's topology change followed by planning
// rounds until the plan is empty, every planned migration completing at the end of its round, and
// per table the node and shard overcommit after each step). `lbsim balance` runs it from a file
// (sim/config/balance_file.hpp); tests/tablet_balance_release_test.cpp reproduces ScyllaDB's
// published runs with it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster/tablet_balancer.hpp"

namespace lbsim {

struct BalanceSimTable {
  std::string name;
  std::uint64_t tablets = 1;      // a power of two
  std::vector<int> rf;            // per DC index of the topology
  std::uint64_t tablet_size = 0;  // bytes per tablet replica (the Size goal reads it)
};

struct BalanceSimStep {
  enum class Kind : std::uint8_t { Bootstrap, Decommission };
  Kind kind = Kind::Bootstrap;
  std::vector<NodeId> nodes;  // joining together, or drained together (then removed)
};

struct BalanceSimSpec {
  Topology topo;                       // every node that is ever a member
  std::vector<std::uint32_t> shards;   // per node
  std::vector<std::uint64_t> capacity; // per node, bytes; empty or all 0: proportional to shards
  std::vector<bool> initial;           // per node: a member from the start
  std::vector<BalanceSimTable> tables;
  std::vector<BalanceSimStep> steps;
  BalancerOptions options;
  BalancerLimits limits;
  std::uint64_t seed = 1;
};

struct BalanceSimStepResult {
  std::string what;                  // "initial", "bootstrap n7", "decommission n1"
  std::size_t rounds = 0;            // planning rounds until the plan was empty
  std::size_t internode = 0, intranode = 0;  // migrations
  std::vector<BalanceStats> tables;  // per table, after the step
};

struct BalanceSimResult {
  std::vector<BalanceSimStepResult> steps;  // [0]: the initial balancing
  std::vector<BalanceStats> worst;          // per table, the maximum of each figure over the steps
  std::vector<TabletMap> maps;              // per table, at the end
  std::vector<BalancerNode> nodes;          // at the end
};

// Runs the spec. Throws std::runtime_error when a step does not converge within perf-load-
// balancing's sanity limit (1 + 10 x tablet replicas rounds), or a drain cannot empty a node.
// Deterministic: allocation draws from seed's "balance/allocate" stream forked per table, the
// balancer from "balance/plan".
BalanceSimResult run_balance_sim(const BalanceSimSpec& spec);

}  // namespace lbsim
