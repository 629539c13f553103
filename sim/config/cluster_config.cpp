#include "sim/config/cluster_config.hpp"

#include <filesystem>
#include <algorithm>
#include <map>
#include <set>

#include <boost/sort/pdqsort/pdqsort.hpp>
#include <fmt/format.h>

#include "sim/config/topology_file.hpp"

namespace lbsim {

using jsonin::Json;
using jsonin::Object;

namespace {
// Cap on ring size so an impossible topology fails fast with an estimate instead of exhausting
// memory: every ring token costs about 4 bytes per replica per order plus 12 bytes.
constexpr std::int64_t kMaxRingTokens = 50'000'000;

// The same placement: strategy, RFs (NetworkTopologyStrategy: whatever the order of the DCs) and
// tablet options.
bool same_replication(const Replication& a, const Replication& b) {
  if (a.kind != b.kind || a.tablets.has_value() != b.tablets.has_value()) return false;
  if (a.kind == StrategyKind::Simple) return a.simple_rf == b.simple_rf;
  auto sorted = [](std::vector<std::pair<std::string, int>> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  if (sorted(a.dc_rf) != sorted(b.dc_rf)) return false;
  if (!a.tablets) return true;
  const TabletOptions &x = *a.tablets, &y = *b.tablets;
  return x.initial == y.initial && x.min_tablet_count == y.min_tablet_count &&
         x.min_per_shard_tablet_count == y.min_per_shard_tablet_count &&
         x.initial_scale_factor == y.initial_scale_factor && x.tablets_per_shard_goal == y.tablets_per_shard_goal;
}

}  // namespace

const std::vector<std::string>& cluster_topology_keys() {
  static const std::vector<std::string> keys{"datacenters", "nodes",   "topology_file",
                                             "num_tokens",  "token_allocation", "sharding"};
  return keys;
}

std::vector<std::vector<Token>> random_tokens(std::size_t nodes, std::size_t num_tokens, Rng rng) {
  // Cassandra Murmur3Partitioner.getRandomToken: uniform over the int64 range, never MINIMUM; a
  // token already taken is drawn again from the same node's stream.
  auto draw = [&](auto&& taken) {
    std::vector<std::vector<Token>> out(nodes);
    for (std::size_t n = 0; n < nodes; ++n) {
      Rng r = rng.fork("node", n);
      out[n].reserve(num_tokens);
      while (out[n].size() < num_tokens) {
        const auto t = static_cast<Token>(r.next_u64());
        if (t == kMinToken || taken(t)) continue;
        out[n].push_back(t);
      }
    }
    return out;
  };
  // Collisions are rare (about 1.6e-8 for 3,000 x 256 tokens), so draw without checking, then look
  // for a repeated token in one sort: with none, nothing would have been redrawn and the result is
  // the checked draw's. A std::set of every token cost ~65% of a 3,000-node ring build (issue 14).
  auto out = draw([](Token) { return false; });
  std::vector<Token> all;
  all.reserve(nodes * num_tokens);
  for (const auto& v : out) all.insert(all.end(), v.begin(), v.end());
  boost::sort::pdqsort_branchless(all.begin(), all.end());  // about twice std::sort's speed on random tokens
  if (std::adjacent_find(all.begin(), all.end()) == all.end()) return out;
  std::set<Token> used;
  return draw([&](Token t) { return !used.insert(t).second; });
}

std::vector<std::vector<Token>> even_tokens(std::size_t nodes, std::size_t num_tokens) {
  // Position i of nodes*num_tokens evenly spaced positions, centred in its slot so that no token
  // is Long.MIN_VALUE; positions go to nodes round-robin, so every node's vnodes interleave.
  std::vector<std::vector<Token>> out(nodes);
  const auto total = static_cast<u128>(nodes) * num_tokens;
  for (std::size_t i = 0; i < nodes * num_tokens; ++i) {
    const u128 offset = ((static_cast<u128>(2 * i + 1)) << 64) / (2 * total);
    const std::uint64_t u = static_cast<std::uint64_t>(offset) ^ (std::uint64_t{1} << 63);
    out[i % nodes].push_back(static_cast<Token>(u));
  }
  return out;
}

ClusterTopologySpec parse_cluster_topology(const Json& cluster, const std::string& cluster_path,
                                           const Json& keyspace, const std::string& keyspace_path,
                                           const std::string& scenario_dir, const Rng& root,
                                           const std::vector<std::string>& extra_keys,
                                           std::vector<NodeSpec> joining,
                                           const std::vector<std::string>& joining_paths) {
  std::vector<std::string> allowed = cluster_topology_keys();
  allowed.insert(allowed.end(), extra_keys.begin(), extra_keys.end());
  Object o(cluster, cluster_path, allowed);
  ClusterTopologySpec spec;

  std::vector<std::string> ways;
  for (const char* k : {"datacenters", "nodes", "topology_file"})
    if (o.has(k)) ways.push_back(k);
  if (ways.size() != 1)
    jsonin::fail(cluster_path,
                 ways.empty() ? std::string("give exactly one of \"datacenters\", \"nodes\" or \"topology_file\"")
                              : fmt::format("give exactly one of \"datacenters\", \"nodes\" or \"topology_file\"; "
                                            "this one has {}: remove all but one (on the command line: --set "
                                            "{}.{}=null)",
                                            jsonin::join(ways), cluster_path.substr(1), ways.front()));
  const auto num_tokens = static_cast<std::size_t>(o.integer("num_tokens", 1, 65536, 256));
  enum class Alloc { Random, Even };
  const Alloc alloc = o.choice<Alloc>("token_allocation", {{"random", Alloc::Random}, {"even", Alloc::Even}}, Alloc::Random);
  if (const Json* sh = o.find("sharding")) spec.sharding = parse_sharding(*sh, o.path_of("sharding"));

  std::vector<NodeSpec> nodes;
  std::optional<Replication> file_replication;
  std::string topology_file;  // as the scenario names it
  std::string nodes_path = o.path_of("nodes");
  if (const Json* dcs = o.find("datacenters")) {
    const std::string dp = o.path_of("datacenters");
    jsonin::as_array(*dcs, dp);
    std::set<std::string> names;
    for (std::size_t d = 0; d < dcs->size(); ++d) {
      Object dco((*dcs)[d], jsonin::index_path(dp, d), {"name", "racks", "nodes"});
      const std::string name = dco.str("name");
      if (!names.insert(name).second) jsonin::fail(dco.path_of("name"), "duplicate datacenter '" + name + "'");
      const auto count = dco.integer("nodes", 1, 100000);
      const auto racks = dco.integer("racks", 1, count, 1);
      for (std::int64_t i = 0; i < count; ++i)
        nodes.push_back({fmt::format("n{}", nodes.size() + 1), name, fmt::format("r{}", i % racks + 1), {}});
    }
    nodes_path = dp;
  } else if (const Json* list = o.find("nodes")) {
    nodes = parse_node_list(*list, nodes_path, false);
  } else {
    const std::string rel = o.str("topology_file");
    const std::string file = (std::filesystem::path(scenario_dir) / rel).string();
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
      jsonin::fail(o.path_of("topology_file"),
                   fmt::format("no such file '{}' (a topology file is found relative to the scenario's folder, "
                               "'{}')",
                               file, scenario_dir.empty() ? "." : scenario_dir));
    TopologyFile tf = load_topology_file(file);
    nodes = std::move(tf.topology.nodes);
    file_replication = tf.replication;
    topology_file = rel;
    if (tf.sharding && !spec.sharding) spec.sharding = tf.sharding;
    nodes_path = o.path_of("topology_file");
  }

  // Nodes that join later (changes.events add_node): appended, numbered after the others; they
  // draw their tokens as the initial nodes do (random: the same per-node stream), and from a
  // separate stream when the initial nodes use even or explicit tokens.
  // A joining node's id clashing with another's is its add_node's error (`joining_paths`).
  spec.initial_nodes = nodes.size();
  std::map<std::string, std::string> ids;  // id -> where it is given ("" for the cluster's)
  for (const auto& n : nodes) ids.emplace(n.id, "");
  for (std::size_t q = 0; q < joining.size(); ++q) {
    NodeSpec& j = joining[q];
    const bool generated = j.id.empty();
    if (generated) j.id = fmt::format("n{}", nodes.size() + 1);
    const std::string where = q < joining_paths.size() ? joining_paths[q] : "";
    if (auto [it, fresh] = ids.emplace(j.id, where); !fresh && !where.empty()) {
      const std::string also = it->second.empty() ? "a node of \"cluster\"" : it->second;
      if (generated)
        jsonin::fail(where, fmt::format("this joining node's default id '{}' is taken ({}); give it an \"id\"", j.id, also));
      jsonin::fail(jsonin::key_path(where, "id"),
                   fmt::format("duplicate node id '{}' (also {}); a joining node needs a new id", j.id, also));
    }
    nodes.push_back(std::move(j));
  }
  const auto total = static_cast<std::int64_t>(nodes.size()) * static_cast<std::int64_t>(num_tokens);
  if (total > kMaxRingTokens)
    jsonin::fail(cluster_path, fmt::format("{} nodes x {} tokens = {} ring tokens would need about {} MB; the "
                                           "limit is {} ring tokens",
                                           nodes.size(), num_tokens, total, total * 40 / 1000000, kMaxRingTokens));
  bool any_explicit = false;
  for (const auto& n : nodes) any_explicit = any_explicit || !n.tokens.empty();
  if (alloc == Alloc::Even && any_explicit)
    jsonin::fail(o.path_of("token_allocation"), "\"even\" allocation needs nodes without explicit tokens");
  if (any_explicit) {
    // Random tokens for the nodes without explicit ones must not collide with explicit tokens.
    std::set<Token> taken;
    for (const auto& n : nodes) taken.insert(n.tokens.begin(), n.tokens.end());
    Rng extra = root.fork("tokens-extra");
    for (auto& n : nodes) {
      if (!n.tokens.empty()) continue;
      while (n.tokens.size() < num_tokens) {
        const auto t = static_cast<Token>(extra.next_u64());
        if (t != kMinToken && taken.insert(t).second) n.tokens.push_back(t);
      }
    }
  } else if (alloc == Alloc::Even) {
    const auto drawn = even_tokens(spec.initial_nodes, num_tokens);
    for (std::size_t i = 0; i < spec.initial_nodes; ++i) nodes[i].tokens = drawn[i];
    std::set<Token> taken;
    for (const auto& v : drawn) taken.insert(v.begin(), v.end());
    Rng extra = root.fork("tokens-joining");
    for (std::size_t i = spec.initial_nodes; i < nodes.size(); ++i)
      while (nodes[i].tokens.size() < num_tokens) {
        const auto t = static_cast<Token>(extra.next_u64());
        if (t != kMinToken && taken.insert(t).second) nodes[i].tokens.push_back(t);
      }
  } else {
    const auto drawn = random_tokens(nodes.size(), num_tokens, root.fork("tokens"));
    for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i].tokens = drawn[i];
  }
  spec.topology = Topology::build(std::move(nodes), nodes_path);

