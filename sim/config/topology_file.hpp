// Topology files: lbsim's JSON description of a ring (also the input of the Python-driver oracle
// tests/python_driver/ring_answers.py).
//
//   {"nodes": [{"id", "dc", "rack", "tokens": [...]}],
//    "keyspace": {"class": "SimpleStrategy", "rf": 3} | {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}},
//    "keys": [hex | [hex, ...]], "tokens": [...], "sharding": {"nr_shards", "msb_ignore"}}
//
// "keys", "tokens" and "sharding" are optional; "generator" and "description" are free-form notes. The class may be the full Java name
// (org.apache.cassandra.locator.NetworkTopologyStrategy). Errors are ConfigErrors with the path.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/routing_key.hpp"
#include "sim/cluster/shard.hpp"
#include "sim/cluster/topology.hpp"
#include "sim/core/json_reader.hpp"

namespace lbsim {

struct KeyQuery {
  std::string text;                 // as given: hex, or hex components joined by ","
  std::vector<Bytes> components;    // one entry for a single-component key
  Bytes routing_key;                // the bytes hashed
  bool composite = false;
};

struct TopologyFile {
  Topology topology;
  Replication replication;
  std::vector<KeyQuery> keys;
  std::vector<Token> tokens;
  std::optional<Sharding> sharding;
  std::vector<std::string> warnings;
};

TopologyFile parse_topology_file(const jsonin::Json& doc, const std::string& file);
TopologyFile load_topology_file(const std::string& file);

// Pieces shared with the scenario parser.
std::vector<NodeSpec> parse_node_list(const jsonin::Json& nodes, const std::string& path, bool tokens_required);
// `keyspace` object: {"class", "rf"}; checks RF > 0, warns (into `warnings`) about DCs without nodes.
Replication parse_keyspace(const jsonin::Json& keyspace, const std::string& path, const Topology& topo,
                           std::vector<std::string>& warnings);
// A keyspace's "tablets" value: true, false or an options object; nullopt when disabled.
std::optional<TabletOptions> parse_tablet_options(const jsonin::Json& j, const std::string& path);
Sharding parse_sharding(const jsonin::Json& sharding, const std::string& path);
KeyQuery parse_key(const jsonin::Json& key, const std::string& path);

}  // namespace lbsim
