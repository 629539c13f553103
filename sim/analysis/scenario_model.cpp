#include "sim/analysis/scenario_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/analysis/key_weights.hpp"
#include "sim/mech/cache/cache_spec.hpp"
#include "sim/workload/trace_reader.hpp"

namespace lbsim {

ScenarioModel analyze_scenario(const Scenario& sc, const std::vector<std::string>* only) {
  ScenarioModel out;
  const Topology& topo = sc.topology();
  LoadModelInput in;
  // Tablet keyspaces: the initial tablet map with a warm driver cache (the steady state).
  const TokenRing& ring = sc.placement();
  in.ring = &ring;
  const WorkloadSpec& w = sc.workload;
  // per_shard discipline: the bound is per shard, so the weights are kept per range and shard
  // (Scylla's shard of each key's token), unless the table would be too large (over 32 MB).
  const Sharding sharding{sc.nodes.shards, sc.nodes.msb_ignore};
  const bool per_shard = sc.nodes.discipline == Discipline::PerShard && sc.nodes.shards > 1 &&
                         ring.size() * sc.nodes.shards <= (std::size_t{4} << 20);
  // Shards per node for the per_shard discipline, also when the per-shard table is too large (the
  // hop estimate then assumes a random arrival shard); the table itself is range_shard_weight.
  if (sc.nodes.discipline == Discipline::PerShard) in.shards = sc.nodes.shards;
  if (w.trace) {
    // A trace: weight ranges by the recorded operations.
    in.range_weight.assign(ring.size(), 0.0);
    if (per_shard) in.range_shard_weight.assign(ring.size() * in.shards, 0.0);
    // One more streamed pass over the file (the records are not kept): the ring is known only now.
    std::size_t reads = 0, unrouted = 0, records = 0;
    const double each = 1.0 / static_cast<double>(w.trace->records);
    TraceReader rd = open_trace(*w.trace);
    TraceRecord t;
    while (rd.next(t)) {
      ++records;
      const std::size_t r = ring.range_index(t.token);
      in.range_weight[r] += each;
      if (per_shard) in.range_shard_weight[r * in.shards + shard_of(t.token, sharding)] += each;
      reads += t.op == OpKind::Read;
      unrouted += !t.routed;
    }
    in.read_fraction = records == 0 ? 0 : static_cast<double>(reads) / static_cast<double>(records);
    in.unrouted_fraction = records == 0 ? 0 : static_cast<double>(unrouted) / static_cast<double>(records);
    out.notes.push_back("trace: per-record consistency levels are not modelled; the workload's levels are used");
  } else {
    in.range_weight = range_weights(ring, w.keys, per_shard ? &sharding : nullptr, &in.range_shard_weight);
    in.read_fraction = w.read_fraction;
    in.unrouted_fraction = w.unrouted_fraction;
  }
  in.read_cl = w.read_cl;
  in.write_cl = w.write_cl;
  in.shuffle_equal_distance_reads = server_rules(sc.nodes.server).shuffle_equal_distance_reads;
  in.down.assign(topo.size(), false);
  const double rows = 1.0 + sc.nodes.row_cost * (static_cast<double>(w.rows) - 1.0);
  in.coordinator_s = sc.nodes.coordinator.mean_ns * 1e-9;
  in.read_s = sc.nodes.read.mean_ns * 1e-9 * rows;
  in.write_s = sc.nodes.write.mean_ns * 1e-9 * rows;
  // Connections and cross-shard hops (sim/engine: pick_connection, enqueue_replica).
  using Place = LoadModelInput::Place;
  const ClientSpec& cs = sc.client;
  if (cs.connections == Connections::ShardAware) {
    in.unrouted_arrival = Place::Uniform;
  } else if (cs.connections == Connections::Plain) {
    in.routed_coordinator = in.unrouted_coordinator = Place::Pool;
    in.routed_arrival = in.unrouted_arrival = Place::Pool;
    const std::uint32_t k = cs.pool_size == 0 ? sc.nodes.shards : cs.pool_size;
    in.pool_weight.assign(sc.nodes.shards, 0.0);
    for (std::uint32_t i = 0; i < k; ++i) in.pool_weight[i % sc.nodes.shards] += 1.0 / k;
  }
  if (cs.connections != Connections::None) {
    in.cross_shard_hop_s = sc.nodes.cross_shard_hop_ns * 1e-9;
    in.rpc_on_sender_shard = sc.nodes.rpc_on_sender_shard;
    out.notes.push_back(cs.connections == Connections::Plain
                            ? "plain connections: coordinator work spread over the pool's shards as the least-busy "
                              "choice would spread it; cross-shard hops included"
                            : "shard-aware connections: routed work on the token's shard; busy-connection rejections "
                              "and overrides are not modelled");
  }
  for (NodeId n = 0; n < topo.size(); ++n)
    in.capacity.push_back(static_cast<double>(sc.nodes.shards) * (n < sc.nodes.speed.size() ? sc.nodes.speed[n] : 1.0));
  if (!sc.faults.events.empty()) out.notes.push_back("faults are not modelled: every node is up");
  if (w.fat_fraction > 0) out.notes.push_back("fat partitions are not modelled in the saturation bound");
  if (per_shard && sc.tablets)
    out.notes.push_back("per_shard discipline: the bound is the busiest shard's (each replica's work on its tablet "
                        "shard, unrouted coordinator work spread evenly)");
  else if (per_shard)
    out.notes.push_back("per_shard discipline: the bound is the busiest shard's (each key's work on the shard of its "
                        "token, unrouted coordinator work spread evenly)");
  else if (sc.nodes.discipline == Discipline::PerShard && sc.nodes.shards > 1)
    out.notes.push_back("per_shard discipline: ring x shards too large for the per-shard table; the bound is per node "
                        "and uneven shard load can saturate a shard earlier");
  if (sc.tablets)
    out.notes.push_back(fmt::format("tablets: {} tablets, the driver's cache warm (steady state); replica work on each "
                                    "replica's tablet shard",
                                    ring.size()));
  // cluster.cache (issue 37): per-node Che over the same routing (node_cache.hpp). Key
  // populations only: a trace's keys are tokens without popularity.
  const CacheSpec* cache_spec = sc.mech.get<CacheSpec>(MechSpecs::k_cache);
  const CacheSpec cache = cache_spec ? *cache_spec : CacheSpec{};
  const bool cache_on = cache_spec && !w.trace;
  CacheModelInput cache_in;
  if (cache_spec && w.trace) out.notes.push_back("cache: a trace's hit rates are not modelled (no key popularity)");
  if (cache_on) {
    cache_in.ring = &ring;
    cache_in.keys = w.keys;
    cache_in.read_fraction = w.read_fraction;
    cache_in.write_fraction = 1.0 - w.read_fraction - w.lwt_fraction;
    cache_in.invalidate = cache.writes == CacheWriteRule::Invalidate;
    cache_in.capacity_bytes = cache.capacity_bytes;
    cache_in.entry_bytes = cache.partition_size.mean_ns;
    if (sc.nodes.discipline == Discipline::PerShard && sc.nodes.shards > 1) {
      cache_in.shards = sc.nodes.shards;
      cache_in.sharding = sharding;
    }
    cache_in.stride = replica_stride(ring);
    cache_in.down.assign(topo.size(), false);
    cache_in.ops_per_s = sc.client.rate;
    cache_in.sstables_per_read = cache.sstables_per_read;
    const DiskSpec& disk = cache.disk;
    if (disk.read_iops > 0) cache_in.disk_read_s += 1.0 / disk.read_iops;
    if (disk.read_bandwidth > 0) cache_in.disk_read_s += cache_in.entry_bytes / disk.read_bandwidth;
    out.notes.push_back(fmt::format(
        "cache: per-node Che (steady state, {} population of {} keys; partitions of their mean size, {:.0f} bytes; "
        "writes {})",
        w.keys.count > kCheExactKeys ? "grouped" : "exact", w.keys.count, cache_in.entry_bytes,
        cache_in.invalidate ? "invalidate (eq. 4 of node_cache.hpp)" : "update in place (no effect on hits)"));
  }
  for (const auto& p : sc.policies) {
    if (only && std::find(only->begin(), only->end(), p.name) == only->end()) {
      LoadModel m;
      m.reason = "not requested";
      out.policies.push_back({p.name, m, std::nullopt});
      continue;
    }
    if (!sc.loaders.empty()) {  // each loader's place and policy route its own share: simulated only
      LoadModel m;
      m.reason = "several loaders (clients) are not modelled: the model routes one client's operations";
      out.policies.push_back({p.name, m, std::nullopt});
      continue;
    }
    if (sc.changes.any()) {  // joins, drains and migrations are simulated only
      LoadModel m;
      m.reason = "topology changes (changes.events) are not modelled";
      out.policies.push_back({p.name, m, std::nullopt});
      continue;
    }
    if (w.lwt_fraction > 0) {  // Paxos rounds and LWT routing are simulated only
      LoadModel m;
      m.reason = "lightweight transactions (workload.mix.lwt) are not modelled";
      out.policies.push_back({p.name, m, std::nullopt});
      continue;
    }
    if (!cache_on) {
      out.policies.push_back({p.name, analyze_load(in, p.spec), std::nullopt});
      continue;
    }
    std::vector<double> read_share;
    in.read_share_out = &read_share;
    LoadModel lm = analyze_load(in, p.spec);
    in.read_share_out = nullptr;
    std::optional<CacheModel> cm;
    if (lm.modelled) {
      cache_in.read_share = &read_share;
      cm = analyze_cache(cache_in);
      // The CPU bound with the cache's read costs (rows scale them as they scale service.read).
      const double hit_s = cache.hit.mean_ns * 1e-9 * rows, miss_s = cache.miss.mean_ns * 1e-9 * rows;
      cm->cpu_saturation_ops_s = std::numeric_limits<double>::infinity();
      for (NodeId n = 0; n < lm.nodes.size() && n < cm->nodes.size(); ++n) {
        const NodeCacheModel& c = cm->nodes[n];
        const double hits = c.reads_per_op - c.misses_per_op;
        const double busy = lm.nodes[n].busy_s - lm.nodes[n].replica_reads * in.read_s + hits * hit_s + c.misses_per_op * miss_s;
        if (busy > 0 && in.capacity[n] / busy < cm->cpu_saturation_ops_s) {
          cm->cpu_saturation_ops_s = in.capacity[n] / busy;
          cm->cpu_bottleneck = n;
        }
      }
      if (!std::isfinite(cm->cpu_saturation_ops_s)) cm->cpu_saturation_ops_s = 0;
    }
    out.policies.push_back({p.name, std::move(lm), std::move(cm)});
  }
  return out;
}

namespace {

// A characteristic time is infinite when the node's keys all fit: null in JSON.
nlohmann::ordered_json finite_or_null(double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr); }

nlohmann::ordered_json cache_model_json(const Scenario& sc, const CacheModel& c) {
  const double rate = sc.client.rate;
  nlohmann::ordered_json j;
  j["method"] = c.method;
  j["capacity_bytes_per_node"] = sc.mech.get<CacheSpec>(MechSpecs::k_cache)->capacity_bytes;
  j["hit_rate"] = c.hit_rate;
  j["misses_per_op"] = c.misses_per_op;
  j["miss_imbalance"] = c.miss_imbalance;
  j["disk_saturation_ops_s"] = c.disk_saturation_ops_s;
  j["disk_bottleneck"] = c.disk_saturation_ops_s > 0 ? sc.topology().nodes[c.disk_bottleneck].id : "";
  j["cpu_saturation_ops_s"] = c.cpu_saturation_ops_s;
  j["cpu_bottleneck"] = c.cpu_saturation_ops_s > 0 ? sc.topology().nodes[c.cpu_bottleneck].id : "";
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (NodeId n = 0; n < c.nodes.size(); ++n) {
    const auto& l = c.nodes[n];
    nlohmann::ordered_json nj{{"id", sc.topology().nodes[n].id},
                              {"replica_reads_per_op", l.reads_per_op},
                              {"hit_rate", l.hit_rate},
                              {"misses_per_op", l.misses_per_op},
                              {"char_time_ops_min", finite_or_null(l.t_min)},
                              {"char_time_ops_max", finite_or_null(l.t_max)}};
    if (rate > 0) nj["misses_per_s"] = l.misses_per_op * rate;
    if (l.shards.size() > 1) {
      nlohmann::ordered_json sh = nlohmann::ordered_json::array();
      for (const auto& s : l.shards) sh.push_back(s.reads > 0 ? s.hits / s.reads : 0.0);
      nj["shard_hit_rates"] = sh;
    }
    nodes.push_back(nj);
  }
  j["nodes"] = nodes;
  return j;
}

std::string cache_model_text(const Scenario& sc, const CacheModel& c) {
  const double rate = sc.client.rate;
  std::string s = fmt::format("  cache (per-node Che, {}): hit rate {:.2f}%, {:.4f} misses per op, miss overcommit "
                              "(busiest / mean node) {:.3f}\n",
                              c.method, 100 * c.hit_rate, c.misses_per_op, c.miss_imbalance);
  s += fmt::format("  {:<10} {:>14} {:>10} {:>15} {:>12} {:>16}\n", "node", "cache reads/op", "hit rate", "misses per op",
                   "misses/s", "char. time (op)");
  for (NodeId n = 0; n < c.nodes.size(); ++n) {
    const auto& l = c.nodes[n];
    const std::string per_s = rate > 0 ? fmt::format("{:.1f}", l.misses_per_op * rate) : "-";
    const std::string t = !std::isfinite(l.t_max) ? "inf (fits)" : fmt::format("{:.4g}", l.t_max);
    s += fmt::format("  {:<10} {:>14.4f} {:>9.2f}% {:>15.4f} {:>12} {:>16}\n", sc.topology().nodes[n].id,
                     l.reads_per_op, 100 * l.hit_rate, l.misses_per_op, per_s, t);
  }
  if (c.cpu_saturation_ops_s > 0)
    s += fmt::format("  CPU bound with the cache's hit and miss costs: {:.0f} op/s (busiest node {}, its shards sharing "
                     "its load evenly)\n",
                     c.cpu_saturation_ops_s, sc.topology().nodes[c.cpu_bottleneck].id);
  if (c.disk_saturation_ops_s > 0)
    s += fmt::format("  disk bound: {:.0f} op/s (busiest disk {})\n", c.disk_saturation_ops_s,
                     sc.topology().nodes[c.disk_bottleneck].id);
  return s;
}

}  // namespace

