#include "sim/cluster/tablets.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace lbsim {

namespace {

std::uint64_t pow2_up(double target) {
  std::uint64_t n = 1;
  while (static_cast<double>(n) < target && n < (std::uint64_t{1} << 40)) n <<= 1;  // round up
  return n;
}

// The largest of the current rule's minimums (SS make_sizing_plan's maybe_apply), before the cap.
double minimums(const TabletOptions& o, std::span<const DcShards> dcs, double default_scale) {
  double target = 1;
  if (o.initial) target = std::max(target, static_cast<double>(*o.initial));
  if (o.min_tablet_count) target = std::max(target, static_cast<double>(*o.min_tablet_count));
  // The per-shard minimum: an explicit min_per_shard_tablet_count, else the scale factor unless
  // `initial` or `min_tablet_count` chose the count.
  std::optional<double> m = o.min_per_shard_tablet_count;
  if (!m && !o.initial && !o.min_tablet_count) m = o.initial_scale_factor.value_or(default_scale);
  if (m)
    for (const DcShards& d : dcs)
      if (d.rf > 0 && d.shards > 0) target = std::max(target, std::ceil(*m * static_cast<double>(d.shards) / d.rf));
  return target;
}

// Capped so that the average tablet replicas per shard of each DC stay within the goal
// (count x rf / shards <= goal), then rounded up to a power of two.
std::uint64_t cap_and_align(double target, const TabletOptions& o, std::span<const DcShards> dcs) {
  double cap = INFINITY;
  for (const DcShards& d : dcs)
    if (d.rf > 0 && d.shards > 0)
      cap = std::min(cap, std::floor(o.tablets_per_shard_goal * static_cast<double>(d.shards) / d.rf));
  return pow2_up(std::max(1.0, std::min(target, std::max(cap, 1.0))));
}

}  // namespace

std::uint64_t tablet_count(const TabletOptions& o, std::span<const DcShards> dcs) {
  return tablet_count(o, dcs, TabletRules{});
}

std::uint64_t tablet_count(const TabletOptions& o, std::span<const DcShards> dcs, const TabletRules& r) {
  switch (r.count) {
    case TabletCountRule::Initial: return pow2_up(static_cast<double>(o.initial.value_or(1)));
    case TabletCountRule::ShardsOverRf: {
      if (o.initial) return pow2_up(static_cast<double>(*o.initial));
      // calculate_initial_tablets_from_topology: (shards + rf - 1) / rf, the largest DC; then
      // times the scale factor.
      std::uint64_t per_dc = 0;
      for (const DcShards& d : dcs)
        if (d.rf > 0) per_dc = std::max<std::uint64_t>(per_dc, (d.shards + static_cast<std::uint64_t>(d.rf) - 1) /
                                                                   static_cast<std::uint64_t>(d.rf));
      return pow2_up(std::max(1.0, std::ceil(static_cast<double>(per_dc) * o.initial_scale_factor.value_or(r.scale_factor))));
    }
    case TabletCountRule::Target: break;
  }
  return cap_and_align(minimums(o, dcs, r.scale_factor), o, dcs);
}

std::uint64_t tablet_resize_target(const TabletOptions& o, std::span<const DcShards> dcs, const TabletRules& r,
                                   std::uint64_t current, double table_mb, int pending, bool split_before) {
  if (!r.resize_by_size || current == 0) return current;
  const double avg = table_mb / static_cast<double>(current);
  const double max_mb = 2 * kTargetTabletMb, min_mb = kTargetTabletMb / 2;
  if (!r.topology_target) {
    // 6.0-2025.1 (SS service/tablet_allocator.cc table_needs_split / table_needs_merge): split
    // above 2x the target; merge below 1/2x only once the table left "growing mode" (a split above
    // its initial count happened).
    if (avg > max_mb) return current * 2;
    if (split_before && current > 1 && avg < min_mb) return current / 2;
    return current;
  }
  // 2025.2 and later (make_sizing_plan): the size's wish, with the hysteresis of a decision in
  // progress, is one more minimum of the count rule; then the goal cap and the power of two.
  std::uint64_t from_size = current;
  if (avg > max_mb || (pending > 0 && avg >= kTargetTabletMb)) from_size = current * 2;
  else if (avg < min_mb || (pending < 0 && avg <= kTargetTabletMb)) from_size = current / 2;
  const std::uint64_t aligned =
      cap_and_align(std::max(minimums(o, dcs, r.scale_factor), static_cast<double>(from_size)), o, dcs);
  // One resize step at a time (a split halves each tablet once: "TODO: extend to n-way split").
  if (aligned > current) return current * 2;
  if (aligned < current) return current / 2;
  return current;
}

