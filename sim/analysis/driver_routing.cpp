// The first host of the Go, Python, Rust and Node.js policies' plans as a DriverRouting: which
// replicas come first (tiers), how one of them is chosen, and the child plan's lists. Each mapping
// restates the policy's semantics as its file in policies/ documents them (with the drivers'
// sources there); only first attempts with the driver's state at rest are described, so a policy
// whose first host depends on feedback (in-flight counts, latencies, response counts) is refused
// with that feedback named, and so is one whose first host depends on something the ring does not
// give (the driver's own replica map, a seed drawn at init, a control host drawn at random).
//
// - GoTokenAware (policies/go/token_aware.cpp) around GoRoundRobin / GoDCAwareRoundRobin /
//   GoRackAwareRoundRobin (policies/go/round_robin.cpp): tier 0 (the child's IsLocal hosts, or
//   HostTier 0 of the rack-aware child), uniform when shuffle_replicas (the version's default),
//   else the first in replica order; with non_local_replicas_fallback the tiers 1..MaxHostTier,
//   each only when the previous one has a replica; then the child's first host: its layers hold
//   the live hosts and every plan shifts them by one (uniform over the first non-empty layer).
// - PythonTokenAware (policies/python/token_aware.cpp) around PythonDCAwareRoundRobin /
//   PythonRackAwareRoundRobin (policies/python/round_robin.cpp): rule B (scylla-3.29.5 and later)
//   tiers LOCAL_RACK, LOCAL, REMOTE (the first used_hosts_per_remote_dc live hosts of each remote
//   DC); rule A (datastax, scylla-3.28.0) one tier, the local DC. Uniform when shuffled, else the
//   first in the driver's token-map order (grouped by DC, DCs by their first token on the ring).
//   The child: the local DC (or local rack) rotated by a per-plan position (uniform), then the
//   other local racks from the head (reached first only when the local rack has no live host, and
//   then p1 = 0), then the remote heads from the head. Without replicas left, rule A's and rule
//   B's rest of the plan starts with the child's first host (no live local host is a replica).
// - RustDefault (policies/rust/default.cpp), without latency awareness and with shuffling:
//   pick() takes a uniform alive replica of the first tier (preferred rack, preferred DC, any when
//   there is no DC preference or with permit_dc_failover) that has one (choose_filtered: a uniform
//   index, else a uniform choice among those that pass, is uniform over those that pass); no such
//   replica (or token_aware false, or no routing key): pick_node, a uniformly started rotation of
//   the nodes in lowest-token order, first alive (rack, DC, then every node with failover); the
//   last resort of a down node is counted as no host.
// - NodeTokenAware (policies/nodejs/token_aware.cpp): the replicas the child calls LOCAL, rotated
//   from floor(Math.random() * k), down ones skipped when reached (gap / k shares); then the
//   child: NodeDCAwareRoundRobin (policies/nodejs/round_robin.cpp) rotates every local-DC host,
//   down ones included and skipped; NodeAllowList (policies/nodejs/allow_list.cpp) filters its
//   child's plan and calls the hosts outside its list IGNORED.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "sim/analysis/routing.hpp"