nlohmann::ordered_json scenario_model_json(const Scenario& sc, const ScenarioModel& m) {
  nlohmann::ordered_json j;
  j["schema"] = "lbsim.model/1";
  j["scenario"] = {{"name", sc.name}, {"hash", sc.hash}};
  nlohmann::ordered_json pols = nlohmann::ordered_json::array();
  for (const auto& p : m.policies) {
    nlohmann::ordered_json pj{{"name", p.name}, {"modelled", p.model.modelled}};
    if (!p.model.modelled) {
      pj["reason"] = p.model.reason;
    } else {
      pj["saturation_ops_s"] = std::isfinite(p.model.saturation_ops_s) ? p.model.saturation_ops_s : 0.0;
      pj["bottleneck"] = p.model.bottleneck ? sc.topology().nodes[*p.model.bottleneck].id : "";
      pj["bottleneck_shard"] = p.model.bottleneck_shard ? nlohmann::ordered_json(*p.model.bottleneck_shard)
                                                        : nlohmann::ordered_json(nullptr);
      pj["node_saturation_ops_s"] =
          std::isfinite(p.model.node_saturation_ops_s) ? p.model.node_saturation_ops_s : 0.0;
      pj["unavailable_fraction"] = p.model.unavailable;
      pj["no_host_fraction"] = p.model.no_host;
      nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
      for (NodeId n = 0; n < p.model.nodes.size(); ++n) {
        const auto& l = p.model.nodes[n];
        nodes.push_back({{"id", sc.topology().nodes[n].id},
                         {"coordinator_share", l.coordinator},
                         {"replica_reads_per_op", l.replica_reads},
                         {"replica_writes_per_op", l.replica_writes},
                         {"busy_s_per_op", l.busy_s}});
      }
      pj["nodes"] = nodes;
      if (p.cache) pj["cache"] = cache_model_json(sc, *p.cache);
    }
    pols.push_back(pj);
  }
  j["policies"] = pols;
  j["notes"] = m.notes;
  return j;
}

