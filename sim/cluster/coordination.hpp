// What a coordinator needs to answer at a consistency level, and which replicas it asks.
//
// Semantics of Cassandra's ConsistencyLevel.blockFor / ReplicaPlans (3.x/4.x), with the
// configured replication factors: QUORUM = sum(rf)/2 + 1, LOCAL_QUORUM = rf(local DC)/2 + 1,
// EACH_QUORUM = rf(dc)/2 + 1 in every DC. Writes go to every live replica. Reads go to as many
// live replicas as the level needs, closest first: the coordinator itself, then its rack, then
// its DC, then the rest; ties keep the server replica order (a stand-in for the dynamic snitch).
// Not enough live replicas: Unavailable.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster/consistency.hpp"
#include "sim/cluster/topology.hpp"

namespace lbsim {

inline constexpr std::size_t kMaxDcs = 16;

struct ClNeed {
  std::uint32_t total = 1;
  bool local_only = false;  // LOCAL_*: only replicas in the coordinator's DC count
  bool each = false;        // EACH_QUORUM: per_dc applies
  std::array<std::uint8_t, kMaxDcs> per_dc{};
};

// Configured RF per DC index (SimpleStrategy: the whole RF on every DC) and their sum.
struct RfTable {
  std::vector<std::uint32_t> per_dc;
  std::uint32_t total = 0;
  static RfTable of(const Topology& topo, const Replication& repl);
};

ClNeed cl_need(ConsistencyLevel cl, std::uint32_t coordinator_dc, const RfTable& rf);

// True when enough replicas are up (in the coordinator's view) to meet `need`.
template <class Up>
bool cl_available(const ClNeed& need, const Topology& topo, std::uint32_t coordinator_dc,
                  std::span<const NodeId> replicas, Up&& up) {
  if (!need.each) {  // one count, which can stop as soon as it is enough
    if (need.local_only && coordinator_dc >= kMaxDcs) return false;
    std::uint32_t live = 0;
    for (NodeId r : replicas) {
      if (!up(r) || (need.local_only && topo.node_dc[r] != coordinator_dc)) continue;
      if (++live >= need.total) return true;
    }
    return live >= need.total;
  }
  std::array<std::uint32_t, kMaxDcs> live_dc{};  // EACH_QUORUM: per DC
  for (NodeId r : replicas)
    if (up(r) && topo.node_dc[r] < kMaxDcs) ++live_dc[topo.node_dc[r]];
  for (std::size_t d = 0; d < topo.dcs.size() && d < kMaxDcs; ++d)
    if (live_dc[d] < need.per_dc[d]) return false;
  return true;
}

// Replicas a read asks, closest first; returns how many were written to `out`.
template <class Up>
std::size_t read_targets(const ClNeed& need, const Topology& topo, NodeId coordinator,
                         std::span<const NodeId> replicas, Up&& up, std::span<NodeId> out) {
  // One target, and the coordinator is a live replica: the loop below would take it alone (tier 0).
  if (!need.each && need.total == 1 && !out.empty() && up(coordinator) &&
      std::find(replicas.begin(), replicas.end(), coordinator) != replicas.end()) {
    out[0] = coordinator;
    return 1;
  }
  std::array<std::uint32_t, kMaxDcs> taken{};
  std::uint32_t total = 0;
  std::size_t n = 0;
  const std::uint32_t dc = topo.node_dc[coordinator], rack = topo.node_rack[coordinator];
  for (int tier = 0; tier < 4; ++tier) {
    if (!need.each && total >= need.total) break;  // enough targets: later tiers add none
    for (NodeId r : replicas) {
      if (!up(r) || n >= out.size()) continue;
      const std::uint32_t d = topo.node_dc[r];
      const int t = r == coordinator ? 0 : topo.node_rack[r] == rack ? 1 : d == dc ? 2 : 3;
      if (t != tier) continue;
      if (need.each) {
        if (d >= kMaxDcs || taken[d] >= need.per_dc[d]) continue;
      } else if (need.local_only) {
        if (d != dc || total >= need.total) continue;
      } else if (total >= need.total) {
        continue;
      }
      ++total;
      if (d < kMaxDcs) ++taken[d];
      out[n++] = r;
    }
  }
  return n;
}

}  // namespace lbsim
