#include "sim/engine/node_model.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/core/check.hpp"

namespace lbsim {

NodeModel::NodeModel(const NodeModelSpec& spec, std::size_t nodes, const FaultSpec& faults)
    : spec_(&spec), nodes_(nodes) {
  for (std::size_t i = 0; i < nodes; ++i) {
    nodes_[i].free_at.assign(spec.shards, 0);
    nodes_[i].ends.resize(spec.shards);
    nodes_[i].server_busy.assign(spec.shards, 0);
    if (i < spec.speed.size()) nodes_[i].speed = spec.speed[i];
    nodes_[i].inv_speed = 1.0 / nodes_[i].speed;
  }
  for (const auto& f : faults.events) {
    if (f.node >= nodes) continue;
    if (f.kind == FaultKind::Slow) nodes_[f.node].slow.push_back({f.at, f.at + f.duration, f.factor});
    if (f.kind == FaultKind::Pause) nodes_[f.node].pauses.push_back({f.at, f.at + f.duration, 1.0});
  }
  for (auto& n : nodes_) {
    auto by_start = [](const Window& a, const Window& b) { return a.start < b.start; };
    std::sort(n.slow.begin(), n.slow.end(), by_start);
    std::sort(n.pauses.begin(), n.pauses.end(), by_start);
    // Merge overlapping pauses.
    std::vector<Window> merged;
    for (const auto& w : n.pauses) {
      if (!merged.empty() && w.start <= merged.back().end) merged.back().end = std::max(merged.back().end, w.end);
      else merged.push_back(w);
    }
    n.pauses = std::move(merged);
  }
}

SimTime NodeModel::paused_until(NodeId n, SimTime t) const {
  for (const auto& w : nodes_[n].pauses) {
    if (w.start > t) break;
    if (t < w.end) return w.end;
  }
  return t;
}

void NodeModel::Ends::grow() {
  std::vector<SimTime> next(std::max<std::size_t>(64, 2 * ring.size()));
  for (std::size_t i = 0; i < count; ++i) next[i] = (*this)[i];
  ring = std::move(next);
  head = 0;
}

SimTime NodeModel::paused_within(const Node& n, SimTime a, SimTime b) {
  SimTime p = 0;
  for (const auto& w : n.pauses) {
    if (w.start >= b) break;
    const SimTime lo = std::max(a, w.start), hi = std::min(b, w.end);
    if (hi > lo) p += hi - lo;
  }
  return p;
}

SimTime NodeModel::enqueue(NodeId id, std::uint32_t shard, SimTime now, double service, SimTime deadline) {
  Node& n = nodes_[id];
  std::size_t server = 0;
  if (spec_->discipline == Discipline::PerShard) {
    const std::size_t servers = n.free_at.size();
    server = shard < servers ? shard : shard % servers;  // no division in the usual case
  } else {
    for (std::size_t i = 1; i < n.free_at.size(); ++i)
      if (n.free_at[i] < n.free_at[server]) server = i;
  }
  SimTime start = std::max(now, n.free_at[server]);
  if (!n.pauses.empty()) start = paused_until(id, start);
  Ends& ends = n.ends[server];
  // Ended items are trimmed in batches: snapshot() skips those that ended by its instant anyway,
  // and one pass over 32 costs fewer mispredicted branches than a check at every arrival
  // (issue 14: about 2.8 per operation on configs/default.json).
  if (ends.size() >= Ends::kTrimEvery) ends.pop_until(now);
  if (start > deadline) {
    // Expired while it waited: dequeued and discarded at its start, using no server time.
    ends.push(start);
    n.counters.sojourn += start - now;
    return kDropped;
  }
  double factor = n.inv_speed;
  for (const auto& w : n.slow) {
    if (w.start > start) break;
    if (start < w.end) factor *= w.factor;
  }
  const double scaled = service * factor;
  SimTime end = start + (scaled <= 0 ? 0 : static_cast<SimTime>(scaled + 0.5));
  const SimTime work = end - start;
  for (const auto& w : n.pauses) {
    if (w.start >= end) break;
    if (w.start > start) end += w.end - w.start;  // in service when the pause began
  }
  LBSIM_DCHECK(start >= now && end >= start && work >= 0, "work ends before it starts or starts before it arrives");
  n.free_at[server] = end;
  ends.push(end);
  n.server_busy[server] += work;
  n.counters.busy += work;
  n.counters.sojourn += end - now;
  return end;
}

NodeSnapshot NodeModel::snapshot(NodeId id, SimTime t) const {
  const Node& n = nodes_[id];
  NodeSnapshot s;
  s.counters = n.counters;
  s.busy = n.counters.busy;
  s.in_system = n.counters.sojourn;
  s.server_busy = n.server_busy;
  for (std::size_t k = 0; k < n.free_at.size(); ++k) {
    // After its last arrival a server works without a gap until free_at, apart from pauses.
    if (n.free_at[k] > t) {
      const SimTime ahead = n.free_at[k] - t - paused_within(n, t, n.free_at[k]);
      s.busy -= ahead;
      s.server_busy[k] -= ahead;
    }
    const Ends& e = n.ends[k];
    for (std::size_t i = 0; i < e.size(); ++i)
      if (e[i] > t) s.in_system -= e[i] - t;
  }
  LBSIM_DCHECK(s.busy >= 0 && s.in_system >= 0, "a node's time integrals went negative");
  return s;
}

void NodeModel::set_down(NodeId id, SimTime t) {
  Node& n = nodes_[id];
  if (!n.up) return;
  n.up = false;
  n.down_at.push_back(t);
  // Queued work is lost: the server time and queue time it would have used after `t` never happen.
  const NodeSnapshot s = snapshot(id, t);
  n.counters.busy = s.busy;
  n.counters.sojourn = s.in_system;
  n.server_busy = s.server_busy;
  for (auto& e : n.ends) e.clear();
  std::fill(n.free_at.begin(), n.free_at.end(), t);
}

void NodeModel::set_up(NodeId id, SimTime t) {
  Node& n = nodes_[id];
  if (n.up) return;
  n.up = true;
  std::fill(n.free_at.begin(), n.free_at.end(), t);
}

}  // namespace lbsim
