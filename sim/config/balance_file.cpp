#include "sim/config/balance_file.hpp"

#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/core/json_reader.hpp"
#include "sim/mech/placement/placement_rules.hpp"

namespace lbsim {

using jsonin::Json;
using jsonin::Object;

BalancerOptions balancer_options(ServerRelease r) {
  const PlacementRules rules = placement_rules(r);
  BalancerOptions o;
  o.goal = rules.goal;
  o.candidates = rules.candidates;
  o.intranode = rules.intranode;
  return o;
}

const char* goal_name(BalanceGoal g) {
  switch (g) {
    case BalanceGoal::Count: return "count";
    case BalanceGoal::Capacity: return "capacity";
    case BalanceGoal::Size: return "size";
  }
  return "?";
}

const char* candidate_rule_name(CandidateRule c) {
  switch (c) {
    case CandidateRule::First: return "first";
    case CandidateRule::Random: return "random";
    case CandidateRule::Scored: return "scored";
  }
  return "?";
}

BalanceFile parse_balance_file(const Json& doc, const std::string& stem) {
  Object o(doc, "", {"name", "description", "server", "candidates", "seed", "nodes", "tables", "steps"});
  BalanceFile f;
  f.name = o.str("name", stem);
  f.description = o.str("description", "");
  if (const Json* sv = o.find("server")) {
    const std::string name = jsonin::as_string(*sv, o.path_of("server"));
    std::vector<std::string> names;
    bool found = false;
    for (std::size_t k = 0; k < kServerReleases; ++k) {
      const auto r = static_cast<ServerRelease>(k);
      const ServerRules rules = server_rules(r);
      if (r != ServerRelease::Unspecified && !rules.scylla) continue;  // Cassandra has no tablets
      names.emplace_back(rules.name);
      if (name == rules.name) {
        f.server = r;
        found = true;
      }
    }
    if (!found)
      jsonin::fail(o.path_of("server"), "unknown value '" + name + "' (tablets are ScyllaDB's); valid: " + jsonin::join(names));
  }
  BalanceSimSpec& s = f.spec;
  s.options = balancer_options(f.server);
  if (o.has("candidates")) {
    f.candidates_set = true;
    s.options.candidates = o.choice<CandidateRule>(
        "candidates", {{"first", CandidateRule::First}, {"random", CandidateRule::Random}, {"scored", CandidateRule::Scored}});
  }
  s.seed = static_cast<std::uint64_t>(o.integer("seed", 0, std::int64_t{1} << 53, 1));

  // nodes
  const Json& nodes = jsonin::as_array(o.at("nodes"), o.path_of("nodes"));
  std::vector<NodeSpec> specs;
  std::map<std::string, NodeId> ids;
  std::size_t with_capacity = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string p = jsonin::index_path(o.path_of("nodes"), i);
    Object n(nodes[i], p, {"id", "dc", "rack", "shards", "capacity_gib", "member"});
    const std::string id = n.str("id");
    if (!ids.emplace(id, static_cast<NodeId>(i)).second) jsonin::fail(n.path_of("id"), "duplicate node id '" + id + "'");
    specs.push_back({id, n.str("dc", "dc1"), n.str("rack", "rack1"), {static_cast<Token>(i)}});
    s.shards.push_back(static_cast<std::uint32_t>(n.integer("shards", 1, 1024)));
    // A given capacity holds at least one byte: 0 would make the node count as full (or, with
    // every node at 0, as no capacity at all).
    const double cap = n.number("capacity_gib", 0, 1e9, 0);
    if (n.has("capacity_gib") && cap * 1073741824.0 < 1)
      jsonin::fail(n.path_of("capacity_gib"), fmt::format("must be in (0, 1000000000] GiB (the node's storage; at "
                                                          "least one byte), got {:g}; to size nodes by their shards, "
                                                          "give capacity_gib for none",
                                                          cap));
    if (n.has("capacity_gib")) ++with_capacity;
    s.capacity.push_back(static_cast<std::uint64_t>(cap * 1073741824.0));
    s.initial.push_back(n.boolean("member", true));
  }
  if (with_capacity != 0 && with_capacity != nodes.size())
    jsonin::fail(o.path_of("nodes"), "capacity_gib is given for " + std::to_string(with_capacity) + " of " +
                                         std::to_string(nodes.size()) + " nodes; give it for every node or for none");
  s.topo = Topology::build(specs, "/nodes");
  const Topology& topo = s.topo;

