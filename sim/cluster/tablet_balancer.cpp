#include "sim/cluster/tablet_balancer.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

// Named namespace, not an anonymous one: unity builds merge translation units.
namespace lbsim::balancer_detail {

// SS migration_badness: how far a move would push one table past its even share on the source and
// destination shard and node; positive is bad. Node badness first, then shard badness.
struct Badness {
  double src_shard = 0, src_node = 0, dst_shard = 0, dst_node = 0;
  double node() const { return std::max(src_node, dst_node); }
  double shard() const { return std::max(src_shard, dst_shard); }
  bool bad() const { return src_shard > 0 || src_node > 0 || dst_shard > 0 || dst_node > 0; }
  // SS migration_badness::operator<.
  bool operator<(const Badness& o) const {
    if (node() == o.node()) return shard() < o.shard();
    if (node() > 0 || o.node() > 0) return node() < o.node();
    return shard() < o.shard();
  }
};

// Projected state of one planning round: the maps with the in-progress and already planned
// migrations counted as done, the per-shard slots they occupy, and the tablets that may still move.
// Tablets are numbered globally: table t's tablet i is offset_[t] + i.
class Planner {
 public:
  Planner(const Topology& topo, std::span<const BalancerTable> tables, std::span<const BalancerNode> nodes,
          std::span<const TabletMigration> in_progress, const BalancerLimits& limits, const BalancerOptions& opts,
          Rng& rng)
      : topo_(topo), tables_(tables), nodes_(nodes), limits_(limits), opts_(opts), rng_(rng), nt_(tables.size()) {
    if (nodes.size() != topo.size())
      throw std::invalid_argument("balancer: " + std::to_string(nodes.size()) + " node states for " +
                                  std::to_string(topo.size()) + " nodes");
    offset_.assign(nt_ + 1, 0);
    unit_.assign(nt_, 1);
    for (std::size_t t = 0; t < nt_; ++t) {
      if (tables[t].map == nullptr) throw std::invalid_argument("balancer: table " + std::to_string(t) + " has no map");
      if (map(t).replicas_per_tablet() > kMaxReplicas)
        throw std::invalid_argument("balancer: more than " + std::to_string(kMaxReplicas) + " replicas per tablet");
      offset_[t + 1] = offset_[t] + map(t).count();
      if (opts.goal == BalanceGoal::Capacity) unit_[t] = opts.target_tablet_size;
      if (opts.goal == BalanceGoal::Size) unit_[t] = std::max<std::uint64_t>({tables[t].tablet_size, opts.min_tablet_size, 1});
    }
    table_of_.resize(offset_.back());
    for (std::size_t t = 0; t < nt_; ++t)
      std::fill(table_of_.begin() + static_cast<std::ptrdiff_t>(offset_[t]),
                table_of_.begin() + static_cast<std::ptrdiff_t>(offset_[t + 1]), static_cast<std::uint32_t>(t));
    first_shard_.assign(topo.size() + 1, 0);
    for (NodeId n = 0; n < topo.size(); ++n) first_shard_[n + 1] = first_shard_[n] + nodes[n].shards;
    const std::size_t total = first_shard_.back();
    load_.assign(total, 0);
    in_.assign(total, 0);
    out_.assign(total, 0);
    tablets_.assign(total * nt_, {});
    tcount_.assign(total * nt_, 0);
    node_load_.assign(topo.size(), 0);
    node_tcount_.assign(topo.size() * nt_, 0);
    locked_.assign(offset_.back(), 0);

    for (std::size_t t = 0; t < nt_; ++t)
      for (std::uint64_t i = 0; i < map(t).count(); ++i)
        for (const TabletReplica& r : map(t).replicas(i)) {
          if (!valid_shard(r))
            throw std::invalid_argument("balancer: table " + std::to_string(t) + " tablet " + std::to_string(i) +
                                        " has a replica on node " + std::to_string(r.host) + " shard " +
                                        std::to_string(r.shard) + ", which is not a member shard");
          add(t, r, 1);
        }
    for (const TabletMigration& m : in_progress) {
      check_in_progress(m);
      locked_[offset_[m.table] + m.tablet] = 1;
      move_load(m.table, m.from, m.to);
    }
    // Candidates: the tablets not in flight, by the shard holding them and their table.
    for (std::size_t t = 0; t < nt_; ++t)
      for (std::uint64_t i = 0; i < map(t).count(); ++i)
        if (!locked_[offset_[t] + i])
          for (const TabletReplica& r : map(t).replicas(i)) tablets_[flat(r) * nt_ + t].push_back(offset_[t] + i);
  }