namespace lbsim {

using jsonin::Json;
using List = DriverRouting::List;
using Tier = DriverRouting::Tier;
using Pick = DriverRouting::Pick;

namespace {

std::string str_or(const Json& j, const char* key, const std::string& dflt) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : dflt;
}

template <class Pred>
std::vector<std::uint8_t> mask_of(const Topology& topo, Pred pred) {
  std::vector<std::uint8_t> m(topo.size(), 0);
  for (NodeId h = 0; h < topo.size(); ++h) m[h] = pred(h) ? 1 : 0;
  return m;
}

template <class Pred>
std::vector<NodeId> hosts_of(const Topology& topo, Pred pred) {
  std::vector<NodeId> v;
  for (NodeId h = 0; h < topo.size(); ++h)
    if (pred(h)) v.push_back(h);
  return v;
}

std::string replica_source_reason(const std::string& src) {
  return fmt::format("replica_source \"{}\": the driver's own replica map (its repeated or misplaced hosts) is not "
                     "modelled; the model routes over the ring's replicas",
                     src);
}

std::uint32_t dc_or(const Topology& topo, const Json& spec, std::uint32_t dflt) {
  if (spec.contains("local_dc")) return *topo.dc_index(spec["local_dc"].get<std::string>());
  return dflt;
}

// ---- Go ------------------------------------------------------------------------------------

std::optional<RoutingSpec> go_spec(const Json& spec, const Topology& topo, std::string& why) {
  const std::string type = str_or(spec, "type", "");
  const bool ta = type == "GoTokenAware";
  bool shuffle = false, remote_fallback = false;
  const Json& child = ta ? spec["child"] : spec;
  if (ta) {
    if (spec.value("avoid_slow_replicas", false)) {
      why = "adaptive: avoid_slow_replicas puts the replicas with max_in_flight_threshold or more requests in flight "
            "last (chooses by in-flight counts)";
      return std::nullopt;
    }
    if (const std::string src = str_or(spec, "replica_source", "correct"); src != "correct") {
      why = replica_source_reason(src);
      return std::nullopt;
    }
    const std::string v = str_or(spec, "version", "scylladb");
    shuffle = spec.value("shuffle_replicas", v == "scylladb" || v == "scylladb-before-2026-03-19");
    remote_fallback = spec.value("non_local_replicas_fallback", false);
  }
  const std::string ct = str_or(child, "type", "");
  // layer_of: the child's list of each host (its HostTier for the rack-aware child).
  std::vector<std::uint8_t> layer(topo.size(), 0);
  std::size_t layers = 1;
  bool tierer = false;
  if (ct == "GoDCAwareRoundRobin" || ct == "GoRackAwareRoundRobin") {
    const std::uint32_t dc = dc_or(topo, child, 0);
    const bool rack = ct == "GoRackAwareRoundRobin";
    const std::string local_rack = str_or(child, "local_rack", "");
    for (NodeId h = 0; h < topo.size(); ++h) {
      const bool local = topo.node_dc[h] == dc;
      layer[h] = !rack ? (local ? 0 : 1) : (!local ? 2 : (topo.racks[topo.node_rack[h]] == local_rack ? 0 : 1));
    }
    const bool failover = !child.value("disable_dc_failover", false);
    layers = (rack ? 2 : 1) + (failover ? 1 : 0);
    tierer = rack;
  } else if (ct != "GoRoundRobin") {
    why = "child policy " + ct + " is not modelled";
    return std::nullopt;
  }
  const unsigned max_tier = tierer ? 2 : 1;
  RoutingSpec s;
  s.token_aware = ta;
  s.driver = [topo, layer, layers, max_tier, ta, shuffle, remote_fallback](const std::vector<bool>& down) {
    DriverRouting d;
    // Tier of a host: the rack-aware child's HostTier, else 0 when IsLocal (layer 0), else 1.
    auto tier_of = [&](NodeId h) -> unsigned { return max_tier == 2 ? layer[h] : (layer[h] == 0 ? 0u : 1u); };
    if (ta) {
      d.tiers.push_back({mask_of(topo, [&](NodeId h) { return tier_of(h) == 0; }), false});
      if (remote_fallback)
        for (unsigned t = 1; t <= max_tier; ++t)
          d.tiers.push_back({mask_of(topo, [&](NodeId h) { return tier_of(h) == t; }), t >= 2});
    }
    d.pick = shuffle ? Pick::Uniform : Pick::First;
    for (std::size_t l = 0; l < layers; ++l)
      d.child.push_back({hosts_of(topo, [&](NodeId h) { return layer[h] == l && !down[h]; }), true, false, {}});
    return d;
  };
  return s;
}

// ---- Python --------------------------------------------------------------------------------

std::optional<RoutingSpec> python_spec(const Json& spec, const Topology& topo, std::string& why) {
  const std::string type = str_or(spec, "type", "");
  const bool ta = type == "PythonTokenAware";
  const Json& child = ta ? spec["child"] : spec;
  bool tiered = false, shuffle = false;
  if (ta) {
    if (const std::string src = str_or(spec, "replica_source", "correct"); src != "correct") {
      why = replica_source_reason(src);
      return std::nullopt;
    }
    const std::string v = str_or(spec, "version", "scylla-3.29.6");
    tiered = v == "scylla-3.29.5" || v == "scylla-3.29.6" || v == "scylla-master";
    shuffle = spec.value("shuffle_replicas", v == "scylla-3.29.6" || v == "scylla-master");
  }
  const std::string ct = str_or(child, "type", "");
  if (ct != "PythonDCAwareRoundRobin" && ct != "PythonRackAwareRoundRobin") {
    why = "child policy " + ct + " is not modelled";
    return std::nullopt;
  }
  const bool rack_aware = ct == "PythonRackAwareRoundRobin";
  const int used_remote = child.value("used_hosts_per_remote_dc", 0);
  if (child.contains("contact_points") && (!child.contains("local_dc") || used_remote > 0)) {
    why = "contact_points: the driver's host lists start with a control host drawn at random among the contact "
          "points, which decides the default local_dc and each remote DC's first used_hosts_per_remote_dc hosts";
    return std::nullopt;
  }
  const std::uint32_t dc = dc_or(topo, child, topo.node_dc[0]);
  const std::string local_rack = str_or(child, "local_rack", "");
  // The token map's DC order: by each DC's first token on the sorted ring.
  std::vector<std::pair<Token, NodeId>> toks;
  for (NodeId h = 0; h < topo.size(); ++h)
    for (Token t : topo.nodes[h].tokens) toks.emplace_back(t, h);
  std::sort(toks.begin(), toks.end());
  std::vector<std::uint32_t> rank(topo.dcs.size(), static_cast<std::uint32_t>(topo.dcs.size()));
  std::uint32_t next = 0;
  for (const auto& [t, h] : toks)
    if (rank[topo.node_dc[h]] == topo.dcs.size()) rank[topo.node_dc[h]] = next++;
  RoutingSpec s;
  s.token_aware = ta;
  s.driver = [topo, ta, tiered, shuffle, rack_aware, used_remote, dc, local_rack, rank](const std::vector<bool>& down) {
    DriverRouting d;
    auto in_rack = [&](NodeId h) { return rack_aware && topo.node_dc[h] == dc && topo.racks[topo.node_rack[h]] == local_rack; };
    // The remote DCs in the dict's order (first appearance among the live hosts in topology
    // order), each one's first used_hosts_per_remote_dc live hosts: distance REMOTE.
    std::vector<NodeId> remote;
    std::vector<std::uint8_t> seen(topo.dcs.size(), 0);
    for (NodeId h = 0; h < topo.size(); ++h) {
      const std::uint32_t hd = topo.node_dc[h];
      if (down[h] || hd == dc || seen[hd]) continue;
      seen[hd] = 1;
      int k = 0;
      for (NodeId g = 0; g < topo.size() && k < used_remote; ++g)
        if (!down[g] && topo.node_dc[g] == hd) {
          remote.push_back(g);
          ++k;
        }
    }
    std::vector<std::uint8_t> is_remote(topo.size(), 0);
    for (NodeId h : remote) is_remote[h] = 1;
    if (ta) {
      if (tiered) {
        if (rack_aware) d.tiers.push_back({mask_of(topo, in_rack), false});
        d.tiers.push_back({mask_of(topo, [&](NodeId h) { return topo.node_dc[h] == dc && !in_rack(h); }), false});
        d.tiers.push_back({is_remote, false});
      } else {
        d.tiers.push_back({mask_of(topo, [&](NodeId h) { return topo.node_dc[h] == dc; }), false});
      }
    }
    d.pick = shuffle ? Pick::Uniform : Pick::First;
    d.dc_rank = rank;
    if (rack_aware) {
      d.child.push_back({hosts_of(topo, [&](NodeId h) { return in_rack(h) && !down[h]; }), true, false, {}});
      d.child.push_back(
          {hosts_of(topo, [&](NodeId h) { return topo.node_dc[h] == dc && !in_rack(h) && !down[h]; }), false, false, {}});
    } else {
      d.child.push_back({hosts_of(topo, [&](NodeId h) { return topo.node_dc[h] == dc && !down[h]; }), true, false, {}});
    }
    d.child.push_back({remote, false, false, {}});
    return d;
  };
  return s;
}

// ---- Rust ----------------------------------------------------------------------------------

std::optional<RoutingSpec> rust_spec(const Json& spec, const Topology& topo, std::string& why) {
  if (spec.contains("latency_awareness") && !(spec["latency_awareness"].is_boolean() && !spec["latency_awareness"].get<bool>())) {
    why = "adaptive: latency awareness skips the replicas whose average latency exceeds exclusion_threshold x the "
          "fastest node's (chooses by measured latencies)";
    return std::nullopt;
  }
  if (!spec.value("enable_shuffling_replicas", true)) {
    why = "enable_shuffling_replicas false: the replica picked is fixed per replica-set size by a generator seeded "
          "once at init, so the shares depend on the run's seed, not on the ring alone";
    return std::nullopt;
  }
  const bool has_dc = spec.contains("preferred_dc"), has_rack = spec.contains("preferred_rack");
  const std::uint32_t dc = has_dc ? *topo.dc_index(spec["preferred_dc"].get<std::string>()) : 0xffffffffu;  // no DC
  const std::string rack = str_or(spec, "preferred_rack", "");
  const bool failover = has_dc && spec.value("permit_dc_failover", false);
  const bool ta = spec.value("token_aware", true);
  RoutingSpec s;
  s.token_aware = ta;
  s.driver = [topo, has_dc, has_rack, dc, rack, failover, ta](const std::vector<bool>&) {
    DriverRouting d;
    const auto local = mask_of(topo, [&](NodeId h) { return !has_dc || topo.node_dc[h] == dc; });
    const auto in_rack =
        mask_of(topo, [&](NodeId h) { return has_rack && topo.node_dc[h] == dc && topo.racks[topo.node_rack[h]] == rack; });
    if (ta) {
      if (has_rack) d.tiers.push_back({in_rack, false});
      if (has_dc) d.tiers.push_back({local, false});
      if (!has_dc || failover) d.tiers.push_back({std::vector<std::uint8_t>(topo.size(), 1), false});
    }
    d.pick = Pick::Uniform;
    // Nodes by their lowest token (unique_nodes_in_global_ring / _in_datacenter_ring).
    std::vector<NodeId> all(topo.size());
    std::iota(all.begin(), all.end(), NodeId{0});
    auto lowest = [&](NodeId h) { return *std::min_element(topo.nodes[h].tokens.begin(), topo.nodes[h].tokens.end()); };
    std::sort(all.begin(), all.end(), [&](NodeId a, NodeId b) { return lowest(a) < lowest(b); });
    std::vector<NodeId> locals;
    for (NodeId h : all)
      if (local[h]) locals.push_back(h);
    if (has_rack) d.child.push_back({locals, true, true, in_rack});
    d.child.push_back({locals, true, true, {}});
    if (failover) d.child.push_back({all, true, true, {}});
    return d;
  };
  return s;
}

// ---- Node.js -------------------------------------------------------------------------------

// A Node.js policy as (the hosts its distance calls LOCAL, its routing): recursive through
// NodeAllowList.
std::optional<DriverRouting> node_routing(const Json& spec, const Topology& topo, std::vector<std::uint8_t>& local,
                                          std::string& why) {
  const std::string type = str_or(spec, "type", "");
  if (type == "NodeDCAwareRoundRobin") {
    const std::uint32_t dc = dc_or(topo, spec, topo.node_dc[0]);
    local = mask_of(topo, [&](NodeId h) { return topo.node_dc[h] == dc; });
    DriverRouting d;
    d.child.push_back({hosts_of(topo, [&](NodeId h) { return local[h] != 0; }), true, true, {}});
    return d;
  }
  if (type == "NodeAllowList") {
    std::vector<std::uint8_t> allowed(topo.size(), 0);
    for (const auto& id : spec["hosts"]) allowed[*topo.node_index(id.get<std::string>())] = 1;
    auto d = node_routing(spec["child"], topo, local, why);
    if (!d) return d;
    if (d->eligible.empty()) d->eligible.assign(topo.size(), 1);
    for (NodeId h = 0; h < topo.size(); ++h) {
      d->eligible[h] &= allowed[h];
      local[h] &= allowed[h];  // distance IGNORED outside the list
    }
    return d;
  }
  if (type == "NodeTokenAware") {
    if (const std::string src = str_or(spec, "replica_source", "correct"); src != "correct") {
      why = replica_source_reason(src);
      return std::nullopt;
    }
    std::vector<std::uint8_t> child_local;
    auto d = node_routing(spec["child"], topo, child_local, why);
    if (!d) return d;
    d->tiers = {{child_local, false}};
    d->pick = Pick::Rotation;
    local = child_local;
    return d;
  }
  if (type == "NodeDefault") {
    why = "adaptive: NodeDefault puts the first two replicas in order of their requests in flight (power of two choices) and "
          "unhealthy ones (10 or more in flight, at most one response in 200 ms) last";
    return std::nullopt;
  }
  why = "policy " + type + " is not modelled";
  return std::nullopt;
}

// The first eligible host of `seq` from a uniform start (gap shares) or from its head, into `out`.
// False when none is eligible.
template <class Ok>
bool first_of(const std::vector<NodeId>& seq, bool rotated, Ok ok, std::vector<std::pair<int, double>>& out) {
  std::vector<std::size_t> pos;
  for (std::size_t i = 0; i < seq.size(); ++i)
    if (ok(seq[i])) pos.push_back(i);
  if (pos.empty()) return false;
  if (!rotated) {
    out.emplace_back(static_cast<int>(seq[pos[0]]), 1.0);
    return true;
  }
  const double m = static_cast<double>(seq.size());
  for (std::size_t k = 0; k < pos.size(); ++k) {
    const std::size_t prev = pos[(k + pos.size() - 1) % pos.size()];
    const std::size_t gap = pos.size() == 1 ? seq.size() : (pos[k] + seq.size() - prev) % seq.size();
    out.emplace_back(static_cast<int>(seq[pos[k]]), static_cast<double>(gap) / m);
  }
  return true;
}

}  // namespace

