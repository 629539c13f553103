// What a coordinator needs to answer at a consistency level, and which replicas it asks.
//
// Semantics of Cassandra's ConsistencyLevel.blockFor / ReplicaPlans (3.x/4.x), with the
// configured replication factors: QUORUM = sum(rf)/2 + 1, LOCAL_QUORUM = rf(local DC)/2 + 1,
// EACH_QUORUM = rf(dc)/2 + 1 in every DC. Writes go to every live replica. Reads go to as many
// live replicas as the level needs, closest first: the coordinator itself, then its rack, then
// its DC, then the rest; ties keep the server replica order (a stand-in for Cassandra's dynamic
// snitch, not modelled; ScyllaDB before 2025.1), or, with a shuffle stream (ScyllaDB 2025.1 and
// later), are shuffled as ScyllaDB shuffles them (below). Not enough live replicas: Unavailable.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster/consistency.hpp"
#include "sim/cluster/topology.hpp"
#include "sim/core/rng.hpp"

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

// ScyllaDB's distance classes (scylladb/scylladb locator/topology.cc, topology::distance): 0 the
// node itself, 1 its rack, 3 its DC, 7 another DC; lbsim numbers them 0, 1, 2, 3.
inline std::uint8_t proximity_tier(const Topology& topo, NodeId coordinator, NodeId r) {
  if (r == coordinator) return 0;
  if (topo.node_dc[r] != topo.node_dc[coordinator]) return 3;
  return topo.node_rack[r] == topo.node_rack[coordinator] ? 1 : 2;
}

// The live replicas closest first into ids/tiers (replica order within a tier); returns how many.
template <class Up>
std::size_t by_proximity(const Topology& topo, NodeId coordinator, std::span<const NodeId> replicas, Up& up,
                         std::array<NodeId, 64>& ids, std::array<std::uint8_t, 64>& tiers) {
  std::size_t n = 0;
  for (std::uint8_t tier = 0; tier < 4; ++tier)
    for (NodeId r : replicas)
      if (n < ids.size() && up(r) && proximity_tier(topo, coordinator, r) == tier) {
        ids[n] = r;
        tiers[n++] = tier;
      }
  return n;
}

// ScyllaDB 2025.1's shuffle of equal-distance replicas (scylladb/scylladb commit d1490bb7bf, PR
// #21958, 2024-12-17; locator/topology.cc, topology::do_sort_by_proximity, unchanged at f4a4091ca2).
// After the sort by distance, one pass carries one replica: at each adjacent pair of equal
// distance one bit of a 64-bit random word (the lowest first, the word then rotated right by one)
// decides whether the next replica is written before the carried one (bit 1; the carried one
// stays carried) or after it (bit 0). Not a uniform permutation: of two equal replicas each comes
// first half of the time, but of three the last is never first (a, b: 1/2 each).
inline void shuffle_equal_distance(std::span<NodeId> ids, std::span<const std::uint8_t> tiers, std::uint64_t word) {
  if (ids.empty()) return;
  NodeId carry = ids[0];
  for (std::size_t i = 1; i < ids.size(); ++i) {
    const NodeId next = ids[i];
    if (tiers[i - 1] == tiers[i]) {
      const bool swap = (word & 1) != 0;
      word = std::rotr(word, 1);
      if (swap) {
        ids[i - 1] = next;
        continue;
      }
    }
    ids[i - 1] = carry;
    carry = next;
  }
  ids.back() = carry;
}

// The first replicas of a closest-first list that `need` takes (each DC up to its count with
// EACH_QUORUM, the coordinator's DC only with LOCAL_*); returns how many were written to `out`.
inline std::size_t take_targets(const ClNeed& need, const Topology& topo, std::uint32_t dc,
                                std::span<const NodeId> ordered, std::span<NodeId> out) {
  std::array<std::uint32_t, kMaxDcs> taken{};
  std::size_t n = 0;
  for (NodeId r : ordered) {
    if (n >= out.size() || (!need.each && n >= need.total)) break;
    const std::uint32_t d = topo.node_dc[r];
    if (need.each) {
      if (d >= kMaxDcs || taken[d] >= need.per_dc[d]) continue;
      ++taken[d];
    } else if (need.local_only && d != dc) {
      continue;
    }
    out[n++] = r;
  }
  return n;
}

// Where a tie can change which replicas a read takes: the ordered live replicas (ids/tiers, n of
// them). Without EACH_QUORUM the targets are a prefix of the eligible replicas (with LOCAL_* the
// coordinator's DC, tiers 0-2, itself a prefix): the shuffle matters only when the tier at the
// cut continues past it, and then only within that tier. Returns the tie group [begin, end) and
// the cut, or begin == end when no shuffle can change the targets. EACH_QUORUM: the whole list
// when it has any tie.
struct TieAtCut {
  std::size_t begin = 0, end = 0, cut = 0;
};
inline TieAtCut tie_at_cut(const ClNeed& need, std::span<const std::uint8_t> tiers) {
  const std::size_t n = tiers.size();
  if (need.each) {
    for (std::size_t i = 1; i < n; ++i)
      if (tiers[i - 1] == tiers[i]) return {0, n, 0};
    return {};
  }
  std::size_t eligible = n;
  if (need.local_only) eligible = static_cast<std::size_t>(std::find(tiers.begin(), tiers.end(), 3) - tiers.begin());
  const std::size_t k = std::min<std::size_t>(need.total, eligible);
  if (k == 0 || k >= eligible || tiers[k - 1] != tiers[k]) return {};
  TieAtCut t{k - 1, k + 1, k};
  while (t.begin > 0 && tiers[t.begin - 1] == tiers[k]) --t.begin;
  while (t.end < eligible && tiers[t.end] == tiers[k]) ++t.end;
  return t;
}