std::uint64_t tablet_count_loaded(const TabletOptions& o, std::span<const DcShards> dcs, const TabletRules& r,
                                  double table_mb, std::uint64_t* splits) {
  std::uint64_t c = tablet_count(o, dcs, r);
  if (splits) *splits = 0;
  bool split_before = false;
  for (int step = 0; step < 64 && c < (std::uint64_t{1} << 40); ++step) {
    const std::uint64_t n = tablet_resize_target(o, dcs, r, c, table_mb, 0, split_before);
    if (n == c) break;
    if (n > c) {
      split_before = true;
      if (splits) ++*splits;
    }
    c = n;
  }
  return c;
}

int tablet_log2(std::uint64_t count) {
  int k = 0;
  while ((std::uint64_t{1} << k) < count) ++k;
  return k;
}

Token tablet_last_token(std::uint64_t index, int log2_count) {
  // ((i + 1) << (64 - k)) - 1 in uint64 (wrapping for the last tablet), then back to signed.
  const std::uint64_t width_shift = static_cast<std::uint64_t>(64 - log2_count);
  const std::uint64_t end = log2_count == 0 ? 0 : ((index + 1) << width_shift);
  const std::uint64_t u = end - 1;
  return static_cast<Token>(u - (std::uint64_t{1} << 63));
}

TabletMap TabletMap::allocate(const Topology& topo, std::span<const std::uint32_t> shards, std::span<const int> rf,
                              std::uint64_t count, Rng rng) {
  TabletMap m;
  m.count_ = count;
  m.log2_ = tablet_log2(count);
  if ((std::uint64_t{1} << m.log2_) != count) throw std::invalid_argument("tablet count must be a power of two");
  std::size_t stride = 0;
  for (std::size_t d = 0; d < topo.dcs.size() && d < rf.size(); ++d) stride += static_cast<std::size_t>(std::max(rf[d], 0));
  m.stride_ = stride;
  m.replicas_.reserve(count * stride);

  // Racks of each DC sorted by name, and the nodes of each rack.
  // Only racks with member nodes count (a rack whose nodes have not joined yet is not a rack of
  // the cluster).
  std::vector<std::vector<NodeId>> rack_nodes(topo.racks.size());
  for (NodeId n = 0; n < topo.size(); ++n)
    if (n < shards.size() && shards[n] > 0) rack_nodes[topo.node_rack[n]].push_back(n);
  std::vector<std::vector<std::uint32_t>> dc_racks(topo.dcs.size());
  for (std::uint32_t r = 0; r < topo.racks.size(); ++r)
    if (!rack_nodes[r].empty()) dc_racks[topo.rack_dc[r]].push_back(r);
  for (auto& v : dc_racks)
    std::sort(v.begin(), v.end(), [&](std::uint32_t a, std::uint32_t b) { return topo.racks[a] < topo.racks[b]; });

  std::vector<std::uint64_t> node_load(topo.size(), 0);
  std::vector<std::vector<std::uint64_t>> shard_load(topo.size());
  for (NodeId n = 0; n < topo.size(); ++n)
    shard_load[n].assign(std::max<std::uint32_t>(n < shards.size() ? shards[n] : 0, 1), 0);
  std::vector<std::uint8_t> used(topo.size(), 0);
  std::vector<NodeId> candidates;

  for (std::uint64_t t = 0; t < count; ++t) {
    const std::size_t first = m.replicas_.size();
    for (std::size_t d = 0; d < topo.dcs.size() && d < rf.size(); ++d) {
      const auto& racks = dc_racks[d];
      if (rf[d] <= 0 || racks.empty()) continue;
      // Rotated by tablet id for fairness; racks without a replica of this tablet come first, so
      // visiting the rotated list round-robin gives one replica per rack until each has one.
      const std::size_t rot = static_cast<std::size_t>(t % racks.size());
      std::size_t visit = 0;
      for (int k = 0; k < rf[d]; ++k) {
        NodeId pick = kNoNode;
        for (std::size_t tries = 0; tries < racks.size() && pick == kNoNode; ++tries, ++visit) {
          const std::uint32_t rack = racks[(rot + visit) % racks.size()];
          // The least average shard load in the rack, ties at random (shuffled, then stable sort).
          candidates.clear();
          for (NodeId n : rack_nodes[rack])
            if (!used[n]) candidates.push_back(n);
          if (candidates.empty()) continue;
          for (std::size_t i = candidates.size(); i > 1; --i) std::swap(candidates[i - 1], candidates[rng.below(i)]);
          auto avg = [&](NodeId n) {
            return static_cast<double>(node_load[n]) / static_cast<double>(shard_load[n].size());
          };
          std::stable_sort(candidates.begin(), candidates.end(), [&](NodeId a, NodeId b) { return avg(a) < avg(b); });
          pick = candidates.front();
        }
        if (pick == kNoNode) throw std::invalid_argument("not enough nodes in datacenter " + topo.dcs[d] +
                                                         " for its replication factor");
        auto& sl = shard_load[pick];
        const auto shard = static_cast<std::uint32_t>(std::min_element(sl.begin(), sl.end()) - sl.begin());
        ++sl[shard];
        ++node_load[pick];
        used[pick] = 1;
        m.replicas_.push_back({pick, shard});
      }
    }
    for (std::size_t i = first; i < m.replicas_.size(); ++i) used[m.replicas_[i].host] = 0;
  }
  return m;
}

