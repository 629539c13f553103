// The run's result: per-node, per-operation and client figures gathered from the engine's state
// at the end of run() (collect), each loader's own (collect_loaders), and the scenario's events
// that happened by the end.
#include <algorithm>

#include "sim/engine/sim_impl.hpp"

namespace lbsim {

namespace {

// The scenario's faults and topology changes that happened by `end`, in time order (a down fault
// with a duration is a down and an up; slow and pause faults have an end).
std::vector<ScenarioEvent> scenario_events(const Scenario& sc, const Topology& topo, SimTime end) {
  std::vector<ScenarioEvent> out;
  auto add = [&](SimTime at, const char* kind, std::vector<std::string> nodes, double factor = 0) {
    if (at <= end) out.push_back({at, kind, std::move(nodes), factor});
  };
  for (const FaultEvent& f : sc.faults.events) {
    const std::string id = topo.nodes[f.node].id;
    switch (f.kind) {
      case FaultKind::Down:
      case FaultKind::Kill:
        add(f.at, f.kind == FaultKind::Down ? "down" : "kill", {id});
        if (f.duration > 0) add(f.at + f.duration, "up", {id});
        break;
      case FaultKind::Up: add(f.at, "up", {id}); break;
      case FaultKind::Slow:
        add(f.at, "slow", {id}, f.factor);
        if (f.shard >= 0 && !out.empty() && out.back().kind == "slow") out.back().shard = f.shard;
        add(f.at + f.duration, "slow_end", {id});
        break;
      case FaultKind::Pause:
        add(f.at, "pause", {id});
        add(f.at + f.duration, "pause_end", {id});
        break;
      case FaultKind::Restart:
        add(f.at, "restart", {id});
        add(f.at + f.duration, "up", {id});
        break;
    }
  }
  for (const ChangeEvent& c : sc.changes.events) {
    std::vector<std::string> ids;
    for (NodeId n : c.nodes) ids.push_back(topo.nodes[n].id);
    add(c.at, c.kind == ChangeKind::AddNode ? "add_node" : c.kind == ChangeKind::Decommission ? "decommission" : "remove_node",
        std::move(ids));
  }
  std::stable_sort(out.begin(), out.end(), [](const ScenarioEvent& a, const ScenarioEvent& b) { return a.at < b.at; });
  return out;
}

}  // namespace

RunResult Simulation::Impl::collect() {
  RunResult& r = result_;
  r.issued = issued_;
  r.completed = completed_;
  r.failed = failed_;
  r.warmup_ops = warmup_done_;
  r.window_start = window_start_;
  r.window = window_end_ - window_start_;
  // A run whose end the scenario does not fix (a number of operations): the warm-up warnings of
  // mechanisms it ended before (the scenario's own carry them otherwise).
  if (!scheduled_end(sc_.workload))
    for (auto& w : warmup_warnings(sc_, window_end_)) r.warnings.push_back(std::move(w));
  r.timeline.finish(r.window);
  r.events = scenario_events(sc_, topo_, r.end);
  const double window = static_cast<double>(std::max<SimTime>(r.window, 1));
  for (NodeId n = 0; n < n_; ++n) {
    const NodeCounters& a = snap_start_[n].counters;
    const NodeCounters& b = snap_end_[n].counters;
    NodeResult nr;
    nr.id = topo_.nodes[n].id;
    nr.dc = topo_.nodes[n].dc;
    nr.rack = topo_.nodes[n].rack;
    nr.coordinator_ops = b.coordinator_ops - a.coordinator_ops;
    nr.replica_reads = b.replica_reads - a.replica_reads;
    nr.replica_writes = b.replica_writes - a.replica_writes;
    nr.cross_shard_hops = node_hops_[n] - node_hops_start_[n];
    nr.busy_rejections = busy_rejections_[n] - busy_rejections_start_[n];
    if (conns_per_host_ > 0) {
      // Every loader's connections to the node (each loader has its own pool).
      const std::size_t nl = std::max<std::size_t>(1, loaders_.size());
      ConnectionStats cs;
      cs.count = static_cast<std::uint32_t>(conns_per_host_ * nl);
      for (std::uint32_t i = 0; i < cs.count; ++i) {
        const std::size_t k = (i / conns_per_host_) * n_ * conns_per_host_ + n * conns_per_host_ + i % conns_per_host_;
        const std::uint64_t req = conns_[k].requests - conn_requests_start_[k];
        cs.requests_min = i == 0 ? req : std::min(cs.requests_min, req);
        cs.requests_max = std::max(cs.requests_max, req);
        cs.requests += req;
        cs.peak_in_flight = std::max(cs.peak_in_flight, static_cast<std::uint32_t>(conns_[k].peak));
      }
      nr.connections = cs;
    }
    if (!shard_counts_.empty()) {
      for (std::uint32_t k = 0; k < shards_; ++k) {
        const ShardCounts& x = shard_counts_[n * shards_ + k];
        const ShardCounts& x0 = shard_counts_start_[n * shards_ + k];
        ShardResult sr;
        sr.coordinator_ops = x.coordinator - x0.coordinator;
        sr.replica_ops = x.replica - x0.replica;
        sr.cross_shard_hops = x.hops - x0.hops;
        sr.requests = x.requests - x0.requests;
        sr.busy_rejections = x.busy - x0.busy;
        sr.utilization = static_cast<double>(snap_end_[n].server_busy[k] - snap_start_[n].server_busy[k]) / window;
        nr.shards.push_back(sr);
      }
    }
    nr.dropped_coordinator = b.dropped_coordinator - a.dropped_coordinator;
    nr.dropped_reads = b.dropped_reads - a.dropped_reads;
    nr.dropped_writes = b.dropped_writes - a.dropped_writes;
    // Time averages over the window: busy server time and the integral of the number in system.
    nr.utilization = static_cast<double>(snap_end_[n].busy - snap_start_[n].busy) / (window * nodes_.servers());
    nr.mean_queue = static_cast<double>(snap_end_[n].in_system - snap_start_[n].in_system) / window;
    r.coordinator_total += nr.coordinator_ops;
    r.nodes.push_back(std::move(nr));
  }
  const double cores = cpu_.cores();
  r.client.cpu_utilization = cores > 0 ? static_cast<double>(cpu_busy_end_ - cpu_busy_start_) / (window * cores) : 0;
  r.client.shared_rng_s = to_sec(rng_end_ - rng_start_);
  const SimTime busy = cpu_busy_end_ - cpu_busy_start_;
  r.client.shared_rng_cpu_fraction = busy > 0 ? static_cast<double>(rng_end_ - rng_start_) / static_cast<double>(busy) : 0;
  r.client.retries = retries_;
  r.client.stress_retries = stress_retries_;
  if (!sc_.loaders.empty()) collect_loaders(r);  // the report lists the `clients` only
  for (const auto& m : mechs_)  // their sections, after the nodes' rows (mechanism.hpp)
    if (m) m->collect(r);
  return r;
}

void Simulation::Impl::collect_loaders(RunResult& r) {
  const double window = static_cast<double>(std::max<SimTime>(r.window, 1));
  SimTime busy = 0, rng = 0;
  double cores = 0;
  for (const auto& L : loaders_) {
    LoaderResult lr;
    lr.name = L->name;
    lr.dc = L->spec->dc;
    lr.rack = L->spec->rack;
    lr.policy = L->policy_name;
    lr.open_loop = L->spec->mode == LoadMode::Open;
    lr.threads = lr.open_loop ? 0 : L->spec->threads;
    lr.rate_ops_s = lr.open_loop ? L->spec->rate : 0;
    lr.by_op = L->by_op;
    for (const OpStats& s : lr.by_op) lr.latency.merge(s.latency);
    lr.coordinator_ops = L->coordinator;
    const double c = L->cpu->cores();
    const SimTime b = L->cpu_busy_end - L->cpu_busy_start;
    lr.cpu_utilization = c > 0 ? static_cast<double>(b) / (window * c) : 0;
    busy += b;
    rng += L->rng_end - L->rng_start;
    cores += c;
    r.loaders.push_back(std::move(lr));
  }
  // The combined client CPU: every loader's busy time over every loader's cores; the shared
  // generators' time summed (each loader's process has its own).
  r.client.cpu_utilization = cores > 0 ? static_cast<double>(busy) / (window * cores) : 0;
  r.client.shared_rng_s = to_sec(rng);
  r.client.shared_rng_cpu_fraction = busy > 0 ? static_cast<double>(rng) / static_cast<double>(busy) : 0;
}

}  // namespace lbsim
