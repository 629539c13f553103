// ScyllaDB's heat-weighted load balancing (cluster.cache_hit_rate_read_balancing), a mechanism of
// the engine (sim/engine/mechanism.hpp; README.md beside this file). Per node: the row cache's
// read meters (1-minute moving averages ticked every 10 s), the hit rate recomputed every 0.5 s /
// 2 s and its gossip publication; per coordinator: the rates it heard of its peers (from read
// responses, or gossip on first sight) with their time; reads choose their CL replicas by them
// (the read_order strategy).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/cluster/coordination.hpp"
#include "sim/cluster/heat_load_balance.hpp"
#include "sim/core/rng.hpp"
#include "sim/engine/mechanism.hpp"
#include "sim/mech/cache/cache.hpp"
#include "sim/mech/hwlb/hwlb_spec.hpp"
#include "sim/engine/simulation.hpp"

namespace lbsim {

class Hwlb final : public Mechanism {
 public:
  using Core = Simulation::Impl;
  Hwlb(Core& core, std::uint16_t id);

  void start() override;
  void on_event(std::uint16_t sub, std::uint32_t arg) override;  // the 0.5 s tick
  const char* event_name(std::uint16_t) const override { return "hwlb.tick"; }
  void streams(std::vector<std::pair<std::string, const Rng*>>& out) const override { out.emplace_back("hwlb", &rng_); }

  // The hook points and the strategy (hooks.hpp).
  void response(NodeId coordinator, NodeId replica, SimTime at);  // a read response carries the rate
  void restart(NodeId n);  // process_lost: meters, rate and gossip start over, peers forget it
  std::size_t targets(const ClNeed& need, NodeId node, std::span<const NodeId> replicas, std::span<NodeId> out);

  // What coordinator `c` uses as `peer`'s rate now (for tests, the core harness).
  double peer_rate(NodeId coordinator, NodeId peer);
  double node_rate(NodeId n) const { return nodes_[n].rate; }

 private:
  struct Node {
    std::uint64_t hits_seen = 0, misses_seen = 0;  // NodeCounters at the last meter tick
    double ewma_hits = 0, ewma_misses = 0;         // rates()[0] of reads_with_no_misses / _with_misses
    bool meters_init = false;
    SimTime next_meter = 0, next_recompute = 0;
    double rate = 0;  // the global cache hit rate the calculator last set
    std::uint64_t published = 0;
    double published_rate = 0;
    SimTime published_at = 0;
  };
  struct Peer {
    hwlb::PeerRate rate;
    bool known = false;
  };
  Core& core_;
  std::uint16_t id_;
  const CacheDisk* cache_;  // the nodes' hit and miss counters (sim/mech/cache)
  std::vector<Node> nodes_;
  std::vector<std::unordered_map<NodeId, Peer>> peers_;  // [coordinator]: the peers it knows of
  Rng rng_;
  std::vector<double> rates_;
  std::vector<std::uint32_t> pick_;
};

}  // namespace lbsim
