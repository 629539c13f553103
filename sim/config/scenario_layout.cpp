// Scenario sections about the cluster's layout: the network latencies between its datacenters, and
// which nodes are members when (a fault needs a member: faults.events against changes.events).
#include <algorithm>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "sim/config/scenario_parts.hpp"

namespace lbsim::scenario_detail {

using jsonin::Object;

NetworkSpec parse_network(const Json* j, const std::string& path, const Topology& topo) {
  NetworkSpec s;
  if (!j) return s;
  Object o(*j, path, {"same_rack", "same_dc", "cross_dc", "dc_pairs"});
  if (const Json* d = o.find("same_rack")) s.same_rack = parse_dist(*d, o.path_of("same_rack"));
  if (const Json* d = o.find("same_dc")) s.same_dc = parse_dist(*d, o.path_of("same_dc"));
  if (const Json* d = o.find("cross_dc")) s.cross_dc = parse_dist(*d, o.path_of("cross_dc"));
  if (const Json* pairs = o.find("dc_pairs")) {
    const std::string pp = o.path_of("dc_pairs");
    jsonin::as_array(*pairs, pp, true);
    if (pairs->size() > 200) jsonin::fail(pp, "at most 200 DC pairs");
    for (std::size_t i = 0; i < pairs->size(); ++i) {
      Object po((*pairs)[i], jsonin::index_path(pp, i), {"dcs", "latency"});
      const std::string dp = po.path_of("dcs");
      const Json& dcs = jsonin::as_array(po.at("dcs"), dp);
      if (dcs.size() != 2) jsonin::fail(dp, "expected two DC names");
      NetworkSpec::Pair p;
      for (std::size_t k = 0; k < 2; ++k) {
        const std::string name = jsonin::as_string(dcs[k], jsonin::index_path(dp, k));
        const auto d = topo.dc_index(name);
        if (!d) jsonin::fail(jsonin::index_path(dp, k), "unknown datacenter '" + name + "'; valid: " + jsonin::join(topo.dcs));
        (k == 0 ? p.from : p.to) = *d;
      }
      // A pair names two DCs (same_dc gives the latency inside one), each pair once: an entry
      // repeating one would be overridden by the first in either direction (latency_classes.hpp).
      if (p.from == p.to)
        jsonin::fail(dp, "names '" + topo.dcs[p.from] + "' twice; a pair is two different datacenters (the latency "
                         "inside one is network.same_dc)");
      for (std::size_t k = 0; k < s.dc_pairs.size(); ++k)
        if (std::minmax(p.from, p.to) == std::minmax(s.dc_pairs[k].from, s.dc_pairs[k].to))
          jsonin::fail(dp, fmt::format("the pair '{}'-'{}' is also {}: give each pair once", topo.dcs[p.from],
                                       topo.dcs[p.to], jsonin::index_path(pp, k)));
      p.latency = parse_dist(po.at("latency"), po.path_of("latency"));
      s.dc_pairs.push_back(std::move(p));
    }
  }
  return s;
}


std::string membership_problem(NodeId n, SimTime from, SimTime to, const Topology& topo, const ChangeSpec& changes,
                               bool& at_end) {
  SimTime join = 0, leave = std::numeric_limits<SimTime>::max();
  const char* left_by = "";
  for (const ChangeEvent& c : changes.events) {
    if (c.kind == ChangeKind::AddNode && std::find(c.nodes.begin(), c.nodes.end(), n) != c.nodes.end()) join = c.at;
    if (c.kind != ChangeKind::AddNode && c.nodes.front() == n) {
      leave = c.at;
      left_by = c.kind == ChangeKind::Decommission ? "decommission" : "remove_node";
    }
  }
  const std::string id = topo.nodes[n].id;
  const bool leaves = leave != std::numeric_limits<SimTime>::max();
  const std::string span =
      leaves ? fmt::format("from {:g} s to {:g} s", to_sec(join), to_sec(leave)) : fmt::format("from {:g} s on", to_sec(join));
  std::string because;
  if (n >= changes.initial_nodes) because = fmt::format("add_node at {:g} s", to_sec(join));
  if (leaves) because += fmt::format("{}{} at {:g} s", because.empty() ? "" : ", ", left_by, to_sec(leave));
  at_end = false;
  std::string what;
  if (from < join) {
    what = fmt::format("node '{}' has not joined at {:g} s", id, to_sec(from));
  } else if (from >= leave) {
    what = fmt::format("node '{}' has left at {:g} s", id, to_sec(from));
  } else if (to > leave) {
    at_end = true;
    what = fmt::format("the fault on node '{}' lasts until {:g} s, after it leaves", id, to_sec(to));
  } else {
    return "";
  }
  return fmt::format("{}: it is a member {} (changes.events: {}); a fault must start and end while its node is a "
                     "member",
                     what, span, because);
}

}  // namespace lbsim::scenario_detail