bool is_driver_policy(const std::string& type) {
  for (const char* p : {"Go", "Python", "Rust", "Node"})
    if (type.rfind(p, 0) == 0) return true;
  return false;
}

std::optional<RoutingSpec> driver_routing_spec(const Json& spec, const Topology& topo, std::string& why) {
  const std::string type = str_or(spec, "type", "");
  if (type.rfind("Go", 0) == 0) return go_spec(spec, topo, why);
  if (type.rfind("Python", 0) == 0) return python_spec(spec, topo, why);
  if (type.rfind("Rust", 0) == 0) return rust_spec(spec, topo, why);
  std::vector<std::uint8_t> local;
  auto d = node_routing(spec, topo, local, why);
  if (!d) return std::nullopt;
  RoutingSpec s;
  s.token_aware = !d->tiers.empty();
  s.driver = [d = *d](const std::vector<bool>&) { return d; };
  return s;
}

Routing driver_coordinator_routing(const TokenRing& ring, const DriverRouting& d, const std::vector<bool>& down) {
  const Topology& topo = ring.topology();
  const std::size_t n = topo.size();
  auto ok = [&](NodeId h) { return !down[h] && (d.eligible.empty() || d.eligible[h]); };
  Routing out;
  out.unrouted = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n));
  std::vector<std::pair<int, double>> entries;
  std::vector<NodeId> seq;
  for (const List& l : d.child) {
    seq.clear();
    for (NodeId h : l.hosts)
      if (l.keeps_down || !down[h]) seq.push_back(h);
    if (first_of(seq, l.rotated, [&](NodeId h) { return ok(h) && (l.mask.empty() || l.mask[h]); }, entries)) break;
  }
  for (const auto& [h, p] : entries) out.unrouted[h] += p;
  const bool any_first = !entries.empty();

  out.routed.resize(static_cast<Eigen::Index>(ring.size()), static_cast<Eigen::Index>(n));
  out.fallback.assign(ring.size(), 0);
  std::vector<NodeId> replicas, members;
  std::size_t empty = 0;
  for (std::size_t r = 0; r < ring.size(); ++r) {
    const auto given = ring.replicas_at(r, ReplicaOrder::Driver);
    replicas.assign(given.begin(), given.end());
    if (!d.dc_rank.empty())
      std::stable_sort(replicas.begin(), replicas.end(),
                       [&](NodeId a, NodeId b) { return d.dc_rank[topo.node_dc[a]] < d.dc_rank[topo.node_dc[b]]; });
    entries.clear();
    bool previous_has_member = true;
    for (const Tier& t : d.tiers) {
      if (t.gated && !previous_has_member) break;
      members.clear();
      for (NodeId h : replicas)
        if (t.member[h]) members.push_back(h);
      previous_has_member = !members.empty();
      if (d.pick == Pick::Uniform) {
        std::size_t k = 0;
        for (NodeId h : members) k += ok(h) ? 1 : 0;
        for (NodeId h : members)
          if (ok(h)) entries.emplace_back(static_cast<int>(h), 1.0 / static_cast<double>(k));
        if (k > 0) break;
      } else if (first_of(members, d.pick == Pick::Rotation, ok, entries)) {
        break;
      }
    }
    if (entries.empty()) {
      if (!any_first) ++empty;
      out.fallback[r] = 1;
      continue;
    }
    std::sort(entries.begin(), entries.end());
    for (const auto& [h, p] : entries) out.routed.insert(static_cast<Eigen::Index>(r), h) = p;
  }
  out.routed.makeCompressed();
  out.no_host = ring.size() ? static_cast<double>(empty) / static_cast<double>(ring.size()) : 0.0;
  return out;
}

}  // namespace lbsim