  std::vector<TabletMigration> run() {
    for (std::uint32_t dc = 0; dc < topo_.dcs.size(); ++dc) plan_dc(dc);
    return std::move(plan_);
  }

 private:
  static constexpr std::size_t kMaxReplicas = 64;  // per tablet; the rack check uses a fixed buffer

  const TabletMap& map(std::size_t t) const { return *tables_[t].map; }
  bool member(NodeId n) const { return n < nodes_.size() && nodes_[n].shards > 0; }
  bool valid_shard(TabletReplica r) const { return member(r.host) && r.shard < nodes_[r.host].shards; }
  std::size_t flat(TabletReplica r) const { return first_shard_[r.host] + r.shard; }
  bool count_goal() const { return opts_.goal == BalanceGoal::Count; }
  // A node's weight: shards (Count), else its capacity (or its shards when no capacity is given).
  double weight(NodeId n) const {
    if (count_goal() || nodes_[n].capacity == 0) return nodes_[n].shards;
    return static_cast<double>(nodes_[n].capacity);
  }
  double load(NodeId n, double delta = 0) const { return (static_cast<double>(node_load_[n]) + delta) / weight(n); }

  void check_in_progress(const TabletMigration& m) const {
    const std::string what = "balancer: in-progress migration of tablet " + std::to_string(m.tablet);
    if (m.table >= nt_) throw std::invalid_argument(what + ": no such table");
    if (m.tablet >= map(m.table).count()) throw std::invalid_argument(what + ": no such tablet");
    if (locked_[offset_[m.table] + m.tablet]) throw std::invalid_argument(what + ": listed twice");
    const auto reps = map(m.table).replicas(m.tablet);
    if (std::find(reps.begin(), reps.end(), m.from) == reps.end())
      throw std::invalid_argument(what + ": `from` is not a replica");
    if (!valid_shard(m.to)) throw std::invalid_argument(what + ": `to` is not a member shard");
    if (topo_.node_dc[m.to.host] != topo_.node_dc[m.from.host])
      throw std::invalid_argument(what + ": `to` is in another datacenter");
    for (const TabletReplica& r : reps)
      if (r.host == m.to.host && !(r == m.from))
        throw std::invalid_argument(what + ": `to` already holds a replica");
  }

  void add(std::size_t t, TabletReplica r, int sign) {
    const std::uint64_t u = unit_[t];
    if (sign > 0) {
      load_[flat(r)] += u;
      node_load_[r.host] += u;
      ++tcount_[flat(r) * nt_ + t];
      ++node_tcount_[r.host * nt_ + t];
    } else {
      load_[flat(r)] -= u;
      node_load_[r.host] -= u;
      --tcount_[flat(r) * nt_ + t];
      --node_tcount_[r.host * nt_ + t];
    }
  }
  void move_load(std::size_t t, TabletReplica from, TabletReplica to) {
    add(t, from, -1);
    ++out_[flat(from)];
    add(t, to, 1);
    ++in_[flat(to)];
  }

  void apply(std::uint64_t g, TabletReplica from, TabletReplica to) {
    const std::uint32_t t = table_of_[g];
    locked_[g] = 1;
    move_load(t, from, to);
    plan_.push_back({g - offset_[t], from, to, t});
  }