std::string scenario_model_text(const Scenario& sc, const ScenarioModel& m) {
  std::string s = fmt::format("Analytic load model: {}\n", sc.name);
  for (const auto& p : m.policies) {
    s += fmt::format("\npolicy {}\n", p.name);
    if (!p.model.modelled) {
      s += "  not modelled: " + p.model.reason + "\n";
      continue;
    }
    s += fmt::format("  {:<10} {:>12} {:>14} {:>15} {:>14}\n", "node", "coordinator", "reads per op",
                     "writes per op", "busy us/op");
    for (NodeId n = 0; n < p.model.nodes.size(); ++n) {
      const auto& l = p.model.nodes[n];
      s += fmt::format("  {:<10} {:>11.2f}% {:>14.4f} {:>15.4f} {:>14.2f}\n", sc.topology().nodes[n].id,
                       100 * l.coordinator, l.replica_reads, l.replica_writes, l.busy_s * 1e6);
    }
    if (p.model.bottleneck && p.model.bottleneck_shard)
      s += fmt::format("  saturation bound: {:.0f} op/s (busiest shard: {} shard {}; {:.0f} op/s if every node's "
                       "shards shared its load evenly)\n",
                       p.model.saturation_ops_s, sc.topology().nodes[*p.model.bottleneck].id,
                       *p.model.bottleneck_shard, p.model.node_saturation_ops_s);
    else if (p.model.bottleneck)
      s += fmt::format("  saturation bound: {:.0f} op/s (busiest node {})\n", p.model.saturation_ops_s,
                       sc.topology().nodes[*p.model.bottleneck].id);
    if (p.model.unavailable > 1e-12) s += fmt::format("  unavailable: {:.3f}% of operations\n", 100 * p.model.unavailable);
    if (p.model.no_host > 1e-12) s += fmt::format("  no host: {:.3f}% of operations\n", 100 * p.model.no_host);
    if (p.cache) s += cache_model_text(sc, *p.cache);
  }
  for (const auto& n : m.notes) s += "note: " + n + "\n";
  return s;
}

}  // namespace lbsim

