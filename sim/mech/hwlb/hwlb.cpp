// ScyllaDB's heat-weighted load balancing in the coordinators (cluster.cache_hit_rate_read_balancing,
// on by default with a scylla-* release and cluster.cache), a mechanism of the engine
// (sim/engine/mechanism.hpp). The maths is sim/cluster/heat_load_balance.hpp; this file keeps the
// rates it reads. Sources, scylladb/scylladb at
// f4a4091ca2 (re-expressed, no code copied):
// - the rate's input: the row cache's reads_with_no_misses and reads_with_misses meters
//   (utils/histogram.hh rates_moving_average: rates()[0] is a 1-minute exponentially weighted
//   moving average ticked every 10 s, alpha = 1 - e^(-10/60), the first tick taking the instant
//   rate; 0 before it); lbsim counts a replica read that hit (NodeCounters::cache_hits) as a read
//   without misses and one that missed as a read with misses;
// - service/misc_services.cc cache_hitrate_calculator::recalculate_hitrates: rate = h / (h + m)
//   (0 when h is 0), set as the table's global cache hit rate; the next round after 0.5 s when it
//   moved by more than 0.01, else 2 s; published in gossip (CACHE_HITRATES) on the rule of
//   hwlb::publishes;
// - replica/table.cc get_hit_rate / set_hit_rate: a coordinator's own rate is its global rate; a
//   peer's is the last one it heard: every data or digest read response carries the replica's
//   rate (cache_temperature; service/storage_proxy.cc calls set_hit_rate on it), and a peer never
//   heard of is looked up in gossip once (absent: -1, "an old node", which switches HWLB off);
// - service/storage_proxy.cc connection_dropped: a peer's entry is dropped when its connection
//   drops (a restart), so the next read looks it up in gossip again;
// - db/consistency_level.cc filter_for_query: the staleness rule, the cap, the dead band and
//   miss_equalizing_combination (Hwlb::targets below). It applies at every CL, ONE included:
//   the source has no CL condition.
// Modelling choices (configs/README.md "Heat-weighted load balancing"): one tick every
// 0.5 s drives every node's meter ticks and recomputations, each rounded up to that grid, all nodes
// starting at t = 0 (assumed); a response's rate is the replica's when its work was scheduled, heard
// at the response's arrival time (stamped then, applied at once); the speculative-retry spare
// (`extra`) is the next replica of the returned order, not ScyllaDB's uniform pick.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "sim/engine/sim_impl.hpp"
#include "sim/mech/hwlb/hwlb.hpp"