  // a / a_shards < b / b_shards, exactly (counts and shards fit in 32 bits).
  static bool lower(std::uint64_t a, std::uint64_t a_shards, std::uint64_t b, std::uint64_t b_shards) {
    return a * b_shards < b * a_shards;
  }
  // Node order by load, ties by id (deterministic).
  bool less_loaded(NodeId a, NodeId b) const {
    if (count_goal()) {
      const std::uint64_t ca = node_load_[a], cb = node_load_[b];
      const std::uint64_t sa = nodes_[a].shards, sb = nodes_[b].shards;
      if (ca * sb != cb * sa) return ca * sb < cb * sa;
      return a < b;
    }
    const double la = load(a), lb = load(b);
    if (la != lb) return la < lb;
    return a < b;
  }
  // The goal's stop rule for one move of `u` bytes (or replicas) from `src` to `dst` (SS
  // check_convergence): whether it may happen.
  bool improves(NodeId src, NodeId dst, std::uint64_t u) const {
    switch (opts_.goal) {
      case BalanceGoal::Count:
        return lower(node_load_[dst] + u, nodes_[dst].shards, node_load_[src], nodes_[src].shards);
      case BalanceGoal::Capacity: {
        const auto d = static_cast<double>(u);
        return load(src) > load(dst) && load(src, -d) >= load(dst, d);
      }
      case BalanceGoal::Size:
        return load(src) > load(dst) && load(src) > load(dst, static_cast<double>(u));
    }
    return false;
  }
  // Size goal (SS 2026.1 is_balanced): the DC's non-draining members are within the threshold.
  bool size_balanced() const {
    if (opts_.goal != BalanceGoal::Size) return false;
    double lo = 0, hi = 0;
    bool any = false;
    for (NodeId n : dc_nodes_) {
      if (nodes_[n].draining) continue;
      const double l = load(n);
      lo = any ? std::min(lo, l) : l;
      hi = any ? std::max(hi, l) : l;
      any = true;
    }
    return !any || hi == 0 || (hi - lo) / hi < opts_.balance_threshold;
  }

  // The least-loaded shard of `n` (pending replicas counted) with a free in slot.
  std::optional<std::uint32_t> destination_shard(NodeId n) const {
    std::optional<std::uint32_t> best;
    for (std::uint32_t s = 0; s < nodes_[n].shards; ++s) {
      const std::size_t f = first_shard_[n] + s;
      if (in_[f] >= limits_.max_in_per_shard) continue;
      if (!best || load_[f] < load_[first_shard_[n] + *best]) best = s;
    }
    return best;
  }
  // Shards of `n` with a free out slot, most-loaded first (ties by index).
  std::vector<std::uint32_t> source_shards(NodeId n) const {
    std::vector<std::uint32_t> v;
    for (std::uint32_t s = 0; s < nodes_[n].shards; ++s)
      if (out_[first_shard_[n] + s] < limits_.max_out_per_shard) v.push_back(s);
    std::stable_sort(v.begin(), v.end(), [&](std::uint32_t a, std::uint32_t b) {
      return load_[first_shard_[n] + a] > load_[first_shard_[n] + b];
    });
    return v;
  }

