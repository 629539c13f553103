// ScyllaDB's heat-weighted load balancing in the coordinators (cluster.cache_hit_rate_read_balancing,
// on by default with a scylla-* release and cluster.cache). The maths is sim/cluster/
// heat_load_balance.hpp; this file keeps the rates it reads. Sources, scylladb/scylladb at
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
//   miss_equalizing_combination (sim_impl.hpp hwlb_targets). It applies at every CL, ONE included:
//   the source has no CL condition.
// Modelling choices (configs/README.md "Heat-weighted load balancing"): one tick every
// 0.5 s drives every node's meter ticks and recomputations, each rounded up to that grid, all nodes
// starting at t = 0 (assumed); a response's rate is the replica's when its work was scheduled, heard
// at the response's arrival time (stamped then, applied at once); the speculative-retry spare
// (`extra`) is the next replica of the returned order, not ScyllaDB's uniform pick.
#include <algorithm>
#include <cmath>

#include "sim/engine/sim_impl.hpp"

namespace lbsim {

namespace {
constexpr SimTime kHwlbGrid = 500 * kMs;     // the calculator's fast interval (the grid)
constexpr SimTime kMeterTick = 10 * kSec;    // meter_timer::tick_interval()
const double kMeterAlpha = 1 - std::exp(-10.0 / 60.0);  // moving_average(1 min, 10 s)
}  // namespace

void Simulation::Impl::hwlb_init() {
  hwlb_ = sc_.nodes.balancing.heat_weighted;
  if (!hwlb_) return;
  hwlb_rng_ = root_.fork("hwlb");
  hwlb_nodes_.assign(n_, HwlbNode{});
  for (HwlbNode& h : hwlb_nodes_) h.next_meter = kMeterTick;
  hwlb_peers_.resize(n_);
  push_mech(kHwlbGrid, kMechHwlb, 0, 0);
}

void Simulation::Impl::on_hwlb_tick() {
  for (std::size_t n = 0; n < n_; ++n) {
    HwlbNode& h = hwlb_nodes_[n];
    if (!nodes_.up(static_cast<NodeId>(n))) continue;
    const NodeCounters& k = nodes_.counters(static_cast<NodeId>(n));
    while (now_ >= h.next_meter) {
      const double secs = static_cast<double>(kMeterTick) / static_cast<double>(kSec);
      const double hits = static_cast<double>(k.cache_hits - h.hits_seen) / secs;
      const double misses = static_cast<double>(k.cache_misses - h.misses_seen) / secs;
      h.hits_seen = k.cache_hits;
      h.misses_seen = k.cache_misses;
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
  if (!finished_all_) push_mech(now_ + kHwlbGrid, kMechHwlb, 0, 0);
}

void Simulation::Impl::hwlb_restart(NodeId n) {
  if (!hwlb_) return;
  HwlbNode& h = hwlb_nodes_[n];
  const NodeCounters& k = nodes_.counters(n);
  h = HwlbNode{};
  h.hits_seen = k.cache_hits;
  h.misses_seen = k.cache_misses;
  // The new process's timers start now; on the 0.5 s grid.
  h.next_meter = now_ + kMeterTick;
  h.next_recompute = now_;
  for (auto& peers : hwlb_peers_) peers.erase(n);  // connection_dropped
}

void Simulation::Impl::hwlb_response(NodeId coordinator, NodeId replica, SimTime at) {
  if (coordinator == replica) return;  // its own rate is read directly
  HwlbPeer& p = hwlb_peers_[coordinator][replica];
  p.known = true;
  p.rate.rate = hwlb_nodes_[replica].rate;
  p.rate.updated = at;
}

double Simulation::Impl::hwlb_peer_rate(NodeId coordinator, NodeId peer) {
  const double cap = sc_.nodes.balancing.max_hit_rate;
  if (coordinator == peer) return std::min(hwlb_nodes_[peer].rate, cap);  // get_my_hit_rate: always fresh
  HwlbPeer& p = hwlb_peers_[coordinator][peer];
  if (!p.known) {  // gossip, once: the published rate, or -1 (no CACHE_HITRATES yet)
    const HwlbNode& h = hwlb_nodes_[peer];
    p.known = true;
    p.rate.rate = h.published > 0 ? h.published_rate : -1.0;
    p.rate.updated = now_;
  }
  return hwlb::effective_rate(p.rate, now_, cap);
}

}  // namespace lbsim
