// Scenario assembly: top-level keys, section parsers, cross-section checks (the --set patches: scenario_set.cpp).
#include "sim/config/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "policies/registry.hpp"
#include "sim/config/import.hpp"
#include "sim/config/mech_spec_input.hpp"
#include "sim/mech/placement/placement_rules.hpp"
#include "sim/mech/placement/placement_spec.hpp"
#include "sim/config/scenario_parts.hpp"

namespace lbsim {

using jsonin::Json;
using jsonin::Object;
using namespace scenario_detail;

namespace {

constexpr std::size_t kMaxDcs = 16;  // the coordinator model's per-DC arrays
constexpr std::size_t kMaxReplicas = 64;
constexpr std::size_t kMaxNodes = 46340;  // node x node latency table within 2^31 bytes
constexpr std::size_t kMaxNameChars = 128;  // a scenario's name, in a folder name of at most 255 bytes

std::string fnv_hex(const std::string& s) {
  return fmt::format("{:016x}", stream_hash(s));
}

// Every "local_dc" inside a policy spec must name a datacenter of the topology.
void check_local_dcs(const Json& j, const std::string& path, const Topology& topo) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      const std::string p = jsonin::key_path(path, k);
      if (k == "local_dc" && v.is_string() && !topo.dc_index(v.get<std::string>()))
        jsonin::fail(p, "unknown datacenter '" + v.get<std::string>() + "'; valid: " + jsonin::join(topo.dcs));
      check_local_dcs(v, p, topo);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) check_local_dcs(j[i], jsonin::index_path(path, i), topo);
  }
}

// Why the keyspace and topology can never meet `cl` (every request would be Unavailable with every
// node up), or "" when they can. The counts are those of sim/cluster/coordination.hpp: QUORUM and
// ALL over the configured RFs, LOCAL_* in the client's DC (where DC-aware policies coordinate),
// EACH_QUORUM in every DC of the replication map.
std::string cl_problem(ConsistencyLevel cl, const Scenario& sc) {
  const Topology& topo = sc.topology();
  const Replication& repl = sc.ring->replication();
  const std::string name(to_string(cl));
  const std::size_t replicas = sc.ring->replicas_per_range();
  auto need_total = [&](std::size_t need) -> std::string {
    if (need <= replicas) return "";
    return fmt::format("{} needs {} replica{} but every range has {} ({}): every request would be Unavailable", name,
                       need, need == 1 ? "" : "s", replicas, repl.describe());
  };
  int total_rf = repl.kind == StrategyKind::Simple ? repl.simple_rf : 0;
  if (repl.kind == StrategyKind::NetworkTopology)
    for (const auto& [dc, rf] : repl.dc_rf) total_rf += rf;
  switch (cl) {
    case ConsistencyLevel::Any:
    case ConsistencyLevel::One: return need_total(1);
    case ConsistencyLevel::Two: return need_total(2);
    case ConsistencyLevel::Three: return need_total(3);
    case ConsistencyLevel::Quorum:
    case ConsistencyLevel::Serial: return need_total(static_cast<std::size_t>(total_rf / 2 + 1));
    case ConsistencyLevel::All: return need_total(static_cast<std::size_t>(total_rf));
    default: break;
  }
  if (is_dc_local(cl)) {
    const std::string& dc = sc.client.dc;
    const int rf = repl.kind == StrategyKind::Simple ? repl.simple_rf : repl.rf_for_dc(dc);
    if (rf <= 0)
      return fmt::format("{} needs replicas in the client's datacenter '{}', but the keyspace has none there ({})", name,
                         dc, repl.describe());
    const std::uint32_t nodes = topo.dc_node_count[sc.client.dc_index];
    if (cl != ConsistencyLevel::LocalOne && static_cast<std::uint32_t>(rf / 2 + 1) > nodes)
      return fmt::format("{} needs {} replicas in '{}', which has {} node{} ({})", name, rf / 2 + 1, dc, nodes,
                         nodes == 1 ? "" : "s", repl.describe());
    return "";
  }
  if (cl == ConsistencyLevel::EachQuorum) {
    if (repl.kind != StrategyKind::NetworkTopology) return "EACH_QUORUM needs NetworkTopologyStrategy";
    // Every DC of the replication map, as Cassandra's ReplicaPlans counts them: one without nodes
    // can give no quorum.
    for (const auto& [dc, rf] : repl.dc_rf) {
      const auto d = topo.dc_index(dc);
      const std::uint32_t nodes = d ? topo.dc_node_count[*d] : 0;
      if (rf > 0 && static_cast<std::uint32_t>(rf / 2 + 1) > nodes)
        return fmt::format("EACH_QUORUM needs {} replicas in '{}', which has {} node{} ({})", rf / 2 + 1, dc,
                           nodes == 0 ? "no" : std::to_string(nodes), nodes == 1 ? "" : "s", repl.describe());
    }
  }
  return "";
}