  // tables
  const Json& tables = jsonin::as_array(o.at("tables"), o.path_of("tables"));
  std::set<std::string> table_names;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const std::string p = jsonin::index_path(o.path_of("tables"), i);
    Object t(tables[i], p, {"name", "tablets", "rf", "tablet_size_bytes"});
    BalanceSimTable tb;
    tb.name = t.str("name", "table" + std::to_string(i + 1));
    if (!table_names.insert(tb.name).second) jsonin::fail(t.path_of("name"), "duplicate table name '" + tb.name + "'");
    const std::int64_t count = t.integer("tablets", 1, 65536);
    if ((count & (count - 1)) != 0)
      jsonin::fail(t.path_of("tablets"), std::to_string(count) + " is not a power of two (1, 2, 4, ... 65536)");
    tb.tablets = static_cast<std::uint64_t>(count);
    tb.rf.assign(topo.dcs.size(), 0);
    Object rf(t.at("rf"), t.path_of("rf"), topo.dcs);
    for (std::uint32_t dc = 0; dc < topo.dcs.size(); ++dc) {
      if (!rf.has(topo.dcs[dc])) continue;
      std::size_t members = 0;
      for (NodeId n = 0; n < topo.size(); ++n) members += topo.node_dc[n] == dc && s.initial[n];
      tb.rf[dc] = static_cast<int>(rf.integer(topo.dcs[dc], 0, static_cast<std::int64_t>(members)));
    }
    tb.tablet_size = static_cast<std::uint64_t>(t.integer("tablet_size_bytes", 0, std::int64_t{1} << 50, 0));
    s.tables.push_back(tb);
  }

  // steps
  std::vector<bool> member(s.initial.begin(), s.initial.end());
  if (const Json* st = o.find("steps")) {
    const Json& steps = jsonin::as_array(*st, o.path_of("steps"), true);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const std::string p = jsonin::index_path(o.path_of("steps"), i);
      Object so(steps[i], p, {"bootstrap", "decommission"});
      if (so.has("bootstrap") == so.has("decommission"))
        jsonin::fail(p, "a step has exactly one of: bootstrap, decommission");
      BalanceSimStep step;
      step.kind = so.has("bootstrap") ? BalanceSimStep::Kind::Bootstrap : BalanceSimStep::Kind::Decommission;
      const std::string key = so.has("bootstrap") ? "bootstrap" : "decommission";
      const Json& list = jsonin::as_array(so.at(key), so.path_of(key));
      for (std::size_t k = 0; k < list.size(); ++k) {
        const std::string lp = jsonin::index_path(so.path_of(key), k);
        const std::string id = jsonin::as_string(list[k], lp);
        const auto it = ids.find(id);
        if (it == ids.end()) jsonin::fail(lp, "unknown node '" + id + "'; nodes are listed in /nodes");
        const bool joining = step.kind == BalanceSimStep::Kind::Bootstrap;
        if (member[it->second] == joining)
          jsonin::fail(lp, "node '" + id + "' is " + (joining ? "already a member" : "not a member") + " at this step");
        member[it->second] = joining;
        step.nodes.push_back(it->second);
      }
      // Each DC keeps at least as many members as any table's RF there.
      for (std::uint32_t dc = 0; dc < topo.dcs.size(); ++dc) {
        std::size_t members = 0;
        for (NodeId n = 0; n < topo.size(); ++n) members += topo.node_dc[n] == dc && member[n];
        for (const auto& tb : s.tables)
          if (static_cast<std::size_t>(tb.rf[dc]) > members)
            jsonin::fail(p, "leaves " + std::to_string(members) + " members in " + topo.dcs[dc] + ", fewer than table '" +
                                tb.name + "' RF " + std::to_string(tb.rf[dc]));
      }
      s.steps.push_back(std::move(step));
    }
  }
  return f;
}

BalanceFile load_balance_file(const std::string& file) {
  const Json doc = jsonin::load_file(file);
  try {
    return parse_balance_file(doc, std::filesystem::path(file).stem().string());
  } catch (const ConfigError& e) {
    throw e.in_file(file);
  }
}

}  // namespace lbsim
