#include "sim/cluster/tablet_balancer.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

// Named namespace, not an anonymous one: unity builds merge translation units.
namespace lbsim::balancer_detail {

// Projected state of one planning round: the map with the in-progress and already planned
// migrations counted as done, the per-shard slots they occupy, and the tablets that may still move.
class Planner {
 public:
  Planner(const Topology& topo, const TabletMap& map, std::span<const BalancerNode> nodes,
          std::span<const TabletMigration> in_progress, const BalancerLimits& limits, Rng& rng)
      : topo_(topo), map_(map), nodes_(nodes), limits_(limits), rng_(rng) {
    if (nodes.size() != topo.size())
      throw std::invalid_argument("balancer: " + std::to_string(nodes.size()) + " node states for " +
                                  std::to_string(topo.size()) + " nodes");
    if (map.replicas_per_tablet() > kMaxReplicas)
      throw std::invalid_argument("balancer: more than " + std::to_string(kMaxReplicas) + " replicas per tablet");
    first_shard_.assign(topo.size() + 1, 0);
    for (NodeId n = 0; n < topo.size(); ++n) first_shard_[n + 1] = first_shard_[n] + nodes[n].shards;
    const std::size_t total = first_shard_.back();
    count_.assign(total, 0);
    in_.assign(total, 0);
    out_.assign(total, 0);
    tablets_.assign(total, {});
    node_count_.assign(topo.size(), 0);
    locked_.assign(map.count(), 0);

    for (std::uint64_t t = 0; t < map.count(); ++t)
      for (const TabletReplica& r : map.replicas(t)) {
        if (!valid_shard(r))
          throw std::invalid_argument("balancer: tablet " + std::to_string(t) + " has a replica on node " +
                                      std::to_string(r.host) + " shard " + std::to_string(r.shard) +
                                      ", which is not a member shard");
        ++count_[flat(r)];
        ++node_count_[r.host];
      }
    for (const TabletMigration& m : in_progress) {
      check_in_progress(m);
      locked_[m.tablet] = 1;
      move_load(m.from, m.to);
    }
    // Candidates: the tablets not in flight, by the shard holding them.
    for (std::uint64_t t = 0; t < map.count(); ++t)
      if (!locked_[t])
        for (const TabletReplica& r : map.replicas(t)) tablets_[flat(r)].push_back(t);
  }

  std::vector<TabletMigration> run() {
    for (std::uint32_t dc = 0; dc < topo_.dcs.size(); ++dc) plan_dc(dc);
    return std::move(plan_);
  }

 private:
  static constexpr std::size_t kMaxReplicas = 64;  // per tablet; the rack check uses a fixed buffer

  bool member(NodeId n) const { return n < nodes_.size() && nodes_[n].shards > 0; }
  bool valid_shard(TabletReplica r) const { return member(r.host) && r.shard < nodes_[r.host].shards; }
  std::size_t flat(TabletReplica r) const { return first_shard_[r.host] + r.shard; }

  void check_in_progress(const TabletMigration& m) const {
    const std::string what = "balancer: in-progress migration of tablet " + std::to_string(m.tablet);
    if (m.tablet >= map_.count()) throw std::invalid_argument(what + ": no such tablet");
    if (locked_[m.tablet]) throw std::invalid_argument(what + ": listed twice");
    const auto reps = map_.replicas(m.tablet);
    if (std::find(reps.begin(), reps.end(), m.from) == reps.end())
      throw std::invalid_argument(what + ": `from` is not a replica");
    if (!valid_shard(m.to)) throw std::invalid_argument(what + ": `to` is not a member shard");
    if (topo_.node_dc[m.to.host] != topo_.node_dc[m.from.host])
      throw std::invalid_argument(what + ": `to` is in another datacenter");
    for (const TabletReplica& r : reps)
      if (r.host == m.to.host && !(r == m.from))
        throw std::invalid_argument(what + ": `to` already holds a replica");
  }

