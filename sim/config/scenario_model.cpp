// Scenario sections of the cluster model: distributions, node model, timeouts, retry, speculative
// execution, faults (the network and node membership: scenario_layout.cpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "sim/config/mech_spec_input.hpp"
#include "sim/config/scenario_parts.hpp"

namespace lbsim::scenario_detail {

using jsonin::Object;

namespace {
constexpr double kMaxUs = 3.6e9;  // one hour
}

// The distribution forms of configs/README.md "Units and distributions" in one unit: a bare number
// (constant) | {"dist": "constant", U} | {"dist": "exponential", "mean_U"} | {"dist": "lognormal",
// "mean_U", "p99_U"} | {"dist": "empirical", "percentiles": [[p, value], ...]}; values are
// multiplied by u.scale (microseconds to the simulator's nanoseconds; bytes stay bytes).
Dist parse_dist_in(const Json& j, const std::string& path, const DistUnit& u) {
  const std::string c = u.key, m = "mean_" + c, q = "p99_" + c;
  if (j.is_number()) return Dist::constant(jsonin::as_number(j, path, u.min, u.max) * u.scale);
  if (!j.is_object())
    jsonin::fail(path, fmt::format("expected a number of {} or a distribution object, got {}", u.noun,
                                   jsonin::type_name(j)));
  const std::string kind = Object(j, path, {"dist", c, m, q, "percentiles"}).str("dist");
  if (kind == "constant") {
    Object o(j, path, {"dist", c});
    return Dist::constant(o.number(c, u.min, u.max) * u.scale);
  }
  if (kind == "exponential") {
    Object o(j, path, {"dist", m});
    return Dist::exponential(o.number(m, u.min, u.max) * u.scale);
  }
  if (kind == "lognormal") {
    Object o(j, path, {"dist", m, q});
    const double mean = o.number(m, u.lognormal_mean_min, u.max);
    const double max_ratio = Dist::lognormal_max_ratio();
    const double p99 = o.number(q, u.min, u.max);
    if (!(p99 > mean) || p99 > mean * max_ratio)
      jsonin::fail(o.path_of(q), fmt::format("a lognormal needs {} < {} <= {:.2f} x {} (here ({}, {:.6g}]), got {}", m, q,
                                             max_ratio, m, mean, mean * max_ratio, p99));
    return Dist::lognormal(mean * u.scale, p99 * u.scale);
  }
  if (kind == "empirical") {
    Object o(j, path, {"dist", "percentiles"});
    const std::string pp = o.path_of("percentiles");
    const Json& arr = jsonin::as_array(o.at("percentiles"), pp);
    std::vector<std::pair<double, double>> pts;
    for (std::size_t i = 0; i < arr.size(); ++i) {
      const std::string ip = jsonin::index_path(pp, i);
      const Json& row = jsonin::as_array(arr[i], ip);
      if (row.size() != 2) jsonin::fail(ip, fmt::format("expected [percentile, {}]", u.noun));
      const double p = jsonin::as_number(row[0], jsonin::index_path(ip, 0), 0, 100);
      const double v = jsonin::as_number(row[1], jsonin::index_path(ip, 1), u.min, u.max);
      if (!pts.empty() && (p <= pts.back().first * 100 || v < pts.back().second / u.scale))
        jsonin::fail(ip, "percentiles must increase strictly and values must not decrease");
      pts.emplace_back(p / 100.0, v * u.scale);
    }
    if (pts.size() < 2 || pts.front().first != 0.0 || pts.back().first != 1.0)
      jsonin::fail(pp, "needs at least two points, the first at percentile 0 and the last at 100");
    return Dist::empirical(std::move(pts));
  }
  jsonin::fail(path + "/dist", "unknown value '" + kind + "'; valid: constant, exponential, lognormal, empirical");
}

Dist parse_dist(const Json& j, const std::string& path) {
  return parse_dist_in(j, path, DistUnit{"us", "microseconds", 1e3, 0, 1e-3, kMaxUs});
}

const std::vector<std::string>& node_model_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"shards", "discipline", "service", "speed", "cross_shard", "server",
                               "max_concurrent_requests_per_shard"};
    // The keys of the mechanisms whose parsers live in their folders (sim/mech/specs.inc).
    for (std::string& key : mechanism_keys(MechSection::Cluster)) k.push_back(std::move(key));
    return k;
  }();
  return keys;
}

