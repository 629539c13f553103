// Scenario section "changes": topology events (nodes joining, decommissioned, removed;
// configs/README.md "changes"). The cost of tablet migrations and streaming, in the same section,
// is the placement's (sim/mech/placement/placement_config.cpp).
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sim/config/mech_spec_input.hpp"
#include "sim/config/scenario_parts.hpp"

namespace lbsim::scenario_detail {

using jsonin::Object;

// "changes": {"events": [{"at_s", "action": "add_node", "nodes": [{"dc", "rack", "id"?}]} |
// {"at_s", "action": "decommission" | "remove_node", "node"}], ...} (configs/README.md).
namespace {
const std::vector<std::string>& change_event_keys() {
  static const std::vector<std::string> k{"at_s", "action", "nodes", "node"};
  return k;
}
// "changes"' keys: its events, and the placement's (sim/mech/specs.inc).
std::vector<std::string> changes_keys() {
  std::vector<std::string> k{"events"};
  for (std::string& key : mechanism_keys(MechSection::Changes)) k.push_back(std::move(key));
  return k;
}
}  // namespace

std::vector<NodeSpec> parse_joining_nodes(const Json* j, const std::string& path, std::vector<std::string>* paths) {
  std::vector<NodeSpec> out;
  if (!j) return out;
  Object o(*j, path, changes_keys());
  const Json* ev = o.find("events");
  if (!ev) return out;
  const std::string ep = o.path_of("events");
  jsonin::as_array(*ev, ep, true);
  for (std::size_t i = 0; i < ev->size(); ++i) {
    Object e((*ev)[i], jsonin::index_path(ep, i), change_event_keys());
    if (e.str("action") != "add_node") continue;
    const std::string np = e.path_of("nodes");
    const Json& list = jsonin::as_array(e.at("nodes"), np);
    if (list.empty()) jsonin::fail(np, "add_node needs at least one node");
    for (std::size_t k = 0; k < list.size(); ++k) {
      Object no(list[k], jsonin::index_path(np, k), {"id", "dc", "rack"});
      NodeSpec n;
      n.id = no.str("id", "");  // "" = n<k>, numbered after the initial nodes
      n.dc = no.str("dc");
      n.rack = no.str("rack");
      out.push_back(std::move(n));
      if (paths) paths->push_back(jsonin::index_path(np, k));
    }
  }
  return out;
}

ChangeSpec parse_changes(const Json* j, const std::string& path, const Topology& topo, std::size_t initial_nodes,
                         const Replication& repl) {
  ChangeSpec s;
  s.initial_nodes = static_cast<std::uint32_t>(initial_nodes);
  if (!j) return s;
  Object o(*j, path, changes_keys());
  auto node_of = [&](const Object& e) {
    const std::string id = e.str("node");
    const auto n = topo.node_index(id);
    if (!n) {
      std::vector<std::string> ids;
      for (const auto& nd : topo.nodes) ids.push_back(nd.id);
      if (ids.size() > 12) ids.resize(12), ids.emplace_back("...");
      jsonin::fail(e.path_of("node"), "unknown node '" + id + "'; valid: " + jsonin::join(ids));
    }
    return *n;
  };
  std::size_t joined = initial_nodes;
  std::vector<std::uint8_t> leaves(topo.size(), 0);
  if (const Json* ev = o.find("events")) {
    const std::string ep = o.path_of("events");
    for (std::size_t i = 0; i < ev->size(); ++i) {
      Object e((*ev)[i], jsonin::index_path(ep, i), change_event_keys());
      ChangeEvent c;
      c.at = from_ms(e.number("at_s", 0, 1e6) * 1e3);
      c.kind = e.choice<ChangeKind>("action", {{"add_node", ChangeKind::AddNode},
                                               {"decommission", ChangeKind::Decommission},
                                               {"remove_node", ChangeKind::RemoveNode}});
      if (c.kind == ChangeKind::AddNode) {
        if (e.has("node")) jsonin::fail(e.path_of("node"), "add_node takes \"nodes\": [{\"dc\", \"rack\"}]");
        const Json& list = e.at("nodes");
        for (std::size_t k = 0; k < list.size(); ++k) {
          const NodeId id = static_cast<NodeId>(joined++);
          const std::string dc = topo.nodes[id].dc;
          bool known = false;
          for (NodeId m = 0; m < initial_nodes; ++m) known = known || topo.nodes[m].dc == dc;
          if (!known) {
            std::vector<std::string> dcs;
            for (NodeId m = 0; m < initial_nodes; ++m)
              if (std::find(dcs.begin(), dcs.end(), topo.nodes[m].dc) == dcs.end()) dcs.push_back(topo.nodes[m].dc);
            jsonin::fail(jsonin::key_path(jsonin::index_path(e.path_of("nodes"), k), "dc"),
                         "unknown datacenter '" + dc + "' (a joining node joins an existing datacenter); valid: " +
                             jsonin::join(dcs));
          }
          c.nodes.push_back(id);
        }
      } else {
        if (e.has("nodes")) jsonin::fail(e.path_of("nodes"), "decommission and remove_node take one \"node\"");
        const NodeId n = node_of(e);
        if (leaves[n]) jsonin::fail(e.path_of("node"), "node '" + topo.nodes[n].id + "' already leaves the cluster");
        leaves[n] = 1;
        c.nodes.push_back(n);
      }
      s.events.push_back(std::move(c));
    }
    // A node must have joined before it leaves.
    std::vector<SimTime> join_at(topo.size(), 0);
    for (const auto& c : s.events)
      if (c.kind == ChangeKind::AddNode)
        for (NodeId n : c.nodes) join_at[n] = c.at;
    for (std::size_t i = 0; i < s.events.size(); ++i) {
      const auto& c = s.events[i];
      if (c.kind != ChangeKind::AddNode && c.at < join_at[c.nodes[0]])
        jsonin::fail(jsonin::key_path(jsonin::index_path(ep, i), "at_s"),
                     "node '" + topo.nodes[c.nodes[0]].id + "' leaves before it joins");
    }
    std::vector<std::size_t> order(s.events.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return s.events[a].at < s.events[b].at; });
    // ScyllaDB refuses to drain a node when its DC would keep fewer nodes than the RF (a tablet
    // never has two replicas on one node).
    std::vector<int> members(topo.dcs.size(), 0);
    for (NodeId n = 0; n < initial_nodes; ++n) ++members[topo.node_dc[n]];
    for (std::size_t i : order) {
      const auto& c = s.events[i];
      for (NodeId n : c.nodes) {
        const std::uint32_t dc = topo.node_dc[n];
        if (c.kind == ChangeKind::AddNode) {
          ++members[dc];
        } else if (--members[dc] < repl.rf_for_dc(topo.dcs[dc])) {
          jsonin::fail(jsonin::key_path(jsonin::index_path(ep, i), "node"),
                       fmt::format("removing '{}' would leave {} nodes in '{}' for RF {}", topo.nodes[n].id,
                                   members[dc], topo.dcs[dc], repl.rf_for_dc(topo.dcs[dc])));
        }
      }
    }
    std::vector<ChangeEvent> sorted;
    for (std::size_t i : order) sorted.push_back(std::move(s.events[i]));
    s.events = std::move(sorted);
  }
  return s;
}

}  // namespace lbsim::scenario_detail