  void move_load(TabletReplica from, TabletReplica to) {
    --count_[flat(from)];
    --node_count_[from.host];
    ++out_[flat(from)];
    ++count_[flat(to)];
    ++node_count_[to.host];
    ++in_[flat(to)];
  }

  void apply(std::uint64_t tablet, TabletReplica from, TabletReplica to) {
    locked_[tablet] = 1;
    move_load(from, to);
    plan_.push_back({tablet, from, to});
  }

  // a / a_shards < b / b_shards, exactly (counts and shards fit in 32 bits).
  static bool lower(std::uint64_t a, std::uint64_t a_shards, std::uint64_t b, std::uint64_t b_shards) {
    return a * b_shards < b * a_shards;
  }
  // Node order by load, ties by id (deterministic).
  bool less_loaded(NodeId a, NodeId b) const {
    const std::uint64_t ca = node_count_[a], cb = node_count_[b];
    const std::uint64_t sa = nodes_[a].shards, sb = nodes_[b].shards;
    if (ca * sb != cb * sa) return ca * sb < cb * sa;
    return a < b;
  }

  // The least-loaded shard of `n` (pending replicas counted) with a free in slot.
  std::optional<std::uint32_t> destination_shard(NodeId n) const {
    std::optional<std::uint32_t> best;
    for (std::uint32_t s = 0; s < nodes_[n].shards; ++s) {
      const std::size_t f = first_shard_[n] + s;
      if (in_[f] >= limits_.max_in_per_shard) continue;
      if (!best || count_[f] < count_[first_shard_[n] + *best]) best = s;
    }
    return best;
  }
  // Shards of `n` with a free out slot, most-loaded first (ties by index).
  std::vector<std::uint32_t> source_shards(NodeId n) const {
    std::vector<std::uint32_t> v;
    for (std::uint32_t s = 0; s < nodes_[n].shards; ++s)
      if (out_[first_shard_[n] + s] < limits_.max_out_per_shard) v.push_back(s);
    std::stable_sort(v.begin(), v.end(), [&](std::uint32_t a, std::uint32_t b) {
      return count_[first_shard_[n] + a] > count_[first_shard_[n] + b];
    });
    return v;
  }

  // check_constraints: moving the replica of `tablet` on `src` to node `dst` keeps the tablet off
  // any node twice and does not raise its maximum replica count per rack in the DC.
  bool may_move(std::uint64_t tablet, NodeId src, NodeId dst) const {
    const auto reps = map_.replicas(tablet);
    const std::uint32_t dc = topo_.node_dc[src];
    std::uint32_t racks[2][kMaxReplicas];  // the replicas' racks in the DC, before and after
    std::size_t n = 0;
    for (const TabletReplica& r : reps) {
      if (r.host == dst) return false;
      if (topo_.node_dc[r.host] == dc) racks[0][n++] = topo_.node_rack[r.host];
    }
    std::copy(racks[0], racks[0] + n, racks[1]);
    for (std::size_t i = 0; i < n; ++i)
      if (racks[1][i] == topo_.node_rack[src]) {
        racks[1][i] = topo_.node_rack[dst];
        break;
      }
    auto max_per_rack = [n](const std::uint32_t* rk) {
      std::size_t best = 0;
      for (std::size_t i = 0; i < n; ++i)
        best = std::max<std::size_t>(best, static_cast<std::size_t>(std::count(rk, rk + n, rk[i])));
      return best;
    };
    return max_per_rack(racks[1]) <= max_per_rack(racks[0]);
  }