void check_cl(ConsistencyLevel cl, bool read, const std::string& path, const Scenario& sc, bool lwt = false) {
  const std::string name(to_string(cl));
  const bool serial = cl == ConsistencyLevel::Serial || cl == ConsistencyLevel::LocalSerial;
  if (serial && !lwt)
    jsonin::fail(path, name + " is the serial consistency of lightweight transactions: give them as workload.mix.lwt "
                              "with workload.consistency.lwt; valid here: ONE, TWO, THREE, QUORUM, ALL, LOCAL_ONE, "
                              "LOCAL_QUORUM, EACH_QUORUM (and ANY for writes)");
  if (cl == ConsistencyLevel::Any && read) jsonin::fail(path, "ANY is for writes only (Cassandra rejects ANY reads)");
  const std::string why = cl_problem(cl, sc);
  if (why.empty()) return;
  // What this keyspace and topology do allow, for this kind of operation.
  std::vector<std::string> allowed;
  for (std::size_t c = 0; c < kConsistencyLevelCount; ++c) {
    const auto other = static_cast<ConsistencyLevel>(c);
    const bool other_serial = other == ConsistencyLevel::Serial || other == ConsistencyLevel::LocalSerial;
    if (other_serial != lwt || (read && other == ConsistencyLevel::Any)) continue;
    if (cl_problem(other, sc).empty()) allowed.emplace_back(to_string(other));
  }
  const char* what = lwt ? "lightweight transactions" : (read ? "reads" : "writes");
  jsonin::fail(path, allowed.empty()
                         ? fmt::format("{}; this keyspace and topology meet no consistency level for {}", why, what)
                         : fmt::format("{}; for {} this keyspace and topology allow: {}", why, what, jsonin::join(allowed)));
}