NodeModelSpec parse_node_model(const Json& cluster, const std::string& path, const Topology& topo,
                               const std::optional<Sharding>& sharding) {
  std::vector<std::string> allowed = cluster_topology_keys();
  allowed.insert(allowed.end(), node_model_keys().begin(), node_model_keys().end());
  Object o(cluster, path, allowed);
  NodeModelSpec s;
  const std::int64_t dflt_shards = sharding ? static_cast<std::int64_t>(sharding->nr_shards) : 4;
  s.shards = static_cast<std::uint32_t>(o.integer("shards", 1, 1024, dflt_shards));
  if (sharding) {
    if (sharding->nr_shards != s.shards)
      jsonin::fail(o.path_of("shards"), fmt::format("{} differs from sharding.nr_shards = {}; give one of them or "
                                                    "make them equal",
                                                    s.shards, sharding->nr_shards));
    s.msb_ignore = sharding->msb_ignore;
  }
  s.discipline = o.choice<Discipline>("discipline", {{"per_shard", Discipline::PerShard}, {"shared", Discipline::Shared}},
                                      Discipline::PerShard);
  if (const Json* sv = o.find("service")) {
    Object so(*sv, o.path_of("service"), {"coordinator", "read", "write", "row_cost"});
    if (const Json* d = so.find("coordinator")) s.coordinator = parse_dist(*d, so.path_of("coordinator"));
    if (const Json* d = so.find("read")) s.read = parse_dist(*d, so.path_of("read"));
    if (const Json* d = so.find("write")) s.write = parse_dist(*d, so.path_of("write"));
    s.row_cost = so.number("row_cost", 0, 1000, s.row_cost);
  }
  if (const Json* cs = o.find("cross_shard")) {
    // The fractional "cost" (x the node's work for the request) is gone: a hop's CPU is absolute.
    if (cs->is_object() && cs->contains("cost"))
      jsonin::fail(jsonin::key_path(o.path_of("cross_shard"), "cost"),
                   "removed: a hop's CPU is absolute, not a fraction of the operation's; give "
                   "/cluster/cross_shard/hop_ns instead (ns per hop, 0 to 1000000000, default 1900)");
    Object co(*cs, o.path_of("cross_shard"), {"hop_ns", "latency", "rpc_lands_on_sender_shard"});
    s.cross_shard_hop_ns = co.number("hop_ns", 0, 1e9, s.cross_shard_hop_ns);
    if (const Json* d = co.find("latency")) s.cross_shard_latency = parse_dist(*d, co.path_of("latency"));
    s.rpc_on_sender_shard = co.boolean("rpc_lands_on_sender_shard", s.rpc_on_sender_shard);
  }
  if (const Json* sv = o.find("server")) {
    const std::string name = jsonin::as_string(*sv, o.path_of("server"));
    std::vector<std::string> names;
    bool found = false;
    for (std::size_t k = 0; k < kServerReleases && !found; ++k) {
      const auto r = static_cast<ServerRelease>(k);
      names.emplace_back(server_rules(r).name);
      if (name == server_rules(r).name) {
        s.server = r;
        found = true;
      }
    }
    if (!found) jsonin::fail(o.path_of("server"), "unknown value '" + name + "'; valid: " + jsonin::join(names));
  }
  if (o.has("max_concurrent_requests_per_shard")) {
    const std::string mp = o.path_of("max_concurrent_requests_per_shard");
    if (!server_rules(s.server).admission_limit)
      jsonin::fail(mp, fmt::format("is a ScyllaDB option; cluster.server '{}' has no admission limit (valid with: "
                                   "unspecified, scylla-*)",
                                   server_rules(s.server).name));
    s.max_requests_per_shard =
        static_cast<std::uint32_t>(o.integer("max_concurrent_requests_per_shard", 1, 1'000'000'000, 1));
  }
  s.speed.assign(topo.size(), 1.0);
  if (const Json* sp = o.find("speed")) {
    const std::string spp = o.path_of("speed");
    if (!sp->is_object()) jsonin::fail(spp, fmt::format("expected an object {{\"node id\": factor}}, got {}", jsonin::type_name(*sp)));
    for (const auto& [id, v] : sp->items()) {
      const auto n = topo.node_index(id);
      if (!n) {
        std::vector<std::string> ids;
        for (const auto& node : topo.nodes) ids.push_back(node.id);
        jsonin::fail(jsonin::key_path(spp, id), "unknown node '" + id + "'; valid: " + jsonin::join(ids));
      }
      s.speed[*n] = jsonin::as_number(v, jsonin::key_path(spp, id), 0.001, 1000);
    }
  }
  return s;
}

TimeoutSpec parse_timeouts(const Json* j, const std::string& path) {
  TimeoutSpec s;
  if (!j) return s;
  Object o(*j, path, {"read_ms", "write_ms", "client_ms", "shed_expired", "cas_ms", "native_transport_ms"});
  s.read = from_ms(o.number("read_ms", 1e-3, 3.6e6, to_ms(s.read)));
  s.write = from_ms(o.number("write_ms", 1e-3, 3.6e6, to_ms(s.write)));
  s.client = from_ms(o.number("client_ms", 1e-3, 3.6e6, to_ms(s.client)));
  s.shed_expired = o.boolean("shed_expired", s.shed_expired);
  s.cas = from_ms(o.number("cas_ms", 1e-3, 3.6e6, to_ms(s.cas)));
  s.native_transport = from_ms(o.number("native_transport_ms", 1e-3, 3.6e6, to_ms(s.native_transport)));
  return s;
}

RetrySpec parse_retry(const Json* j, const std::string& path) {
  RetrySpec s;
  if (!j) return s;
  Object o(*j, path, {"policy", "unavailable_retries", "error_retries", "num_retries", "idempotent"});
  s.kind = o.choice<RetryPolicyKind>("policy",
                                     {{"default", RetryPolicyKind::Default},
                                      {"never", RetryPolicyKind::Never},
                                      {"java3-default", RetryPolicyKind::Java3},
                                      {"java4-default", RetryPolicyKind::Java4},
                                      {"python-default", RetryPolicyKind::Python},
                                      {"gocql-simple", RetryPolicyKind::GocqlSimple},
                                      {"rust-default", RetryPolicyKind::Rust},
                                      {"nodejs-default", RetryPolicyKind::Nodejs}},
                                     RetryPolicyKind::Default);
  s.enabled = s.kind != RetryPolicyKind::Never;
  const bool lbsim_rule = s.kind == RetryPolicyKind::Default || s.kind == RetryPolicyKind::Never;
  for (const char* k : {"unavailable_retries", "error_retries"})
    if (o.has(k) && !lbsim_rule)
      jsonin::fail(o.path_of(k), "applies to \"policy\": \"default\" only (the drivers' policies have their own counts)");
  if (o.has("num_retries") && s.kind != RetryPolicyKind::GocqlSimple)
    jsonin::fail(o.path_of("num_retries"), "applies to \"policy\": \"gocql-simple\" only");
  if (o.has("idempotent") && lbsim_rule)
    jsonin::fail(o.path_of("idempotent"), "applies to the drivers' policies only (java3-default, java4-default, "
                                          "python-default, gocql-simple, rust-default, nodejs-default)");
  s.unavailable_retries = static_cast<std::uint32_t>(o.integer("unavailable_retries", 0, 10, s.unavailable_retries));
  s.error_retries = static_cast<std::uint32_t>(o.integer("error_retries", 0, 10, s.error_retries));
  s.num_retries = static_cast<std::uint32_t>(o.integer("num_retries", 0, 10, s.num_retries));
  s.idempotent = o.boolean("idempotent", s.idempotent);
  return s;
}

FaultSpec parse_faults(const Json* j, const std::string& path, const Topology& topo, const NodeModelSpec& nodes,
                       const ChangeSpec& changes) {
  FaultSpec s;
  if (!j) return s;
  std::vector<std::string> keys{"driver_detection_ms", "server_detection_ms", "events"};
  for (std::string& k : mechanism_keys(MechSection::Faults)) keys.push_back(std::move(k));  // sim/mech/specs.inc
  Object o(*j, path, keys);
  s.driver_detection = from_ms(o.number("driver_detection_ms", 0, 3.6e6, to_ms(s.driver_detection)));
  s.server_detection = from_ms(o.number("server_detection_ms", 0, 3.6e6, to_ms(s.server_detection)));
  if (const Json* ev = o.find("events")) {
    const std::string ep = o.path_of("events");
    jsonin::as_array(*ev, ep, true);
    for (std::size_t i = 0; i < ev->size(); ++i) {
      Object fo((*ev)[i], jsonin::index_path(ep, i), {"at_s", "node", "kind", "duration_s", "factor", "speed", "shard"});
      FaultEvent f;
      f.at = from_ms(fo.number("at_s", 0, 1e6) * 1e3);
      const std::string id = fo.str("node");
      const auto n = topo.node_index(id);
      if (!n) {
        std::vector<std::string> ids;
        for (const auto& nd : topo.nodes) ids.push_back(nd.id);
        if (ids.size() > 12) ids.resize(12), ids.emplace_back("...");
        jsonin::fail(fo.path_of("node"), "unknown node '" + id + "'; valid: " + jsonin::join(ids));
      }
      f.node = *n;
      f.kind = fo.choice<FaultKind>("kind", {{"down", FaultKind::Down}, {"kill", FaultKind::Kill}, {"up", FaultKind::Up},
                                             {"slow", FaultKind::Slow}, {"pause", FaultKind::Pause},
                                             {"restart", FaultKind::Restart}});
      const bool timed = f.kind == FaultKind::Slow || f.kind == FaultKind::Pause;
      if (timed && !fo.has("duration_s")) jsonin::fail(fo.path_of("duration_s"), "required for slow and pause faults");
      if (f.kind == FaultKind::Up && fo.has("duration_s")) jsonin::fail(fo.path_of("duration_s"), "not allowed for an up event");
      f.duration = from_ms(fo.number("duration_s", 1e-6, 1e6, 0) * 1e3);
      // A slow fault takes either "factor" (service times x factor: 6 = six times slower) or "speed"
      // (service times / speed, as cluster.speed: 0.5 = half as fast), never both.
      if (f.kind == FaultKind::Slow) {
        if (fo.has("factor") == fo.has("speed"))
          jsonin::fail(fo.path_of("factor"), "a slow fault takes one of \"factor\" (service time multiplier, > 1 is "
                                             "slower) or \"speed\" (as cluster.speed: service times divided by it, < 1 "
                                             "is slower)");
        f.factor = fo.has("factor") ? fo.number("factor", 1e-3, 1e4) : 1.0 / fo.number("speed", 1e-4, 1e3);
      } else if (fo.has("factor") || fo.has("speed")) {
        jsonin::fail(fo.path_of(fo.has("factor") ? "factor" : "speed"), "only slow faults take a factor or a speed");
      }
      // A slow fault may name one shard (shard-pinned background work, scylladb/scylladb#3156).
      if (fo.has("shard")) {
        if (f.kind != FaultKind::Slow) jsonin::fail(fo.path_of("shard"), "only slow faults take a shard");
        if (nodes.discipline != Discipline::PerShard)
          jsonin::fail(fo.path_of("shard"), "a shard needs \"cluster.discipline\": \"per_shard\" (with shared, "
                                            "no server is a fixed shard)");
        f.shard = static_cast<std::int32_t>(fo.integer("shard", 0, static_cast<std::int64_t>(nodes.shards) - 1));
      }
      // Only a member can fail: not before its add_node, nor at or after its decommission or
      // remove_node (a restart would bring a removed node back as a coordinator).
      bool at_end = false;
      const bool lasts = f.kind != FaultKind::Up && f.duration > 0;
      if (const std::string why = membership_problem(f.node, f.at, lasts ? f.at + f.duration : f.at, topo, changes, at_end);
          !why.empty())
        jsonin::fail(fo.path_of(at_end ? "duration_s" : "at_s"), why);
      s.events.push_back(f);
    }
    std::stable_sort(s.events.begin(), s.events.end(), [](const FaultEvent& a, const FaultEvent& b) { return a.at < b.at; });
  }
  return s;
}

}  // namespace lbsim::scenario_detail
