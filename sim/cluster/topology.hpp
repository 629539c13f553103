// Cluster topology: nodes in datacenters and racks, each owning vnode tokens, and the keyspace's
// replication settings. Plain data, validated by Topology::build.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster/murmur3.hpp"

namespace lbsim {

using NodeId = std::uint32_t;  // index into Topology::nodes
inline constexpr NodeId kNoNode = 0xffffffffu;

struct NodeSpec {
  std::string id;
  std::string dc;
  std::string rack;
  std::vector<Token> tokens;
};

struct Topology {
  std::vector<NodeSpec> nodes;
  std::vector<std::string> dcs;             // DC index -> name, in order of first appearance
  std::vector<std::string> racks;           // rack index -> rack name (a rack is a (dc, rack) pair)
  std::vector<std::uint32_t> rack_dc;       // rack index -> DC index
  std::vector<std::uint32_t> node_dc;       // node -> DC index
  std::vector<std::uint32_t> node_rack;     // node -> rack index
  std::vector<std::uint32_t> dc_node_count; // DC index -> nodes
  std::vector<std::uint32_t> dc_rack_count; // DC index -> racks

  // Validates and indexes `nodes`. Throws ConfigError naming `path` + "/<i>/..." for a duplicate
  // node id, an empty id/dc/rack, a node without tokens, or a token used twice in the ring.
  static Topology build(std::vector<NodeSpec> nodes, const std::string& path = "/nodes");

  std::optional<std::uint32_t> dc_index(std::string_view name) const;
  std::optional<NodeId> node_index(std::string_view id) const;
  std::size_t size() const { return nodes.size(); }
};

enum class StrategyKind { Simple, NetworkTopology };

// A keyspace's tablet options (ScyllaDB `tablets = {...}` and the table options that size the
// count; scylladb/scylladb service/tablet_allocator.cc compute_target_tablet_count and
// docs/cql/ddl.rst). Used by sim/cluster/tablets.hpp.
struct TabletOptions {
  std::optional<std::uint64_t> initial;                     // deprecated keyspace 'initial'
  std::optional<std::uint64_t> min_tablet_count;
  std::optional<double> min_per_shard_tablet_count;
  // tablets_initial_scale_factor; unset: the release's default (TabletRules::scale_factor: 10 since
  // 2025.2, 1 before)
  std::optional<double> initial_scale_factor;
  double tablets_per_shard_goal = 100;                      // tablets_per_shard_goal
};

struct Replication {
  StrategyKind kind = StrategyKind::Simple;
  int simple_rf = 1;
  // NetworkTopologyStrategy: DC name -> RF, in the order given. DCs absent from the topology are
  // kept (Cassandra accepts them) and get no replicas.
  std::vector<std::pair<std::string, int>> dc_rf;
  // Tablets (NetworkTopologyStrategy only): set when the keyspace uses tablets instead of vnodes.
  std::optional<TabletOptions> tablets;
  // The keyspace's CQL name (keyspace.name): what `lbsim serve` shows the drivers. Last, so that
  // the aggregate initialisers of the fields above stay as they are.
  std::string name = "lbsim";

  int rf_for_dc(std::string_view dc) const;  // 0 when not listed
  std::string describe() const;              // "NetworkTopologyStrategy {dc1: 3, dc2: 3}"
};

}  // namespace lbsim
