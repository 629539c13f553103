#include "sim/config/topology_file.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace lbsim {

using jsonin::Json;
using jsonin::Object;

std::vector<NodeSpec> parse_node_list(const Json& nodes, const std::string& path, bool tokens_required) {
  jsonin::as_array(nodes, path);
  std::vector<NodeSpec> out;
  out.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string np = jsonin::index_path(path, i);
    Object o(nodes[i], np, {"id", "dc", "rack", "tokens"});
    NodeSpec n;
    n.id = o.str("id");
    n.dc = o.str("dc");
    n.rack = o.str("rack");
    if (const Json* toks = o.find("tokens")) {
      jsonin::as_array(*toks, o.path_of("tokens"));
      for (std::size_t k = 0; k < toks->size(); ++k)
        n.tokens.push_back(jsonin::as_token((*toks)[k], jsonin::index_path(o.path_of("tokens"), k)));
    } else if (tokens_required) {
      jsonin::fail(o.path_of("tokens"), fmt::format("node '{}' has no tokens", n.id));
    }
    out.push_back(std::move(n));
  }
  return out;
}

Replication parse_keyspace(const Json& keyspace, const std::string& path, const Topology& topo,
                           std::vector<std::string>& warnings) {
  Object o(keyspace, path, {"name", "class", "rf", "tablets"});
  Replication r;
  if (o.find("name")) {
    // A CQL identifier as CREATE KEYSPACE takes it unquoted (letters, digits, '_'; at most 48).
    r.name = o.str("name");
    const bool ok = !r.name.empty() && r.name.size() <= 48 && std::isalpha(static_cast<unsigned char>(r.name[0])) &&
                    std::all_of(r.name.begin(), r.name.end(), [](char c) {
                      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
                    });
    if (!ok)
      jsonin::fail(o.path_of("name"), "must be a lower-case CQL identifier: a letter, then letters, digits or '_' "
                                      "(at most 48), got '" + r.name + "'");
  }
  const std::string cls = o.str("class");
  constexpr std::string_view kPrefix = "org.apache.cassandra.locator.";
  const std::string_view shortname =
      std::string_view(cls).starts_with(kPrefix) ? std::string_view(cls).substr(kPrefix.size()) : cls;
  if (shortname == "SimpleStrategy") {
    r.kind = StrategyKind::Simple;
    r.simple_rf = static_cast<int>(o.integer("rf", 1, 1000000));
  } else if (shortname == "NetworkTopologyStrategy") {
    r.kind = StrategyKind::NetworkTopology;
    const Json& rf = o.at("rf");
    if (!rf.is_object())
      jsonin::fail(o.path_of("rf"), fmt::format("must be an object {{\"dc\": rf, ...}}, got {}", jsonin::type_name(rf)));
    if (rf.empty()) jsonin::fail(o.path_of("rf"), "must name at least one datacenter");
    int total = 0;
    for (const auto& [dc, v] : rf.items()) {
      const int n = static_cast<int>(jsonin::as_int(v, jsonin::key_path(o.path_of("rf"), dc), 1, 1000000));
      r.dc_rf.emplace_back(dc, n);
      total += n;
      if (!topo.dc_index(dc))
        warnings.push_back(fmt::format("{}: datacenter '{}' has no nodes (Cassandra accepts this); it gets no "
                                       "replicas; known datacenters: {}",
                                       jsonin::key_path(o.path_of("rf"), dc), dc, jsonin::join(topo.dcs)));
    }
    (void)total;
    if (const Json* t = o.find("tablets")) r.tablets = parse_tablet_options(*t, o.path_of("tablets"));
  } else {
    jsonin::fail(o.path_of("class"), "unknown replication class '" + cls +
                                         "'; valid: SimpleStrategy, NetworkTopologyStrategy (optionally "
                                         "prefixed by org.apache.cassandra.locator.)");
  }
  if (r.kind == StrategyKind::Simple && o.has("tablets")) {
    const Json& t = o.at("tablets");
    if (!(t.is_boolean() && !t.get<bool>()) && !(t.is_object() && t.contains("enabled") && t["enabled"] == false))
      jsonin::fail(o.path_of("tablets"), "tablets need NetworkTopologyStrategy (ScyllaDB refuses SimpleStrategy "
                                         "with tablets); valid here: false");
  }
  return r;
}

