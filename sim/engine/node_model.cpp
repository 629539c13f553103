#include "sim/engine/node_model.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/core/check.hpp"

namespace lbsim {

NodeModel::NodeModel(const NodeModelSpec& spec, std::size_t nodes, const FaultSpec& faults)
    : spec_(&spec), hot_(nodes), counters_(nodes), servers_(nodes * spec.shards), cold_(nodes) {
  for (std::size_t i = 0; i < nodes; ++i) {
    if (i < spec.speed.size()) cold_[i].speed = spec.speed[i];
    hot_[i].inv_speed = 1.0 / cold_[i].speed;
  }
  for (const auto& f : faults.events) {
    if (f.node >= nodes) continue;
    if (f.kind == FaultKind::Slow) cold_[f.node].slow.push_back({f.at, f.at + f.duration, f.factor, f.shard});
    if (f.kind == FaultKind::Pause) cold_[f.node].pauses.push_back({f.at, f.at + f.duration, 1.0});
  }
  for (std::size_t i = 0; i < nodes; ++i) {
    Cold& n = cold_[i];
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
    hot_[i].has_slow = !n.slow.empty();
    hot_[i].has_pauses = !n.pauses.empty();
  }
}

SimTime NodeModel::paused_until_slow(NodeId n, SimTime t) const {
  for (const auto& w : cold_[n].pauses) {
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

SimTime NodeModel::paused_within(NodeId n, SimTime a, SimTime b) const {
  SimTime p = 0;
  for (const auto& w : cold_[n].pauses) {
    if (w.start >= b) break;
    const SimTime lo = std::max(a, w.start), hi = std::min(b, w.end);
    if (hi > lo) p += hi - lo;
  }
  return p;
}

template <bool kAbort>
SimTime NodeModel::enqueue_impl(NodeId id, std::uint32_t shard, SimTime now, double service, SimTime deadline,
                                SimTime abort_at) {
  const Hot& h = hot_[id];
  Server* sv = servers_of(id);
  const std::size_t servers = spec_->shards;
  std::size_t server = 0;
  if (spec_->discipline == Discipline::PerShard) {
    server = shard < servers ? shard : shard % servers;  // no division in the usual case
  } else {
    for (std::size_t i = 1; i < servers; ++i)
      if (sv[i].free_at < sv[server].free_at) server = i;
  }
  Server& s = sv[server];
  NodeCounters& c = counters_[id];
  SimTime start = std::max(now, s.free_at);
  if (h.has_pauses) start = paused_until_slow(id, start);
  Ends& ends = s.ends;
  // Ended items are trimmed in batches: snapshot() skips those that ended by its instant anyway,
  // and one pass over 32 costs fewer mispredicted branches than a check at every arrival
  // (issue 14: about 2.8 per operation on configs/default.json).
  if (ends.size() >= Ends::kTrimEvery) ends.pop_until(now);
  last_start_ = start;
  if (start > deadline) {
    // Expired while it waited: dequeued and discarded at its start, using no server time.
    ends.push(start);
    c.sojourn += start - now;
    return kDropped;
  }
  double factor = h.inv_speed;
  if (h.has_slow)
    for (const auto& w : cold_[id].slow) {
      if (w.start > start) break;
      if (start < w.end && (w.shard < 0 || static_cast<std::size_t>(w.shard) == server)) factor *= w.factor;
    }
  const double scaled = service * factor;
  SimTime end = start + (scaled <= 0 ? 0 : static_cast<SimTime>(scaled + 0.5));
  SimTime work = end - start;
  if (h.has_pauses)
    for (const auto& w : cold_[id].pauses) {
      if (w.start >= end) break;
      if (w.start > start) end += w.end - w.start;  // in service when the pause began
    }
  const bool aborted = kAbort && end > abort_at;
  if (aborted) [[unlikely]] {
    // Cancelled in service at abort_at (>= start: abort_at is at least the deadline): the server
    // worked from its start to then, pauses apart.
    end = std::max(abort_at, start);
    work = end - start - (h.has_pauses ? paused_within(id, start, end) : 0);
  }
  LBSIM_DCHECK(start >= now && end >= start && work >= 0, "work ends before it starts or starts before it arrives");
  s.free_at = end;
  ends.push(end);
  s.busy += work;
  c.busy += work;
  c.sojourn += end - now;
  return aborted ? kAborted : end;
}
template SimTime NodeModel::enqueue_impl<false>(NodeId, std::uint32_t, SimTime, double, SimTime, SimTime);
template SimTime NodeModel::enqueue_impl<true>(NodeId, std::uint32_t, SimTime, double, SimTime, SimTime);

NodeSnapshot NodeModel::snapshot(NodeId id, SimTime t) const {
  const NodeCounters& c = counters_[id];
  const Server* sv = servers_of(id);
  NodeSnapshot s;
  s.counters = c;
  s.busy = c.busy;
  s.in_system = c.sojourn;
  s.server_busy.resize(spec_->shards);
  for (std::size_t k = 0; k < spec_->shards; ++k) s.server_busy[k] = sv[k].busy;
  for (std::size_t k = 0; k < spec_->shards; ++k) {
    // After its last arrival a server works without a gap until free_at, apart from pauses.
    if (sv[k].free_at > t) {
      const SimTime ahead = sv[k].free_at - t - paused_within(id, t, sv[k].free_at);
      s.busy -= ahead;
      s.server_busy[k] -= ahead;
    }
    const Ends& e = sv[k].ends;
    for (std::size_t i = 0; i < e.size(); ++i)
      if (e[i] > t) s.in_system -= e[i] - t;
  }
  LBSIM_DCHECK(s.busy >= 0 && s.in_system >= 0, "a node's time integrals went negative");
  return s;
}

void NodeModel::set_down(NodeId id, SimTime t) {
  Hot& h = hot_[id];
  if (!h.up) return;
  h.up = false;
  cold_[id].down_at.push_back(t);
  ++h.downs;
  // Queued work is lost: the server time and queue time it would have used after `t` never happen.
  const NodeSnapshot s = snapshot(id, t);
  counters_[id].busy = s.busy;
  counters_[id].sojourn = s.in_system;
  Server* sv = servers_of(id);
  for (std::size_t k = 0; k < spec_->shards; ++k) {
    sv[k].busy = s.server_busy[k];
    sv[k].ends.clear();
    sv[k].free_at = t;
  }
}

void NodeModel::set_up(NodeId id, SimTime t) {
  Hot& h = hot_[id];
  if (h.up) return;
  h.up = true;
  Server* sv = servers_of(id);
  for (std::size_t k = 0; k < spec_->shards; ++k) sv[k].free_at = t;
}

}  // namespace lbsim
