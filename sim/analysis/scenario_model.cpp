#include "sim/analysis/scenario_model.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sim/analysis/key_weights.hpp"

namespace lbsim {

ScenarioModel analyze_scenario(const Scenario& sc) {
  ScenarioModel out;
  const Topology& topo = sc.topology();
  LoadModelInput in;
  in.ring = sc.ring.get();
  const WorkloadSpec& w = sc.workload;
  if (w.trace) {
    // A trace: weight ranges by the recorded operations.
    in.range_weight.assign(sc.ring->size(), 0.0);
    std::size_t reads = 0, unrouted = 0;
    for (const auto& t : *w.trace) {
      in.range_weight[sc.ring->range_index(t.token)] += 1.0 / static_cast<double>(w.trace->size());
      reads += t.op == OpKind::Read;
      unrouted += !t.routed;
    }
    in.read_fraction = w.trace->empty() ? 0 : static_cast<double>(reads) / static_cast<double>(w.trace->size());
    in.unrouted_fraction = w.trace->empty() ? 0 : static_cast<double>(unrouted) / static_cast<double>(w.trace->size());
    out.notes.push_back("trace: per-record consistency levels are not modelled; the workload's levels are used");
  } else {
    in.range_weight = range_weights(*sc.ring, w.keys);
    in.read_fraction = w.read_fraction;
    in.unrouted_fraction = w.unrouted_fraction;
  }
  in.read_cl = w.read_cl;
  in.write_cl = w.write_cl;
  in.down.assign(topo.size(), false);
  const double rows = 1.0 + sc.nodes.row_cost * (static_cast<double>(w.rows) - 1.0);
  in.coordinator_s = sc.nodes.coordinator.mean_ns * 1e-9;
  in.read_s = sc.nodes.read.mean_ns * 1e-9 * rows;
  in.write_s = sc.nodes.write.mean_ns * 1e-9 * rows;
  for (NodeId n = 0; n < topo.size(); ++n)
    in.capacity.push_back(static_cast<double>(sc.nodes.shards) * (n < sc.nodes.speed.size() ? sc.nodes.speed[n] : 1.0));
  if (!sc.faults.events.empty()) out.notes.push_back("faults are not modelled: every node is up");
  if (w.fat_fraction > 0) out.notes.push_back("fat partitions are not modelled in the saturation bound");
  if (sc.nodes.discipline == Discipline::PerShard)
    out.notes.push_back("per_shard discipline: the bound is per node; uneven shard load can saturate a shard earlier");
  for (const auto& p : sc.policies) out.policies.push_back({p.name, analyze_load(in, p.spec)});
  return out;
}

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
    if (p.model.bottleneck)
      s += fmt::format("  saturation bound: {:.0f} op/s (busiest node {})\n", p.model.saturation_ops_s,
                       sc.topology().nodes[*p.model.bottleneck].id);
    if (p.model.unavailable > 1e-12) s += fmt::format("  unavailable: {:.3f}% of operations\n", 100 * p.model.unavailable);
    if (p.model.no_host > 1e-12) s += fmt::format("  no host: {:.3f}% of operations\n", 100 * p.model.no_host);
  }
  for (const auto& n : m.notes) s += "note: " + n + "\n";
  return s;
}

}  // namespace lbsim