// The initial tablet map of a tablet keyspace (initial_tablet_map, on the members' shards).
void build_tablets(Scenario& sc) {
  if (sc.nodes.discipline != Discipline::PerShard)
    jsonin::fail("/keyspace/tablets", "tablets are ScyllaDB's and place replicas on shards: they need "
                                      "\"cluster.discipline\": \"per_shard\"");
  // The release's count rule (configs/README.md "Tablet count, split and merge by release").
  const ServerRules rules = server_rules(sc.nodes.server);
  const PlacementRules prules = placement_rules(sc.nodes.server);
  const PlacementSpec& ps = *sc.mech.get<PlacementSpec>(MechSpecs::k_placement);  // present with tablets
  const TabletOptions& opts = *sc.cluster.replication.tablets;
  if (prules.count_rule == TabletCountRule::Initial && !opts.initial)
    jsonin::fail("/keyspace/tablets/initial",
                 fmt::format("required with cluster.server '{}': ScyllaDB 5.4, its base, counts a table's tablets "
                             "only from the keyspace's initial_tablets (releases that compute it: scylla-2025.1, "
                             "scylla-2025.2, scylla-2026.1)",
                             rules.name));
  if (prules.count_rule != TabletCountRule::Target)
    for (const auto& [given, key] : {std::pair{opts.min_tablet_count.has_value(), "min_tablet_count"},
                                     std::pair{opts.min_per_shard_tablet_count.has_value(), "min_per_shard_tablet_count"}})
      if (given)
        jsonin::fail(std::string("/keyspace/tablets/") + key,
                     fmt::format("is a table option of ScyllaDB 2025.2 and later (commit c5668d99c9); cluster.server "
                                 "'{}' has only 'initial' and 'scale_factor' (valid with: scylla-2025.2, scylla-2026.1)",
                                 rules.name));
  if (ps.legacy_tablet_size_mb >= 0) {
    // The old key sized a tablet of lbsim's own count rule: name the table it meant.
    auto num = [](double v) { return v == std::floor(v) ? fmt::format("{:.0f}", v) : fmt::format("{}", v); };
    const std::uint64_t own = initial_tablet_map(sc.topology(), sc.cluster.replication, sc.nodes.shards,
                                                 sc.changes.initial_nodes, Rng(sc.seed))
                                  .count();
    jsonin::fail(ps.legacy_tablet_size_path,
                 fmt::format("is refused: it gave a tablet's size under lbsim's own count rule ({} tablets here), not "
                             "under cluster.server's; give the table's data instead, which each release divides by "
                             "its own count: \"table_size_mb\": {} ({} x {})",
                             own, num(ps.legacy_tablet_size_mb * static_cast<double>(own)),
                             num(ps.legacy_tablet_size_mb), own));
  }
  sc.tablet_table_mb = ps.table_size_mb;
  auto map = std::make_shared<TabletMap>(initial_tablet_map(sc.topology(), sc.cluster.replication, sc.nodes.shards,
                                                            sc.changes.initial_nodes, Rng(sc.seed), tablet_rules(prules),
                                                            sc.tablet_table_mb));
  sc.tablets = std::make_shared<TokenRing>(TokenRing::from_tablets(sc.topology(), sc.cluster.replication, *map));
  // Fewer tablets than a DC's shards: a shard's load is that of the whole tablets it holds, and some
  // shards hold none or twice the others' (the count and size the release derived are named).
  const Topology& topo = sc.topology();
  for (std::uint32_t d = 0; d < topo.dcs.size(); ++d) {
    std::vector<std::uint32_t> per_shard;  // tablet replicas per (member node, shard) of the DC
    std::vector<NodeId> members;
    for (NodeId n = 0; n < sc.changes.initial_nodes && n < topo.size(); ++n)
      if (topo.node_dc[n] == d) members.push_back(n);
    const std::uint64_t shards = members.size() * std::uint64_t{sc.nodes.shards};
    if (shards == 0 || map->count() >= shards) continue;
    per_shard.assign(shards, 0);
    for (const TabletReplica& r : map->all()) {
      const auto it = std::find(members.begin(), members.end(), r.host);
      if (it != members.end()) ++per_shard[static_cast<std::size_t>(it - members.begin()) * sc.nodes.shards + r.shard];
    }
    const auto [lo, hi] = std::minmax_element(per_shard.begin(), per_shard.end());
    const std::string size =
        sc.tablet_table_mb > 0
            ? fmt::format(" of {:.6g} MiB (changes.migration.table_size_mb {:.6g} over {})",
                          sc.tablet_table_mb / static_cast<double>(map->count()), sc.tablet_table_mb, map->count())
            : "";
    sc.warnings.push_back(fmt::format(
        "cluster.server '{}' gives the table {} tablets{} for the {} shards of '{}': fewer tablets than shards, so a "
        "shard's load is its whole tablets' ({} to {} replicas per shard at RF {}); keyspace.tablets.initial or "
        "scale_factor raise the count",
        rules.name, map->count(), size, shards, topo.dcs[d], *lo, *hi, sc.cluster.replication.rf_for_dc(topo.dcs[d])));
  }
  sc.tablet_map = std::move(map);
  // Streaming that costs nothing, said once (issue 44.10): no measurement gives the CPU per MB, so
  // the defaults are 0, and ScyllaDB's own default leaves a node's streaming unthrottled.
  const PlacementSpec& ch = ps;
  if (sc.changes.any() && ch.cpu_send_us_per_mb <= 0 && ch.cpu_receive_us_per_mb <= 0) {
    const double per_node = ch.stream_mb_s * ch.max_out_per_shard * sc.nodes.shards;
    const std::string bound =
        ch.node_stream_mb_s > 0
            ? fmt::format("each node's streaming is bounded by node_stream_mb_s ({:.6g} MB/s)", ch.node_stream_mb_s)
            : fmt::format("node_stream_mb_s is 0 (unthrottled, ScyllaDB's default), so a node may send up to {:.6g} MB/s "
                          "(max_out_per_shard {} x {} shards x stream_mb_s {:.6g})",
                          per_node, ch.max_out_per_shard, sc.nodes.shards, ch.stream_mb_s);
    sc.warnings.push_back(fmt::format(
        "changes.migration: streaming costs the requests nothing in this run: cpu_send_us_per_mb and "
        "cpu_receive_us_per_mb are 0 (no measurement gives them), and {}; set changes.migration.cpu_send_us_per_mb, "
        "cpu_receive_us_per_mb and node_stream_mb_s to give it a cost (configs/README.md \"changes\")",
        bound));
  }
}

}  // namespace