#include "sim/metrics/run_result.hpp"

namespace lbsim {

namespace {
// One unit of variance is added so that a certain event (p = 1: every write reaches every node of
// a 3-node RF=3 ring) off by the one or two operations straddling the measurement window edges
// does not read as an infinite z.
double z_of(double count, double n, double p) { return (count - n * p) / std::sqrt(n * p * (1 - p) + 1.0); }
}  // namespace

std::vector<NodeGap> model_gaps(const LoadModel& model, const RunResult& run) {
  std::vector<NodeGap> out(model.nodes.size());
  const double coord_n = static_cast<double>(run.coordinator_total);
  std::uint64_t ops = 0;
  for (const auto& s : run.by_op) ops += s.ops + s.error_total();
  const double n = static_cast<double>(ops);
  for (std::size_t i = 0; i < out.size() && i < run.nodes.size(); ++i) {
    const auto& m = model.nodes[i];
    const auto& r = run.nodes[i];
    NodeGap& g = out[i];
    g.coordinator_model = m.coordinator;
    g.coordinator_sim = coord_n > 0 ? static_cast<double>(r.coordinator_ops) / coord_n : 0;
    g.coordinator_z = z_of(static_cast<double>(r.coordinator_ops), coord_n, m.coordinator);
    // The model routes work; the node then serves it or sheds it (expired in its queue): compare
    // what reached the node.
    const double reads = static_cast<double>(r.replica_reads + r.dropped_reads);
    const double writes = static_cast<double>(r.replica_writes + r.dropped_writes);
    g.reads_model = m.replica_reads;
    g.reads_sim = n > 0 ? reads / n : 0;
    g.reads_z = z_of(reads, n, std::min(1.0, m.replica_reads));
    g.writes_model = m.replica_writes;
    g.writes_sim = n > 0 ? writes / n : 0;
    g.writes_z = z_of(writes, n, std::min(1.0, m.replica_writes));
  }
  return out;
}

std::string model_gap_text(const Topology& topo, const LoadModel& model, const RunResult& run) {
  if (!model.modelled) return "model: not modelled (" + model.reason + ")\n";
  const auto gaps = model_gaps(model, run);
  std::string s = fmt::format("{:<10} {:>22} {:>24} {:>24}\n", "model gap", "coordinator sim/exp (z)",
                              "reads/op sim/exp (z)", "writes/op sim/exp (z)");
  for (std::size_t i = 0; i < gaps.size(); ++i) {
    const auto& g = gaps[i];
    s += fmt::format("{:<10} {:>6.2f}%/{:>6.2f}% ({:>+5.1f}) {:>7.4f}/{:>7.4f} ({:>+5.1f}) {:>7.4f}/{:>7.4f} ({:>+5.1f})\n",
                     topo.nodes[i].id, 100 * g.coordinator_sim, 100 * g.coordinator_model, g.coordinator_z,
                     g.reads_sim, g.reads_model, g.reads_z, g.writes_sim, g.writes_model, g.writes_z);
  }
  // Throughput against the bound: near 100% means the busiest node (or shard) is saturated.
  if (model.bottleneck && std::isfinite(model.saturation_ops_s) && model.saturation_ops_s > 0) {
    const std::string where = model.bottleneck_shard
                                  ? fmt::format("{} shard {}", topo.nodes[*model.bottleneck].id, *model.bottleneck_shard)
                                  : topo.nodes[*model.bottleneck].id;
    s += fmt::format("model bound {:.0f} op/s (busiest: {}); simulated throughput is {:.1f}% of it\n",
                     model.saturation_ops_s, where, 100 * run.throughput() / model.saturation_ops_s);
  }
  return s;
}

}  // namespace lbsim