namespace lbsim {

namespace {
constexpr SimTime kHwlbGrid = 500 * kMs;     // the calculator's fast interval (the grid)
constexpr SimTime kMeterTick = 10 * kSec;    // meter_timer::tick_interval()
const double kMeterAlpha = 1 - std::exp(-10.0 / 60.0);  // moving_average(1 min, 10 s)
}  // namespace

std::unique_ptr<Mechanism> make_hwlb(Hwlb::Core& core, std::uint16_t id) {
  if (!core.sc_.mech.get<HwlbSpec>(MechSpecs::k_hwlb)) return nullptr;
  return std::make_unique<Hwlb>(core, id);
}

Hwlb::Hwlb(Core& core, std::uint16_t id)
    : core_(core), id_(id), cache_(core.find_mechanism<CacheDisk>()), rng_(core.root_.fork("hwlb")) {
  // Its spec needs the cache (hwlb_config.cpp), listed before it (mechanisms.inc): its hit counters.
  if (!cache_) check_fail("heat-weighted load balancing without the cache", id);
  nodes_.assign(core.n_, Node{});
  for (Node& h : nodes_) h.next_meter = kMeterTick;
  peers_.resize(core.n_);
  Hooks& k = core.hooks_;
  // A read response carries the replica's rate, whether the coordinator still waits or not (the
  // work ended at j.end; a needed answer is heard when it arrives).
  k.read_answer.add(this, [](void* s, std::uint32_t, NodeId coordinator, NodeId replica, SimTime at) {
    static_cast<Hwlb*>(s)->response(coordinator, replica, at);
  });
  k.read_answer_unneeded.add(this, [](void* s, std::uint32_t job) {
    auto* h = static_cast<Hwlb*>(s);
    const auto& j = h->core_.jobs_[job];
    h->response(h->core_.crs_[j.cr].node, j.node, j.end);
  });
  k.process_lost.add(this, [](void* s, NodeId n) { static_cast<Hwlb*>(s)->restart(n); });
  if (!k.read_order) {  // the dynamic snitch, listed first, keeps it when both are on
    k.read_order = {[](void* s, const ClNeed& need, NodeId node, std::span<const NodeId> replicas, std::span<NodeId> out) {
                      return static_cast<Hwlb*>(s)->targets(need, node, replicas, out);
                    },
                    this};
  }
}

void Hwlb::start() { core_.push_mech(kHwlbGrid, id_, 0, 0); }

void Hwlb::on_event(std::uint16_t, std::uint32_t) {
  const SimTime now_ = core_.now_;
  for (std::size_t n = 0; n < core_.n_; ++n) {
    Node& h = nodes_[n];
    if (!core_.nodes_.up(static_cast<NodeId>(n))) continue;
    const CacheDisk::Counts& k = cache_->counts(static_cast<NodeId>(n));
    while (now_ >= h.next_meter) {
      const double secs = static_cast<double>(kMeterTick) / static_cast<double>(kSec);
      const double hits = static_cast<double>(k.hits - h.hits_seen) / secs;
      const double misses = static_cast<double>(k.misses - h.misses_seen) / secs;
      h.hits_seen = k.hits;
      h.misses_seen = k.misses;
      if (h.meters_init) {
        h.ewma_hits += kMeterAlpha * (hits - h.ewma_hits);
        h.ewma_misses += kMeterAlpha * (misses - h.ewma_misses);
      } else {
        h.ewma_hits = hits;
        h.ewma_misses = misses;
        h.meters_init = true;
      }
      h.next_meter += kMeterTick;
    }
    if (now_ >= h.next_recompute) {
      const double rate = hwlb::hit_rate(h.ewma_hits, h.ewma_misses);
      const double diff = std::abs(rate - h.rate);
      h.rate = rate;
      if (hwlb::publishes(h.published, diff, now_, h.published_at)) {
        ++h.published;
        h.published_rate = rate;
        h.published_at = now_;
      }
      h.next_recompute = now_ + hwlb::next_recompute(diff);
    }
  }
  if (!core_.finished_all_) core_.push_mech(now_ + kHwlbGrid, id_, 0, 0);
}

void Hwlb::restart(NodeId n) {
  const SimTime now_ = core_.now_;
  Node& h = nodes_[n];
  const CacheDisk::Counts& k = cache_->counts(n);
  h = Node{};
  h.hits_seen = k.hits;
  h.misses_seen = k.misses;
  // The new process's timers start now; on the 0.5 s grid.
  h.next_meter = now_ + kMeterTick;
  h.next_recompute = now_;
  for (auto& peers : peers_) peers.erase(n);  // connection_dropped
}

void Hwlb::response(NodeId coordinator, NodeId replica, SimTime at) {
  if (coordinator == replica) return;  // its own rate is read directly
  Peer& p = peers_[coordinator][replica];
  p.known = true;
  p.rate.rate = nodes_[replica].rate;
  p.rate.updated = at;
}

double Hwlb::peer_rate(NodeId coordinator, NodeId peer) {
  const SimTime now_ = core_.now_;
  const double cap = core_.sc_.mech.get<HwlbSpec>(MechSpecs::k_hwlb)->max_hit_rate;
  if (coordinator == peer) return std::min(nodes_[peer].rate, cap);  // get_my_hit_rate: always fresh
  Peer& p = peers_[coordinator][peer];
  if (!p.known) {  // gossip, once: the published rate, or -1 (no CACHE_HITRATES yet)
    const Node& h = nodes_[peer];
    p.known = true;
    p.rate.rate = h.published > 0 ? h.published_rate : -1.0;
    p.rate.updated = now_;
  }
  return hwlb::effective_rate(p.rate, now_, cap);
}

// db/consistency_level.cc filter_for_query with HWLB: the live replicas closest first (ScyllaDB
// 2025.1's shuffle of ties included), then, when every rate is known and they differ by more than
// 0.01, the coordinator's miss-equalising combination of the CL's replicas; else the first ones.
// EACH_QUORUM keeps the core's order (as before HWLB's move here).
std::size_t Hwlb::targets(const ClNeed& need, NodeId node, std::span<const NodeId> replicas, std::span<NodeId> out) {
  const Topology& topo = core_.topo_;
  auto up = [this](NodeId r) { return core_.server_up_[r] != 0; };
  if (need.each) return read_targets(need, topo, node, replicas, up, out, core_.read_shuffle_);
  std::array<NodeId, 64> ids;  // written before read
  std::array<std::uint8_t, 64> tiers;
  std::size_t n = by_proximity(topo, node, replicas, up, ids, tiers);
  if (core_.read_shuffle_ != nullptr) {
    const auto t = std::span<const std::uint8_t>(tiers.data(), n);
    if (const TieAtCut tie = tie_at_cut(need, t); tie.begin != tie.end)
      shuffle_equal_distance(std::span<NodeId>(ids.data(), n), t, core_.read_shuffle_->next_u64());
  }
  if (need.local_only) {  // filter_for_query sees the coordinator's DC's replicas only
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (topo.node_dc[ids[i]] == topo.node_dc[node]) ids[m++] = ids[i];
    n = m;
  }
  const std::size_t k = std::min<std::size_t>(need.total, n);
  if (k > 0 && k < n) {  // bf >= live replicas: all of them, in proximity order
    rates_.resize(n);
    for (std::size_t i = 0; i < n; ++i) rates_[i] = peer_rate(node, ids[i]);
    if (hwlb::rebalances(rates_)) {
      const std::size_t me = ids[0] == node ? 0 : n + 1;
      hwlb::choose(rates_, me, static_cast<unsigned>(k), false, rng_, pick_);
      bool distinct = pick_.size() == k;
      for (std::size_t i = 1; i < pick_.size() && distinct; ++i) distinct = pick_[i] != pick_[i - 1];
      if (distinct) {  // scylladb#9285's workaround: a duplicate keeps the proximity order
        for (std::size_t i = 0; i < k && i < out.size(); ++i) out[i] = ids[pick_[i]];
        return std::min(k, out.size());
      }
    }
  }
  return take_targets(need, topo, topo.node_dc[node], std::span<const NodeId>(ids.data(), n), out);
}

}  // namespace lbsim