  // One inter-node move in the DC being planned, or false. Drain: the draining nodes holding
  // replicas are the sources and any destination will do. Free balancing: a move must strictly
  // lower the load; the least-loaded destination and the most-loaded source are tried first.
  bool internode_move(bool drain) {
    std::vector<NodeId> dsts, srcs;
    for (NodeId n : dc_nodes_) {
      if (!nodes_[n].draining) dsts.push_back(n);
      if (nodes_[n].draining == drain && node_count_[n] > 0) srcs.push_back(n);
    }
    std::sort(dsts.begin(), dsts.end(), [&](NodeId a, NodeId b) { return less_loaded(a, b); });
    std::sort(srcs.begin(), srcs.end(), [&](NodeId a, NodeId b) { return less_loaded(b, a); });
    for (const NodeId dst : dsts) {
      const auto dst_shard = destination_shard(dst);
      if (!dst_shard) continue;
      for (NodeId src : srcs) {
        if (src == dst) continue;
        // Sources are sorted by load, so once one would not improve, none after it will.
        if (!drain && !lower(node_count_[dst] + 1, nodes_[dst].shards, node_count_[src], nodes_[src].shards)) break;
        for (std::uint32_t s : source_shards(src)) {
          const std::size_t f = first_shard_[src] + s;
          // Valid candidates only shrink within a round (tablets get locked, the map stays), so a
          // (source shard, destination node) pair without one is not searched again.
          std::uint8_t& dead = no_candidate_[(dc_shard_base_[src] + s) * dc_nodes_.size() + dc_index_[dst]];
          if (dead) continue;
          candidates_.clear();
          for (std::uint64_t t : tablets_[f])
            if (!locked_[t] && may_move(t, src, dst)) candidates_.push_back(t);
          if (candidates_.empty()) {
            dead = 1;
            continue;
          }
          apply(pick(), {src, s}, {dst, *dst_shard});
          return true;
        }
      }
    }
    return false;
  }

  // make_node_plan: inside node `n`, from its most-loaded shard that can send to its least-loaded
  // shard that can receive, while they differ by 2 or more.
  void intranode(NodeId n) {
    const std::size_t base = first_shard_[n];
    for (;;) {
      std::optional<std::uint32_t> src;
      for (std::uint32_t s = 0; s < nodes_[n].shards; ++s) {
        if (out_[base + s] >= limits_.max_out_per_shard) continue;
        if (src && count_[base + s] <= count_[base + *src]) continue;
        const auto& ts = tablets_[base + s];
        if (std::any_of(ts.begin(), ts.end(), [&](std::uint64_t t) { return !locked_[t]; })) src = s;
      }
      if (!src) return;
      std::optional<std::uint32_t> dst;
      for (std::uint32_t s = 0; s < nodes_[n].shards; ++s)
        if (s != *src && in_[base + s] < limits_.max_in_per_shard && (!dst || count_[base + s] < count_[base + *dst]))
          dst = s;
      if (!dst || count_[base + *src] < count_[base + *dst] + 2) return;
      candidates_.clear();
      for (std::uint64_t t : tablets_[base + *src])
        if (!locked_[t]) candidates_.push_back(t);
      apply(pick(), {n, *src}, {n, *dst});
    }
  }

  std::uint64_t pick() {
    const std::size_t i = candidates_.size() > 1 ? static_cast<std::size_t>(rng_.below(candidates_.size())) : 0;
    return candidates_[i];
  }

  void plan_dc(std::uint32_t dc) {
    dc_nodes_.clear();
    for (NodeId n = 0; n < topo_.size(); ++n)
      if (topo_.node_dc[n] == dc && member(n)) dc_nodes_.push_back(n);
    dc_index_.assign(topo_.size(), 0);
    dc_shard_base_.assign(topo_.size(), 0);
    std::size_t dc_shards = 0;
    for (std::size_t i = 0; i < dc_nodes_.size(); ++i) {
      dc_index_[dc_nodes_[i]] = i;
      dc_shard_base_[dc_nodes_[i]] = dc_shards;
      dc_shards += nodes_[dc_nodes_[i]].shards;
    }
    no_candidate_.assign(dc_shards * dc_nodes_.size(), 0);

    // Every move takes an out slot, so the loop ends; the bound only documents it.
    const std::size_t bound = first_shard_.back() * std::size_t{limits_.max_out_per_shard} + 1;
    for (std::size_t i = 0; i < bound; ++i) {
      const bool drain = std::any_of(dc_nodes_.begin(), dc_nodes_.end(),
                                     [&](NodeId n) { return nodes_[n].draining && node_count_[n] > 0; });
      if (!internode_move(drain)) break;
    }
    for (NodeId n : dc_nodes_)
      if (!nodes_[n].draining) intranode(n);
  }

