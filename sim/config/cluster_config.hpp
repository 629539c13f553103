// The topology part of a scenario's "cluster" object, and its "keyspace".
//
// "cluster" names its nodes in exactly one of three ways:
//   "datacenters": [{"name": "dc1", "racks": 3, "nodes": 6}, ...]   nodes n1.. spread round-robin
//                                                                    over racks r1..rK of each DC
//   "nodes": [{"id", "dc", "rack", "tokens"?}]                       explicit nodes
//   "topology_file": "path.json"                                     a topology file (relative to
//                                                                    the scenario's folder)
// with "num_tokens" (default 256) and "token_allocation": "random" (default; seeded stream
// "tokens", never Long.MIN_VALUE) | "even" (evenly spaced, interleaved over nodes) for nodes that
// have no explicit tokens, and optional "sharding": {"nr_shards", "msb_ignore"}.
// The caller's own keys of the same object (node model parameters) are passed as `extra_keys`.
//
// The keyspace is `keyspace` (the scenario's), or the topology file's when the scenario has none.
// When both are given and place replicas differently, the scenario's wins and a warning naming both
// (the scenario's JSON path, the topology file as the scenario names it and its /keyspace) goes to
// `warnings` (stderr and every report's warnings[]).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/shard.hpp"
#include "sim/cluster/tablets.hpp"
#include "sim/cluster/topology.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/core/rng.hpp"

namespace lbsim {

struct ClusterTopologySpec {
  Topology topology;
  Replication replication;
  std::optional<Sharding> sharding;
  std::vector<std::string> warnings;
  std::size_t initial_nodes = 0;  // nodes before the `joining` ones (members at t = 0)
};

// Keys of "cluster" handled here.
const std::vector<std::string>& cluster_topology_keys();

ClusterTopologySpec parse_cluster_topology(const jsonin::Json& cluster, const std::string& cluster_path,
                                           const jsonin::Json& keyspace, const std::string& keyspace_path,
                                           const std::string& scenario_dir, const Rng& root,
                                           const std::vector<std::string>& extra_keys,
                                           std::vector<NodeSpec> joining = {},
                                           const std::vector<std::string>& joining_paths = {});

// The tablet map of a new table in a tablet keyspace (sim/cluster/tablets.hpp): the count from
// the shards of the first `initial_nodes` nodes per DC and the keyspace's options, placed on those
// nodes with ties broken by root.fork("tablets"). ConfigError (at /keyspace/rf/<dc>) when a DC's
// RF exceeds its nodes: ScyllaDB never puts two replicas of a tablet on one node. `rules` is the
// release's count rule; with size-driven resizing the count is the one a loaded table of
// `table_mb` (changes.migration.table_size_mb, MiB) has reached (tablet_count_loaded).
TabletMap initial_tablet_map(const Topology& topo, const Replication& repl, std::uint32_t shards_per_node,
                             std::size_t initial_nodes, const Rng& root, const TabletRules& rules = {},
                             double table_mb = 0);

// Token allocation helpers (also used by tests and benchmarks).
std::vector<std::vector<Token>> random_tokens(std::size_t nodes, std::size_t num_tokens, Rng rng);
std::vector<std::vector<Token>> even_tokens(std::size_t nodes, std::size_t num_tokens);

}  // namespace lbsim