  // check_constraints: moving the replica of global tablet `g` on `src` to node `dst` keeps the
  // tablet off any node twice and does not raise its maximum replica count per rack in the DC.
  bool may_move(std::uint64_t g, NodeId src, NodeId dst) const {
    const std::uint32_t t = table_of_[g];
    const auto reps = map(t).replicas(g - offset_[t]);
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
  // A candidate of table `t` on shard `f` of `src` for an inter-node move to `dst` (the goal's stop
  // rule included unless draining).
  bool movable(std::uint64_t g, NodeId src, NodeId dst, bool drain) const {
    if (locked_[g] || !may_move(g, src, dst)) return false;
    return drain || opts_.goal != BalanceGoal::Size || improves(src, dst, unit_[table_of_[g]]);
  }
  std::optional<std::uint64_t> first_movable(std::size_t f, std::size_t t, NodeId src, NodeId dst, bool drain) const {
    for (std::uint64_t g : tablets_[f * nt_ + t])
      if (movable(g, src, dst, drain)) return g;
    return std::nullopt;
  }

  // SS evaluate_src_badness / evaluate_dst_badness for one replica of table `t` leaving shard `s`
  // of `n` (or arriving there). Count goal (6.2-2025.1): thresholds ceil / floor of the table's even
  // share in replicas; Capacity and Size goals (2025.2+): the share of the table's bytes over the
  // DC's capacity, unrounded.
  Badness src_badness(std::size_t t, NodeId n, std::uint32_t s) const {
    if (nodes_[n].draining) return count_goal() ? Badness{} : Badness{-1, -1, 0, 0};
    const double total = static_cast<double>(dc_table_total_[t]);
    const double shard_t = static_cast<double>(tcount_[(first_shard_[n] + s) * nt_ + t]);
    const double node_t = static_cast<double>(node_tcount_[n * nt_ + t]);
    if (count_goal()) {
      const double desired = total / dc_weight_;
      return {(std::floor(desired) - (shard_t - 1)) / total,
              (std::floor(desired * nodes_[n].shards) - (node_t - 1)) / total, 0, 0};
    }
    const double u = static_cast<double>(unit_[t]), bytes = total * u, ideal = bytes / dc_weight_;
    const double cap = weight(n), cap_shard = cap / nodes_[n].shards;
    return {(ideal - (shard_t - 1) * u / cap_shard) / bytes, (ideal - (node_t - 1) * u / cap) / bytes, 0, 0};
  }
  Badness dst_badness(std::size_t t, NodeId n, std::uint32_t s) const {
    const double total = static_cast<double>(dc_table_total_[t]);
    const double shard_t = static_cast<double>(tcount_[(first_shard_[n] + s) * nt_ + t]);
    const double node_t = static_cast<double>(node_tcount_[n * nt_ + t]);
    if (count_goal()) {
      const double desired = total / dc_weight_;
      return {0, 0, (shard_t + 1 - std::ceil(desired)) / total,
              (node_t + 1 - std::ceil(desired * nodes_[n].shards)) / total};
    }
    const double u = static_cast<double>(unit_[t]), bytes = total * u, ideal = bytes / dc_weight_;
    const double cap = weight(n), cap_shard = cap / nodes_[n].shards;
    return {0, 0, ((shard_t + 1) * u / cap_shard - ideal) / bytes, ((node_t + 1) * u / cap - ideal) / bytes};
  }
  static Badness combine(const Badness& src, const Badness& dst, bool same_node) {
    return {src.src_shard, same_node ? 0 : src.src_node, dst.dst_shard, same_node ? 0 : dst.dst_node};
  }

  struct Choice {
    std::uint64_t g = 0;
    TabletReplica from, to;
    Badness badness;
  };

  // SS pick_candidate (PR #19779): the best table for the move (src, s) -> (dst, ds); when even the
  // best is bad, each table's best source shard on `src` and best destination among `dsts`.
  Choice scored_choice(NodeId src, std::uint32_t s, NodeId dst, std::uint32_t ds, bool drain,
                       const std::vector<NodeId>& dsts) const {
    std::optional<Choice> best;
    const std::size_t f = first_shard_[src] + s;
    for (std::size_t t = 0; t < nt_; ++t) {
      const auto g = first_movable(f, t, src, dst, drain);
      if (!g) continue;
      const Choice c{*g, {src, s}, {dst, ds}, combine(src_badness(t, src, s), dst_badness(t, dst, ds), false)};
      if (!best || c.badness < best->badness) best = c;
    }
    if (!best->badness.bad()) return *best;
    for (std::size_t t = 0; t < nt_; ++t) {
      if (node_tcount_[src * nt_ + t] == 0) continue;
      std::optional<std::uint32_t> min_src;
      Badness min_src_b;
      for (std::uint32_t s2 : source_shards(src)) {
        const auto& ts = tablets_[(first_shard_[src] + s2) * nt_ + t];
        if (std::none_of(ts.begin(), ts.end(), [&](std::uint64_t g) { return !locked_[g]; })) continue;
        const Badness b = src_badness(t, src, s2);
        if (!min_src || b < min_src_b) {
          min_src = s2;
          min_src_b = b;
        }
      }
      if (!min_src) continue;
      const std::size_t fs = first_shard_[src] + *min_src;
      // The best destination nodes by node badness, then the best shard on them.
      std::vector<std::pair<NodeId, std::uint64_t>> hosts;  // node, its first movable tablet of t
      double min_node = 0;
      for (NodeId d : dsts) {
        if (d == src || (!drain && !improves(src, d, unit_[t]))) continue;
        const auto g = first_movable(fs, t, src, d, drain);
        if (!g || !destination_shard(d)) continue;
        const double nb = dst_badness(t, d, 0).dst_node;
        if (hosts.empty() || nb < min_node) {
          hosts.clear();
          min_node = nb;
        }
        if (nb == min_node) hosts.emplace_back(d, *g);
      }
      std::optional<Choice> min_dst;
      for (const auto& [d, g] : hosts) {
        for (std::uint32_t s3 = 0; s3 < nodes_[d].shards; ++s3) {
          if (in_[first_shard_[d] + s3] >= limits_.max_in_per_shard) continue;
          const Badness b = dst_badness(t, d, s3);
          if (!min_dst || b < min_dst->badness) min_dst = Choice{g, {src, *min_src}, {d, s3}, b};
        }
        if (min_dst && !min_dst->badness.bad()) break;
      }
      if (!min_dst) continue;
      const Choice c{min_dst->g, min_dst->from, min_dst->to, combine(min_src_b, min_dst->badness, false)};
      if (c.badness < best->badness) best = c;
      if (!best->badness.bad()) break;
    }
    return *best;
  }

  // One inter-node move in the DC being planned, or false. Drain: the draining nodes holding
  // replicas are the sources and any destination will do. Free balancing: a move must satisfy the
  // goal's stop rule; the least-loaded destination and the most-loaded source are tried first.
  bool internode_move(bool drain) {
    if (!drain && size_balanced()) return false;
    std::vector<NodeId> dsts, srcs;
    for (NodeId n : dc_nodes_) {
      if (!nodes_[n].draining) dsts.push_back(n);
      if (nodes_[n].draining == drain && node_load_[n] > 0) srcs.push_back(n);
    }
    std::sort(dsts.begin(), dsts.end(), [&](NodeId a, NodeId b) { return less_loaded(a, b); });
    std::sort(srcs.begin(), srcs.end(), [&](NodeId a, NodeId b) { return less_loaded(b, a); });
    for (const NodeId dst : dsts) {
      const auto dst_shard = destination_shard(dst);
      if (!dst_shard) continue;
      for (NodeId src : srcs) {
        if (src == dst) continue;
        // Sources are sorted by load, so once one would not improve, none after it will.
        if (!drain && !improves(src, dst, min_unit_)) break;
        for (std::uint32_t s : source_shards(src)) {
          const std::size_t f = first_shard_[src] + s;
          // Valid candidates only shrink within a round (tablets get locked, the map stays), so a
          // (source shard, destination node) pair without one is not searched again. Not under
          // Size, whose candidates also depend on the loads.
          std::uint8_t& dead = no_candidate_[(dc_shard_base_[src] + s) * dc_nodes_.size() + dc_index_[dst]];
          if (dead) continue;
          candidates_.clear();
          for (std::size_t t = 0; t < nt_ && (opts_.candidates == CandidateRule::Random || candidates_.empty()); ++t)
            for (std::uint64_t g : tablets_[f * nt_ + t])
              if (movable(g, src, dst, drain)) {
                candidates_.push_back(g);
                if (opts_.candidates != CandidateRule::Random) break;
              }
          if (candidates_.empty()) {
            if (opts_.goal != BalanceGoal::Size) dead = 1;
            continue;
          }
          if (opts_.candidates == CandidateRule::Scored) {
            const Choice c = scored_choice(src, s, dst, *dst_shard, drain, dsts);
            apply(c.g, c.from, c.to);
          } else {
            apply(pick(), {src, s}, {dst, *dst_shard});
          }
          return true;
        }
      }
    }
    return false;
  }

  // make_node_plan: inside node `n`, from its most-loaded shard that can send to its least-loaded
  // shard that can receive, while the move lowers the spread (Count and Capacity: a difference of
  // two replicas; Size: the source stays above the destination).
  void intranode(NodeId n) {
    const std::size_t base = first_shard_[n];
    auto unlocked = [&](std::size_t f) {
      for (std::size_t t = 0; t < nt_; ++t) {
        const auto& ts = tablets_[f * nt_ + t];
        if (std::any_of(ts.begin(), ts.end(), [&](std::uint64_t g) { return !locked_[g]; })) return true;
      }
      return false;
    };
    for (;;) {
      std::optional<std::uint32_t> src;
      for (std::uint32_t s = 0; s < nodes_[n].shards; ++s) {
        if (out_[base + s] >= limits_.max_out_per_shard) continue;
        if (src && load_[base + s] <= load_[base + *src]) continue;
        if (unlocked(base + s)) src = s;
      }
      if (!src) return;
      std::optional<std::uint32_t> dst;
      for (std::uint32_t s = 0; s < nodes_[n].shards; ++s)
        if (s != *src && in_[base + s] < limits_.max_in_per_shard && (!dst || load_[base + s] < load_[base + *dst]))
          dst = s;
      if (!dst) return;
      const std::size_t fs = base + *src, fd = base + *dst;
      const bool size = opts_.goal == BalanceGoal::Size;
      if (!size && load_[fs] < load_[fd] + 2 * min_unit_) return;
      candidates_.clear();
      if (opts_.candidates == CandidateRule::Scored) {
        std::optional<Badness> best;
        std::uint64_t best_g = 0;
        for (std::size_t t = 0; t < nt_; ++t)
          for (std::uint64_t g : tablets_[fs * nt_ + t])
            if (!locked_[g]) {
              const Badness b = combine(src_badness(t, n, *src), dst_badness(t, n, *dst), true);
              if (!best || b < *best) {
                best = b;
                best_g = g;
              }
              break;
            }
        candidates_.push_back(best_g);
      } else {
        for (std::size_t t = 0; t < nt_ && (opts_.candidates == CandidateRule::Random || candidates_.empty()); ++t)
          for (std::uint64_t g : tablets_[fs * nt_ + t])
            if (!locked_[g]) {
              candidates_.push_back(g);
              if (opts_.candidates != CandidateRule::Random) break;
            }
      }
      const std::uint64_t g = pick();
      // SS 2026.1 check_intranode_convergence, once the candidate is chosen.
      if (size && load_[fs] <= load_[fd] + unit_[table_of_[g]]) return;
      apply(g, {n, *src}, {n, *dst});
    }
  }

  std::uint64_t pick() {
    if (opts_.candidates != CandidateRule::Random) return candidates_[0];
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
    dc_weight_ = 0;
    dc_table_total_.assign(nt_, 0);
    min_unit_ = ~std::uint64_t{0};
    for (std::size_t i = 0; i < dc_nodes_.size(); ++i) {
      const NodeId n = dc_nodes_[i];
      dc_index_[n] = i;
      dc_shard_base_[n] = dc_shards;
      dc_shards += nodes_[n].shards;
      if (!nodes_[n].draining) dc_weight_ += weight(n);
      for (std::size_t t = 0; t < nt_; ++t) dc_table_total_[t] += node_tcount_[n * nt_ + t];
    }
    for (std::size_t t = 0; t < nt_; ++t)
      if (dc_table_total_[t] > 0) min_unit_ = std::min(min_unit_, unit_[t]);
    if (min_unit_ == ~std::uint64_t{0} || dc_weight_ <= 0) return;  // nothing to balance here
    no_candidate_.assign(dc_shards * dc_nodes_.size(), 0);

    // Every move takes an out slot, so the loop ends; the bound only documents it.
    const std::size_t bound = first_shard_.back() * std::size_t{limits_.max_out_per_shard} + 1;
    for (std::size_t i = 0; i < bound; ++i) {
      const bool drain = std::any_of(dc_nodes_.begin(), dc_nodes_.end(),
                                     [&](NodeId n) { return nodes_[n].draining && node_load_[n] > 0; });
      if (!internode_move(drain)) break;
    }
    if (opts_.intranode)
      for (NodeId n : dc_nodes_)
        if (!nodes_[n].draining) intranode(n);
  }

  const Topology& topo_;
  std::span<const BalancerTable> tables_;
  std::span<const BalancerNode> nodes_;
  BalancerLimits limits_;
  BalancerOptions opts_;
  Rng& rng_;
  std::size_t nt_;  // tables

  std::vector<std::uint64_t> offset_;      // table -> global number of its tablet 0; [nt_] = total
  std::vector<std::uint32_t> table_of_;    // global tablet -> table
  std::vector<std::uint64_t> unit_;        // table -> load of one replica (1, the target size, or its size)
  std::vector<std::size_t> first_shard_;   // node -> index of its shard 0 in the per-shard arrays
  std::vector<std::uint64_t> load_;        // per shard: projected load (replicas under Count)
  std::vector<std::uint32_t> in_, out_;    // per shard: pending / leaving replicas (slots used)
  std::vector<std::vector<std::uint64_t>> tablets_;  // per (shard, table): tablets held (locked ones skipped)
  std::vector<std::uint64_t> tcount_;                // per (shard, table): projected replicas
  std::vector<std::uint64_t> node_load_;             // per node: projected load
  std::vector<std::uint64_t> node_tcount_;           // per (node, table): projected replicas
  std::vector<std::uint8_t> locked_;                 // per global tablet: in flight or planned
  std::vector<NodeId> dc_nodes_;                     // member nodes of the DC being planned
  std::vector<std::size_t> dc_index_;                // node -> position in dc_nodes_
  std::vector<std::size_t> dc_shard_base_;           // node -> index of its shard 0 among the DC's shards
  double dc_weight_ = 0;                             // the DC's non-draining shards (Count) or capacity
  std::vector<std::uint64_t> dc_table_total_;        // per table: replicas in the DC
  std::uint64_t min_unit_ = 1;                       // the smallest replica load of a table in the DC
  std::vector<std::uint8_t> no_candidate_;           // (DC shard, DC node position) searched in vain
  std::vector<std::uint64_t> candidates_;
  std::vector<TabletMigration> plan_;
};

}  // namespace lbsim::balancer_detail

namespace lbsim {

std::vector<TabletMigration> plan_migrations(const Topology& topo, std::span<const BalancerTable> tables,
                                             std::span<const BalancerNode> nodes,
                                             std::span<const TabletMigration> in_progress,
                                             const BalancerLimits& limits, const BalancerOptions& options, Rng& rng) {
  return balancer_detail::Planner(topo, tables, nodes, in_progress, limits, options, rng).run();
}

std::vector<TabletMigration> plan_migrations(const Topology& topo, const TabletMap& map,
                                             std::span<const BalancerNode> nodes,
                                             std::span<const TabletMigration> in_progress,
                                             const BalancerLimits& limits, Rng& rng) {
  const BalancerTable table{&map, 0};
  return plan_migrations(topo, std::span<const BalancerTable>(&table, 1), nodes, in_progress, limits,
                         BalancerOptions{}, rng);
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
    double node_max = 0, shard_max = 0, sum = 0, live_shards = 0;
    for (NodeId n = 0; n < topo.size(); ++n) {
      if (topo.node_dc[n] != dc || shards_of(n) == 0) continue;
      node_max = std::max(node_max, static_cast<double>(node[n]) / shards_of(n));
      for (std::size_t f = first[n]; f < first[n + 1]; ++f) shard_max = std::max(shard_max, static_cast<double>(shard[f]));
      if (nodes[n].draining) continue;
      sum += static_cast<double>(node[n]);
      live_shards += shards_of(n);
    }
    if (live_shards == 0 || sum <= 0) continue;
    const double ideal = sum / live_shards;
    double best_node = 0;
    for (NodeId n = 0; n < topo.size(); ++n)
      if (topo.node_dc[n] == dc && shards_of(n) > 0 && !nodes[n].draining)
        best_node = std::max(best_node, std::ceil(ideal * shards_of(n) - 1e-9) / shards_of(n));
    out.node_overcommit = std::max(out.node_overcommit, node_max / ideal);
    out.shard_overcommit = std::max(out.shard_overcommit, shard_max / ideal);
    out.best_node = std::max(out.best_node, best_node / ideal);
    out.best_shard = std::max(out.best_shard, std::ceil(ideal - 1e-9) / ideal);
  }
  return out;
}

}  // namespace lbsim
