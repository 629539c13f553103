#include "sim/engine/node_model.hpp"

#include <algorithm>

#include "sim/core/check.hpp"

namespace lbsim {

NodeModel::NodeModel(const NodeModelSpec& spec, std::size_t nodes, const FaultSpec& faults)
    : spec_(&spec), nodes_(nodes) {
  for (std::size_t i = 0; i < nodes; ++i) {
    nodes_[i].free_at.assign(spec.shards, 0);
    if (i < spec.speed.size()) nodes_[i].speed = spec.speed[i];
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

SimTime NodeModel::enqueue(NodeId id, std::uint32_t shard, SimTime now, double service) {
  Node& n = nodes_[id];
  std::size_t server = 0;
  if (spec_->discipline == Discipline::PerShard) {
    server = shard % n.free_at.size();
  } else {
    for (std::size_t i = 1; i < n.free_at.size(); ++i)
      if (n.free_at[i] < n.free_at[server]) server = i;
  }
  SimTime start = std::max(now, n.free_at[server]);
  if (!n.pauses.empty()) start = paused_until(id, start);
  double factor = 1.0 / n.speed;
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
  n.counters.busy += work;
  n.counters.sojourn += end - now;
  return end;
}

void NodeModel::set_down(NodeId id, SimTime t) {
  Node& n = nodes_[id];
  if (!n.up) return;
  n.up = false;
  n.down_at.push_back(t);
  std::fill(n.free_at.begin(), n.free_at.end(), t);
}

void NodeModel::set_up(NodeId id, SimTime t) {
  Node& n = nodes_[id];
  if (n.up) return;
  n.up = true;
  std::fill(n.free_at.begin(), n.free_at.end(), t);
}

}  // namespace lbsim