  const Topology& topo_;
  const TabletMap& map_;
  std::span<const BalancerNode> nodes_;
  BalancerLimits limits_;
  Rng& rng_;

  std::vector<std::size_t> first_shard_;  // node -> index of its shard 0 in the per-shard arrays
  std::vector<std::uint64_t> count_;      // per shard: projected replicas
  std::vector<std::uint32_t> in_, out_;   // per shard: pending / leaving replicas (slots used)
  std::vector<std::vector<std::uint64_t>> tablets_;  // per shard: tablets held (locked ones skipped)
  std::vector<std::uint64_t> node_count_;            // per node: projected replicas
  std::vector<std::uint8_t> locked_;                 // per tablet: in flight or planned
  std::vector<NodeId> dc_nodes_;                     // member nodes of the DC being planned
  std::vector<std::size_t> dc_index_;                // node -> position in dc_nodes_
  std::vector<std::size_t> dc_shard_base_;           // node -> index of its shard 0 among the DC's shards
  std::vector<std::uint8_t> no_candidate_;           // (DC shard, DC node position) searched in vain
  std::vector<std::uint64_t> candidates_;
  std::vector<TabletMigration> plan_;
};

}  // namespace lbsim::balancer_detail

namespace lbsim {

std::vector<TabletMigration> plan_migrations(const Topology& topo, const TabletMap& map,
                                             std::span<const BalancerNode> nodes,
                                             std::span<const TabletMigration> in_progress,
                                             const BalancerLimits& limits, Rng& rng) {
  return balancer_detail::Planner(topo, map, nodes, in_progress, limits, rng).run();
}

BalanceStats balance_stats(const Topology& topo, const TabletMap& map, std::span<const BalancerNode> nodes) {
  auto shards_of = [&](NodeId n) { return n < nodes.size() ? nodes[n].shards : 0u; };
  std::vector<std::size_t> first(topo.size() + 1, 0);
  for (NodeId n = 0; n < topo.size(); ++n) first[n + 1] = first[n] + shards_of(n);
  std::vector<std::uint64_t> shard(first.back(), 0), node(topo.size(), 0);
  for (const TabletReplica& r : map.all())
    if (r.host < topo.size() && r.shard < shards_of(r.host)) {
      ++shard[first[r.host] + r.shard];
      ++node[r.host];
    }
  BalanceStats out;
  for (std::uint32_t dc = 0; dc < topo.dcs.size(); ++dc) {
    double node_max = 0, node_sum = 0, shard_max = 0, shard_sum = 0;
    std::size_t live_nodes = 0, live_shards = 0;
    for (NodeId n = 0; n < topo.size(); ++n) {
      if (topo.node_dc[n] != dc || shards_of(n) == 0) continue;
      const double load = static_cast<double>(node[n]) / shards_of(n);
      node_max = std::max(node_max, load);
      for (std::size_t f = first[n]; f < first[n + 1]; ++f) shard_max = std::max(shard_max, static_cast<double>(shard[f]));
      if (nodes[n].draining) continue;
      node_sum += load;
      ++live_nodes;
      shard_sum += static_cast<double>(node[n]);
      live_shards += shards_of(n);
    }
    if (live_nodes == 0 || node_sum <= 0) continue;
    out.node_overcommit = std::max(out.node_overcommit, node_max / (node_sum / static_cast<double>(live_nodes)));
    out.shard_overcommit = std::max(out.shard_overcommit, shard_max / (shard_sum / static_cast<double>(live_shards)));
  }
  return out;
}

}  // namespace lbsim