// "tablets": true | false | {"enabled" [true], "initial", "min_tablet_count",
// "min_per_shard_tablet_count", "scale_factor" [the release's: 10, or 1 before scylla-2025.2],
// "per_shard_goal" [100]} (configs/README.md).
std::optional<TabletOptions> parse_tablet_options(const Json& j, const std::string& path) {
  if (j.is_boolean()) return j.get<bool>() ? std::optional<TabletOptions>(TabletOptions{}) : std::nullopt;
  if (!j.is_object())
    jsonin::fail(path, fmt::format("must be true, false or an object, got {}", jsonin::type_name(j)));
  Object o(j, path, {"enabled", "initial", "min_tablet_count", "min_per_shard_tablet_count", "scale_factor",
                     "per_shard_goal"});
  // With "enabled" false the options are still checked, then ignored: a sweep over
  // keyspace.tablets.enabled compares the same keyspace on vnodes and on tablets.
  const bool enabled = o.boolean("enabled", true);
  TabletOptions t;
  constexpr std::int64_t kMaxCount = std::int64_t{1} << 20;
  if (o.has("initial")) t.initial = static_cast<std::uint64_t>(o.integer("initial", 1, kMaxCount));
  if (o.has("min_tablet_count")) t.min_tablet_count = static_cast<std::uint64_t>(o.integer("min_tablet_count", 1, kMaxCount));
  if (o.has("min_per_shard_tablet_count"))
    t.min_per_shard_tablet_count = o.number("min_per_shard_tablet_count", 1e-3, 1e4);
  if (o.has("scale_factor")) t.initial_scale_factor = o.number("scale_factor", 1e-3, 1e4);
  t.tablets_per_shard_goal = o.number("per_shard_goal", 1, 1e5, t.tablets_per_shard_goal);
  if (!enabled) return std::nullopt;
  return t;
}

Sharding parse_sharding(const Json& sharding, const std::string& path) {
  Object o(sharding, path, {"nr_shards", "msb_ignore"});
  Sharding s;
  s.nr_shards = static_cast<std::uint32_t>(o.integer("nr_shards", 1, 65535));
  s.msb_ignore = static_cast<std::uint32_t>(o.integer("msb_ignore", 0, 63, 12));
  return s;
}

KeyQuery parse_key(const Json& key, const std::string& path) {
  KeyQuery q;
  auto hex = [](const Json& j, const std::string& p) {
    const std::string s = jsonin::as_string(j, p, /*allow_empty=*/true);  // empty composite components are valid
    auto bytes = parse_hex(s);
    if (!bytes) jsonin::fail(p, "malformed hex '" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) +
                                    "'; expected an even number of hex digits");
    return *bytes;
  };
  if (key.is_string()) {
    q.text = key.get<std::string>();
    q.components.push_back(hex(key, path));
  } else if (key.is_array()) {
    jsonin::as_array(key, path);
    q.composite = key.size() > 1;
    for (std::size_t i = 0; i < key.size(); ++i) {
      const std::string p = jsonin::index_path(path, i);
      q.components.push_back(hex(key[i], p));
      if (q.components.back().size() > kMaxComponentBytes)
        jsonin::fail(p, fmt::format("composite key component of {} bytes exceeds the limit of 65535",
                                    q.components.back().size()));
      q.text += (i ? "," : "") + key[i].get<std::string>();
    }
  } else {
    jsonin::fail(path, fmt::format("a key must be a hex string or an array of hex strings, got {}",
                                   jsonin::type_name(key)));
  }
  q.routing_key = pack_composite(q.components);
  if (q.routing_key.empty())
    jsonin::fail(path, "empty key: CQL rejects empty partition keys (\"Key may not be empty\")");
  return q;
}

TopologyFile parse_topology_file(const Json& doc, const std::string& file) {
  // "generator" (written by the oracle's gen_topology.py) and "description" are free-form notes.
  Object o(doc, "", {"nodes", "keyspace", "keys", "tokens", "sharding", "generator", "description"});
  TopologyFile tf;
  tf.topology = Topology::build(parse_node_list(o.at("nodes"), "/nodes", true), "/nodes");
  tf.replication = parse_keyspace(o.at("keyspace"), "/keyspace", tf.topology, tf.warnings);
  if (const Json* keys = o.find("keys")) {
    jsonin::as_array(*keys, "/keys", true);
    for (std::size_t i = 0; i < keys->size(); ++i) tf.keys.push_back(parse_key((*keys)[i], jsonin::index_path("/keys", i)));
  }
  if (const Json* toks = o.find("tokens")) {
    jsonin::as_array(*toks, "/tokens", true);
    for (std::size_t i = 0; i < toks->size(); ++i)
      tf.tokens.push_back(jsonin::as_token((*toks)[i], jsonin::index_path("/tokens", i)));
  }
  if (const Json* sh = o.find("sharding")) tf.sharding = parse_sharding(*sh, "/sharding");
  (void)file;
  return tf;
}

TopologyFile load_topology_file(const std::string& file) {
  const Json doc = jsonin::load_file(file);
  try {
    return parse_topology_file(doc, file);
  } catch (const ConfigError& e) {
    throw e.in_file(file);
  }
}

}  // namespace lbsim