const PolicyEntry* Scenario::find_policy(const std::string& n) const {
  for (const auto& p : policies)
    if (p.name == n) return &p;
  return nullptr;
}

Scenario scenario_from_json(Json doc, const std::string& file, const std::string& dir) {
  Scenario sc;
  sc.file = file;
  sc.dir = dir;
  std::vector<std::string> top{"name", "description", "seed", "cluster", "keyspace", "network", "client", "clients",
                               "workload", "timeouts", "retry", "faults", "changes", "report",
                               "policies", "reproduces"};
  for (std::string& k : mechanism_keys(MechSection::Top)) top.push_back(std::move(k));
  Object o(doc, "", top);
  sc.name = o.str("name");
  // It names the results folder, which gets suffixes (".latest", ".2"): within a file name's 255 bytes.
  if (sc.name.empty() || sc.name.size() > kMaxNameChars)
    jsonin::fail("/name", fmt::format("must be 1 to {} characters (it names the results folder), got {}", kMaxNameChars,
                                      sc.name.size()));
  if (sc.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos ||
      sc.name[0] == '.')
    jsonin::fail("/name", "'" + sc.name + "' must use only letters, digits, '.', '_' and '-' (it names the results folder)");
  sc.description = o.str("description", "");
  sc.seed = static_cast<std::uint64_t>(
      o.integer("seed", 0, std::numeric_limits<std::int64_t>::max(), static_cast<std::int64_t>(kDefaultScenarioSeed)));

  const Json null;
  const Json* ks = o.find("keyspace");
  const Json* changes = o.find("changes");
  std::vector<std::string> joining_paths;
  std::vector<NodeSpec> joining = parse_joining_nodes(changes, "/changes", &joining_paths);
  sc.cluster = parse_cluster_topology(o.at("cluster"), "/cluster", ks ? *ks : null, "/keyspace", dir, Rng(sc.seed),
                                      node_model_keys(), std::move(joining), joining_paths);
  sc.warnings = sc.cluster.warnings;
  // The engine keeps a node x node table of network latency classes (1 byte each): refuse, with
  // an estimate, clusters whose table would not fit instead of dying of out-of-memory.
  const std::size_t nodes = sc.cluster.topology.size();
  if (nodes > kMaxNodes)
    jsonin::fail("/cluster", fmt::format("{} nodes need a {} x {} network latency table of about {} MB; at most {} "
                                         "nodes are modelled",
                                         nodes, nodes, nodes, nodes * nodes / 1000000, kMaxNodes));
  const std::size_t initial = sc.cluster.initial_nodes;
  std::shared_ptr<TokenRing> ring;
  if (initial == nodes) {
    ring = std::make_shared<TokenRing>(sc.cluster.topology, sc.cluster.replication);
  } else {  // the token map before any node joins
    std::vector<NodeSpec> members(sc.cluster.topology.nodes.begin(), sc.cluster.topology.nodes.begin() + initial);
    ring = std::make_shared<TokenRing>(Topology::build(std::move(members)), sc.cluster.replication);
  }
  for (const auto& w : ring->warnings()) sc.warnings.push_back(w);
  sc.ring = ring;
  const Topology& topo = sc.topology();
  if (topo.dcs.size() > kMaxDcs) jsonin::fail("/cluster", fmt::format("at most {} datacenters are modelled", kMaxDcs));
  if (ring->replicas_per_range() > kMaxReplicas)
    jsonin::fail("/keyspace", fmt::format("at most {} replicas per range are modelled", kMaxReplicas));

  sc.nodes = parse_node_model(o.at("cluster"), "/cluster", topo, sc.cluster.sharding);
  // The mechanisms' specs (sim/mech/specs.inc), section by section where each section is read;
  // the cluster's keys were checked by parse_node_model.
  std::vector<std::string> cluster_keys = cluster_topology_keys();
  cluster_keys.insert(cluster_keys.end(), node_model_keys().begin(), node_model_keys().end());
  const Object cluster(o.at("cluster"), "/cluster", cluster_keys);
  const MechSpecInput mech_in{cluster, doc, sc.nodes, sc.cluster.replication};
  parse_mechanism_specs(mech_in, MechSection::Cluster, sc.mech);
  sc.changes = parse_changes(changes, "/changes", topo, initial, sc.cluster.replication);
  parse_mechanism_specs(mech_in, MechSection::Changes, sc.mech);
  if (sc.cluster.replication.tablets) build_tablets(sc);
  sc.network = parse_network(o.find("network"), "/network", topo);
  if (o.has("client") && o.has("clients"))
    jsonin::fail("/clients", "give either \"client\" (one loader) or \"clients\" (several loaders), not both");
  std::vector<const Json*> loader_policies;  // each `clients` entry's "policy", resolved after `policies`
  if (const Json* cl = o.find("clients")) {
    const Json& arr = jsonin::as_array(*cl, "/clients");
    if (arr.empty() || arr.size() > kMaxLoaders)
      jsonin::fail("/clients", fmt::format("must list 1 to {} loaders, got {}", kMaxLoaders, arr.size()));
    std::set<std::string> loader_names;
    for (std::size_t i = 0; i < arr.size(); ++i) {
      const std::string ip = jsonin::index_path("/clients", i);
      LoaderSpec l;
      l.client = parse_client(&arr[i], ip, topo, {"name", "policy"});
      if (!arr[i].contains("name")) jsonin::fail(jsonin::key_path(ip, "name"), "required field is missing");
      l.name = jsonin::as_string(arr[i]["name"], jsonin::key_path(ip, "name"));
      if (l.name.empty() ||
          l.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos)
        jsonin::fail(jsonin::key_path(ip, "name"), "'" + l.name + "' must be non-empty and use only letters, digits, '.', "
                                                    "'_' and '-'");
      if (!loader_names.insert(l.name).second)
        jsonin::fail(jsonin::key_path(ip, "name"), "duplicate loader name '" + l.name + "'");
      loader_policies.push_back(arr[i].contains("policy") ? &arr[i]["policy"] : nullptr);
      sc.loaders.push_back(std::move(l));
    }
    std::uint64_t threads = 0;
    for (const LoaderSpec& l : sc.loaders) threads += l.client.mode == LoadMode::Closed ? l.client.threads : 0;
    if (threads > 1000000)
      jsonin::fail("/clients", fmt::format("{} threads in all; at most 1000000 closed-loop threads are modelled", threads));
    const ClientSpec& first = sc.loaders.front().client;
    for (std::size_t i = 1; i < sc.loaders.size(); ++i) {
      const ClientSpec& c = sc.loaders[i].client;
      if (c.connections != first.connections || c.pool_size != first.pool_size)
        jsonin::fail(jsonin::key_path(jsonin::index_path("/clients", i), "connections"),
                     "every loader must use the same connections and pool_size (one connection model per run); "
                     "the first loader's here");
    }
    sc.client = first;
  } else {
    sc.client = parse_client(o.find("client"), "/client", topo);
  }
  if (!o.has("workload")) jsonin::fail("/workload", "required field is missing");
  sc.workload = parse_workload(o.at("workload"), "/workload", dir);
  sc.timeouts = parse_timeouts(o.find("timeouts"), "/timeouts");
  sc.retry = parse_retry(o.find("retry"), "/retry");
  parse_mechanism_specs(mech_in, MechSection::Top, sc.mech);
  parse_mechanism_specs(mech_in, MechSection::Faults, sc.mech);
  sc.faults = parse_faults(o.find("faults"), "/faults", topo, sc.nodes, sc.changes);
  if (const Json* r = o.find("report")) {
    Object ro(*r, "/report", {"timeline_interval_s"});
    if (ro.has("timeline_interval_s"))
      sc.report.timeline_interval = from_ms(ro.number("timeline_interval_s", 1e-3, 1e6, 1.0) * 1e3);
  }

  // Cross-section checks.
  if (const Json* t = o.find("timeouts"); t && t->is_object() && t->contains("native_transport_ms") &&
                                          !server_rules(sc.nodes.server).native_transport_timeout)
    jsonin::fail("/timeouts/native_transport_ms",
                 fmt::format("applies to cluster.server 'cassandra-5.0' only (here '{}')",
                             server_rules(sc.nodes.server).name));
  if (sc.client.connections != Connections::None && sc.nodes.discipline != Discipline::PerShard)
    jsonin::fail("/client/connections", "shard_aware and plain connections model ScyllaDB shards: they need "
                                        "\"cluster.discipline\": \"per_shard\" (valid here: none)");
  const WorkloadSpec& w = sc.workload;
  // The mechanisms' own checks against the rest of the scenario (sim/mech/specs.inc).
  check_mechanism_specs(sc);
  if (w.trace) {
    // Before the client checks below, which would name "/client" in a file that has "clients".
    if (!sc.loaders.empty())
      jsonin::fail("/clients", "a trace replays one client's operations: use one \"client\" with a trace");
    if (w.trace_open_loop && sc.client.mode == LoadMode::Open)
      jsonin::fail("/client/rate_ops_s", "an open-loop trace replays its own arrival times; remove rate_ops_s or use "
                                         "trace mode \"closed\"");
    if (!w.trace_open_loop && sc.client.mode == LoadMode::Open)
      jsonin::fail("/client/rate_ops_s", "a closed-loop trace needs \"threads\", not rate_ops_s");
    // Per-record levels: each (level, read or write) pair from its first record on, so the first
    // record the cluster cannot serve is the one named (the records are not kept: issue 14).
    struct FirstUse {
      std::uint64_t record;
      ConsistencyLevel cl;
      bool read;
    };
    std::vector<FirstUse> uses;
    for (std::size_t k = 0; k < 2; ++k)
      for (std::size_t c = 0; c < kConsistencyLevelCount; ++c)
        if (const std::uint64_t first = w.trace->first_cl[k][c])
          uses.push_back({first, static_cast<ConsistencyLevel>(c), k == 0});
    std::sort(uses.begin(), uses.end(), [](const FirstUse& a, const FirstUse& b) { return a.record < b.record; });
    for (const FirstUse& u : uses) check_cl(u.cl, u.read, fmt::format("{} record {}", w.trace_file, u.record), sc);
  }
  if (!sc.loaders.empty()) {
    if (sc.tablet_map)
      jsonin::fail("/clients", "several loaders on a tablet keyspace are not modelled (each loader would need its own "
                               "tablet cache); use one \"client\"");
  }
  // The DC-local levels are checked from every loader's datacenter (the first loader's is sc.client's).
  const ClientSpec first_client = sc.client;
  for (std::size_t l = 0; l < std::max<std::size_t>(1, sc.loaders.size()); ++l) {
    if (!sc.loaders.empty()) sc.client = sc.loaders[l].client;
    if (w.trace || w.read_fraction > 0) check_cl(w.read_cl, true, "/workload/consistency/read", sc);
    if (w.trace || w.read_fraction + w.lwt_fraction < 1) check_cl(w.write_cl, false, "/workload/consistency/write", sc);
    if (w.lwt_fraction > 0) check_cl(w.lwt_cl, false, "/workload/consistency/lwt", sc, true);
    if (w.duration > 0 && w.warmup > 0 && sc.client.mode == LoadMode::Open && sc.client.rate * to_sec(w.duration) < 1)
      jsonin::fail(sc.loaders.empty() ? "/client/rate_ops_s"
                                      : jsonin::key_path(jsonin::index_path("/clients", l), "rate_ops_s"),
                   "the rate gives no operation in the measured duration");
  }
  sc.client = first_client;
  // A topology change at or after a timed run's end does nothing in it (with `ops` the end is not
  // known). Legitimate when a shorter run cuts a longer scenario before its change (measuring the
  // state before a join): a warning, once, naming the first such change.
  if (w.duration > 0 && changes && changes->is_object() && changes->contains("events")) {
    const SimTime end = w.warmup + w.duration;
    const Json& ev = (*changes)["events"];
    std::size_t late = 0, first = 0;
    for (std::size_t i = 0; i < ev.size(); ++i)
      if (from_ms(ev[i]["at_s"].get<double>() * 1e3) >= end && late++ == 0) first = i;
    if (late > 0)
      sc.warnings.push_back(fmt::format("/changes/events/{}/at_s: {:g} s is not before the run's end, {:g} s "
                                        "(workload.warmup_s + duration_s): {} does nothing in this run",
                                        first, ev[first]["at_s"].get<double>(), to_sec(end),
                                        late == 1 ? std::string("this change")
                                                  : fmt::format("this change and {} more", late - 1)));
  }

  // Policies: unique file-safe names, specs that the registry accepts, existing local DCs.
  const std::string pp = "/policies";
  const Json& pols = jsonin::as_array(o.at("policies"), pp);
  std::set<std::string> names;
  policy::BuildContext ctx;
  ctx.topology = &topo;
  ctx.replication = &sc.cluster.replication;
  for (std::size_t i = 0; i < pols.size(); ++i) {
    const std::string ip = jsonin::index_path(pp, i);
    Object po(pols[i], ip, {"name", "policy"});
    PolicyEntry e;
    e.name = po.str("name");
    if (e.name.size() > kMaxNameChars)  // it names the report file (NAME.json and its temporary)
      jsonin::fail(po.path_of("name"), fmt::format("must be 1 to {} characters (it names the report file), got {}",
                                                   kMaxNameChars, e.name.size()));
    if (e.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos ||
        e.name[0] == '.')
      jsonin::fail(po.path_of("name"), "'" + e.name + "' must use only letters, digits, '.', '_' and '-' (it names the "
                                       "report file)");
    if (!names.insert(e.name).second) jsonin::fail(po.path_of("name"), "duplicate policy name '" + e.name + "'");
    e.spec = policy::canonical_spec(po.at("policy"));  // the drivers' class names are aliases
    e.path = po.path_of("policy");
    check_local_dcs(e.spec, e.path, topo);
    (void)policy::make_policy(e.spec, e.path, ctx);  // validates the spec
    sc.policies.push_back(std::move(e));
  }
  // Each loader's own policy: a `policies` entry by name, or an inline spec.
  for (std::size_t l = 0; l < loader_policies.size(); ++l) {
    const Json* pj = loader_policies[l];
    if (!pj) continue;
    const std::string lp = jsonin::key_path(jsonin::index_path("/clients", l), "policy");
    if (pj->is_string()) {
      const std::string want = pj->get<std::string>();
      const PolicyEntry* e = sc.find_policy(want);
      if (!e) {
        std::vector<std::string> valid;
        for (const auto& p : sc.policies) valid.push_back(p.name);
        jsonin::fail(lp, "unknown policy '" + want + "'; valid: the names in \"policies\": " + jsonin::join(valid) +
                             " (or an inline policy spec)");
      }
      sc.loaders[l].policy = std::make_shared<const PolicyEntry>(*e);
    } else {
      PolicyEntry e;
      e.name = "inline";
      e.spec = policy::canonical_spec(*pj);
      e.path = lp;
      check_local_dcs(e.spec, e.path, topo);
      (void)policy::make_policy(e.spec, e.path, ctx);
      sc.loaders[l].policy = std::make_shared<const PolicyEntry>(std::move(e));
    }
  }
  // An incident's `reproduces` block (sim/config/incident.hpp): validated, kept, and left out of
  // the document and its hash, so that `lbsim run` of the scenario is the scenario without it.
  if (const Json* rep = o.find("reproduces")) {
    std::vector<std::string> policy_names;
    for (const auto& p : sc.policies) policy_names.push_back(p.name);
    sc.reproduces = std::make_shared<const Reproduces>(parse_reproduces(*rep, "/reproduces", policy_names, topo.size()));
    doc.erase("reproduces");
  }
  if (const auto end = scheduled_end(sc.workload))
    for (auto& text : warmup_warnings(sc, *end)) sc.warnings.push_back(std::move(text));
  sc.doc = std::move(doc);
  sc.hash = fnv_hex(sc.doc.dump());
  return sc;
}

Scenario load_scenario(const std::string& file, const std::vector<std::string>& sets) {
  Json doc = load_json_or_import_hint(file);
  if (!doc.is_object()) throw ConfigError(file, std::string("expected a JSON object, got ") + jsonin::type_name(doc));
  if (doc.contains("nodes") && !doc.contains("cluster"))
    throw ConfigError(file, "this is a topology file (a ring: \"nodes\" and \"keyspace\"), not a scenario; "
                            "`lbsim ring`, `replicas` and `plan` read it as it is; to run policies on it, write a "
                            "scenario around it: lbsim import --topology " + file +
                            " --scenario BASE.json --out my.json (BASE.json gives the workload and policies, e.g. "
                            "configs/first-answer.json), or name it in a scenario's \"cluster\": "
                            "{\"topology_file\": ...}");
  apply_sets(doc, sets);
  const std::string dir = std::filesystem::path(file).parent_path().string();
  try {
    return scenario_from_json(std::move(doc), file, dir.empty() ? "." : dir);
  } catch (const ConfigError& e) {
    throw blame_set(e, sets, file);
  }
}

}  // namespace lbsim