  if (!keyspace.is_null()) {
    spec.replication = parse_keyspace(keyspace, keyspace_path, spec.topology, spec.warnings);
    // Both give a keyspace: the scenario's wins (a sweep over keyspace.rf on an imported ring
    // needs that), and a different one is said on stderr and in every report's warnings. Only the
    // names as written appear, so the reports do not depend on the folder lbsim runs from.
    if (file_replication && !same_replication(*file_replication, spec.replication))
      spec.warnings.push_back(fmt::format(
          "{} ({}) differs from {}:/keyspace ({}), the keyspace of the topology file that {} names: the run uses "
          "{}; remove it to use the file's (--set {}=null)",
          keyspace_path, spec.replication.describe(), topology_file, file_replication->describe(),
          o.path_of("topology_file"), keyspace_path, keyspace_path.substr(1)));
  } else if (file_replication) {
    spec.replication = *file_replication;
  } else {
    jsonin::fail(keyspace_path, "required field is missing");
  }
  return spec;
}

TabletMap initial_tablet_map(const Topology& topo, const Replication& repl, std::uint32_t shards_per_node,
                             std::size_t initial_nodes, const Rng& root, const TabletRules& rules,
                             double table_mb) {
  std::vector<std::uint32_t> shards(topo.size(), 0);
  for (NodeId n = 0; n < initial_nodes && n < topo.size(); ++n) shards[n] = shards_per_node;
  std::vector<int> rf(topo.dcs.size(), 0);
  std::vector<DcShards> dcs(topo.dcs.size());
  std::vector<std::uint32_t> members(topo.dcs.size(), 0);
  for (NodeId n = 0; n < topo.size(); ++n) {
    if (shards[n] == 0) continue;
    dcs[topo.node_dc[n]].shards += shards[n];
    ++members[topo.node_dc[n]];
  }
  for (std::uint32_t d = 0; d < topo.dcs.size(); ++d) {
    rf[d] = repl.rf_for_dc(topo.dcs[d]);
    dcs[d].rf = rf[d];
    if (static_cast<std::uint32_t>(rf[d]) > members[d])
      jsonin::fail(jsonin::key_path("/keyspace/rf", topo.dcs[d]),
                   fmt::format("RF {} in '{}' needs {} nodes for tablets (one replica per node); the datacenter has {}",
                               rf[d], topo.dcs[d], rf[d], members[d]));
  }
  const TabletOptions opts = repl.tablets ? *repl.tablets : TabletOptions{};
  const std::uint64_t count = tablet_count_loaded(opts, dcs, rules, table_mb);
  // Placement is O(tablets x RF x nodes of a rack): refuse what would take minutes or gigabytes.
  constexpr std::uint64_t kMaxTablets = std::uint64_t{1} << 16;
  if (count > kMaxTablets)
    jsonin::fail("/keyspace/tablets", fmt::format("{} tablets per table exceed the {} modelled; lower "
                                                  "\"per_shard_goal\" or the explicit counts",
                                                  count, kMaxTablets));
  return TabletMap::allocate(topo, shards, rf, count, root.fork("tablets"));
}

}  // namespace lbsim