TabletMap TabletMap::from_replicas(std::uint64_t count, std::size_t stride, std::vector<TabletReplica> replicas) {
  TabletMap m;
  m.count_ = count;
  m.log2_ = tablet_log2(count);
  if ((std::uint64_t{1} << m.log2_) != count) throw std::invalid_argument("tablet count must be a power of two");
  if (replicas.size() != count * stride) throw std::invalid_argument("replica list size is not count x stride");
  m.stride_ = stride;
  m.replicas_ = std::move(replicas);
  return m;
}

TabletMap TabletMap::split() const {
  std::vector<TabletReplica> r;
  r.reserve(replicas_.size() * 2);
  for (std::uint64_t t = 0; t < count_; ++t)
    for (int half = 0; half < 2; ++half) r.insert(r.end(), replicas(t).begin(), replicas(t).end());
  return from_replicas(count_ * 2, stride_, std::move(r));
}

bool TabletMap::siblings_colocated() const {
  std::vector<TabletReplica> a, b;
  auto less = [](const TabletReplica& x, const TabletReplica& y) {
    return x.host != y.host ? x.host < y.host : x.shard < y.shard;
  };
  for (std::uint64_t t = 0; t + 1 < count_; t += 2) {
    a.assign(replicas(t).begin(), replicas(t).end());
    b.assign(replicas(t + 1).begin(), replicas(t + 1).end());
    std::sort(a.begin(), a.end(), less);
    std::sort(b.begin(), b.end(), less);
    if (a != b) return false;
  }
  return true;
}

TabletMap TabletMap::merge() const {
  if (count_ < 2) throw std::invalid_argument("a table of one tablet cannot merge");
  std::vector<TabletReplica> r;
  r.reserve(replicas_.size() / 2);
  for (std::uint64_t t = 0; t < count_; t += 2) r.insert(r.end(), replicas(t).begin(), replicas(t).end());
  return from_replicas(count_ / 2, stride_, std::move(r));
}

bool TabletMap::replace_replica(std::uint64_t tablet, TabletReplica from, TabletReplica to) {
  for (std::size_t i = 0; i < stride_; ++i) {
    TabletReplica& r = replicas_[tablet * stride_ + i];
    if (r == from) {
      r = to;
      return true;
    }
  }
  return false;
}

}  // namespace lbsim