// Replicas a read asks, closest first; returns how many were written to `out`. `shuffle`: null
// keeps ties in replica order (ServerRules::shuffle_equal_distance_reads off); otherwise ties are
// shuffled as ScyllaDB 2025.1 does (shuffle_equal_distance), with one 64-bit word drawn from it,
// and only when the shuffle can change the targets (tie_at_cut): 1 < CL < live replicas with the
// coordinator a replica, also CL ONE from a coordinator that is not one. ScyllaDB shuffles on every
// read (storage_proxy::get_endpoints_for_reading -> sort_endpoints_by_proximity) and then takes
// the first block_for replicas (db/consistency_level.cc, filter_for_query); a word whose bits can
// change nothing is not drawn, which changes no probability.
template <class Up>
std::size_t read_targets(const ClNeed& need, const Topology& topo, NodeId coordinator,
                         std::span<const NodeId> replicas, Up&& up, std::span<NodeId> out, Rng* shuffle = nullptr) {
  // One target, and the coordinator is a live replica: the loop below would take it alone (tier 0).
  if (!need.each && need.total == 1 && !out.empty() && up(coordinator) &&
      std::find(replicas.begin(), replicas.end(), coordinator) != replicas.end()) {
    out[0] = coordinator;
    return 1;
  }
  if (shuffle != nullptr) {
    std::array<NodeId, 64> ids;  // written before read
    std::array<std::uint8_t, 64> tiers;
    const std::size_t n = by_proximity(topo, coordinator, replicas, up, ids, tiers);
    const auto t = std::span<const std::uint8_t>(tiers.data(), n);
    if (const TieAtCut tie = tie_at_cut(need, t); tie.begin != tie.end)
      shuffle_equal_distance(std::span<NodeId>(ids.data(), n), t, shuffle->next_u64());
    return take_targets(need, topo, topo.node_dc[coordinator], std::span<const NodeId>(ids.data(), n), out);
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


// The analytic load model's read targets under ScyllaDB 2025.1's shuffle (read_targets with a
// shuffle stream): each target with the probability that a read takes it. Without EACH_QUORUM,
// exact in closed form: replicas before the tie at the cut are always taken; of the tie's G
// replicas (m = cut - begin places left), the pass carries its first replica past each place with
// probability 1/2, so the first takes a place with probability 1 - 2^-m and the j-th (j >= 1)
// with 1 - 2^-(m - j + 1) when j <= m, never when j > m (the probabilities sum to m). EACH_QUORUM:
// the mean over every value of the bits the ties use (exact) when there are at most 12 ties,
// else the replica order (an approximation). Returns how many targets were written.
template <class Up>
std::size_t read_target_shares(const ClNeed& need, const Topology& topo, NodeId coordinator,
                               std::span<const NodeId> replicas, Up&& up, std::span<NodeId> out,
                               std::span<double> share) {
  std::array<NodeId, 64> ids;
  std::array<std::uint8_t, 64> tiers;
  const std::size_t n = by_proximity(topo, coordinator, replicas, up, ids, tiers);
  const auto t = std::span<const std::uint8_t>(tiers.data(), n);
  const std::uint32_t dc = topo.node_dc[coordinator];
  const TieAtCut tie = tie_at_cut(need, t);
  std::size_t pairs = 0;
  for (std::size_t i = 1; i < n; ++i) pairs += tiers[i - 1] == tiers[i];
  if (tie.begin == tie.end || (need.each && pairs > 12)) {
    const std::size_t k = take_targets(need, topo, dc, std::span<const NodeId>(ids.data(), n), out);
    std::fill_n(share.begin(), k, 1.0);
    return k;
  }
  std::size_t k = 0;
  if (!need.each) {
    for (std::size_t i = 0; i < tie.begin && k < out.size(); ++i, ++k) {
      out[k] = ids[i];
      share[k] = 1.0;
    }
    const std::size_t m = tie.cut - tie.begin;
    for (std::size_t j = 0; j < tie.end - tie.begin && j <= m && k < out.size(); ++j, ++k) {
      out[k] = ids[tie.begin + j];
      share[k] = 1.0 - std::ldexp(1.0, -static_cast<int>(j == 0 ? m : m - j + 1));
    }
    return k;
  }
  const double each = std::ldexp(1.0, -static_cast<int>(pairs));
  for (std::uint64_t w = 0; w < (std::uint64_t{1} << pairs); ++w) {
    std::array<NodeId, 64> order = ids, taken;
    shuffle_equal_distance(std::span<NodeId>(order.data(), n), t, w);
    const std::size_t got = take_targets(need, topo, dc, std::span<const NodeId>(order.data(), n), taken);
    for (std::size_t i = 0; i < got; ++i) {
      const auto seen = out.first(k);
      const auto at = static_cast<std::size_t>(std::find(seen.begin(), seen.end(), taken[i]) - seen.begin());
      if (at == k) {
        if (k >= out.size()) continue;
        out[k] = taken[i];
        share[k++] = 0.0;
      }
      share[at] += each;
    }
  }
  return k;
}

}  // namespace lbsim
