// The tablet table's resizing: splits and merges under the release's rules (ServerRules tablet_*,
// sim/cluster/tablets.hpp tablet_resize_target; configs/README.md "Tablet count, split and merge by
// release"). Sources: scylladb/scylladb (SS) service/tablet_allocator.cc make_resize_plan,
// service/topology_coordinator.cc, locator/tablets.cc; the drivers' tablet caches
// (scylladb/java-driver TabletMap.java, scylladb/python-driver cassandra/tablets.py).
// - A resize decision is taken by the balancer, which lbsim runs at every topology event and every
//   finished migration (rebalance()): split when the target count rises (the average tablet size
//   above 2 x 5 GiB; from 2025.2, commit 20c6ca2813, also the count rule's minimums for the
//   current topology), merge when it falls.
// - A split is ready when every replica has split its storage and said so in its load stats,
//   which the topology coordinator refreshes every 60 s (topology_coordinator.cc
//   tablet_load_stats_refresh_interval). lbsim: the refresh runs at every multiple of 60 s of
//   scenario time (the phase is assumed) and the storage split takes no time (assumed: lbsim
//   models no compaction). A merge is ready when every pair of sibling tablets is co-located
//   (all_sibling_tablet_replicas_colocated); lbsim's balancer does not co-locate siblings, so a
//   merge finalizes only if they already are (then warned).
// - A ready resize holds new migrations (generate_migration_updates schedules none while a
//   finalization is pending, unless nodes are being drained) and is finalized once no migration is
//   in flight: the tablet_migration transition state ends only without transitions, and
//   maybe_start_tablet_resize_finalization runs only when the balancer has no other work.
// - Finalizing a split: tablet i becomes 2i and 2i + 1 with i's replicas in i's order
//   (scylladb/scylladb#17752). The driver's cached entry for i still covers both halves and routes
//   them to the same replicas; a tablets-routing-v1 payload for one half deletes the overlapping
//   entry and inserts the half, so the other half falls back until its own payload arrives.
#include <algorithm>

#include <fmt/format.h>

#include "sim/engine/sim_impl.hpp"
#include "sim/mech/placement/tablets.hpp"

namespace lbsim {

namespace {
constexpr SimTime kLoadStatsRefresh = 60 * kSec;  // SS topology_coordinator.cc
}

void TabletPlacement::init_resize() {
  trules_ = tablet_rules(pr_);
  table_mb_ = core_.sc_.tablet_table_mb;
  tcount_start_ = tmap_.count();
  if (!trules_.resize_by_size) return;
  // 2025.1's "growing mode": the loaded table left it if its size split it above its creation count.
  std::vector<DcShards> dcs(core_.topo_.dcs.size());
  for (NodeId n = 0; n < core_.n_; ++n) dcs[core_.topo_.node_dc[n]].shards += bnodes_[n].shards;
  for (std::uint32_t d = 0; d < dcs.size(); ++d) dcs[d].rf = core_.ring_.replication().rf_for_dc(core_.topo_.dcs[d]);
  const auto& given = core_.sc_.cluster.replication.tablets;
  const TabletOptions opts = given ? *given : TabletOptions{};
  split_before_ = tmap_.count() > tablet_count(opts, dcs, trules_);
}

double TabletPlacement::tablet_mb() const {
  return table_mb_ / static_cast<double>(tmap_.count());
}

bool TabletPlacement::resize_before_balancing() {
  if (!trules_.resize_by_size) return true;
  // The DC's shards: members' (normal token owners), draining ones per the release.
  std::vector<DcShards> dcs(core_.topo_.dcs.size());
  bool draining = false;
  for (NodeId n = 0; n < core_.n_; ++n) {
    draining = draining || bnodes_[n].draining;
    if (bnodes_[n].draining && !trules_.draining_counts) continue;
    dcs[core_.topo_.node_dc[n]].shards += bnodes_[n].shards;
  }
  for (std::uint32_t d = 0; d < dcs.size(); ++d) dcs[d].rf = core_.ring_.replication().rf_for_dc(core_.topo_.dcs[d]);
  const auto& given = core_.sc_.cluster.replication.tablets;
  const TabletOptions opts = given ? *given : TabletOptions{};
  const std::uint64_t count = tmap_.count();
  const std::uint64_t target =
      tablet_resize_target(opts, dcs, trules_, count, table_mb_, resize_pending_, split_before_);
  const std::int8_t want = target > count ? 1 : (target < count ? -1 : 0);
  if (want != resize_pending_) {
    // A new decision, or the one in progress revoked (the target no longer asks for it).
    resize_pending_ = want;
    resize_ready_ = false;
    ++resize_seq_;
    if (want > 0) {
      const SimTime tick = (core_.now_ / kLoadStatsRefresh + 1) * kLoadStatsRefresh;
      push(tick, kResizeTick, resize_seq_);
    }
  }
  if (resize_pending_ < 0 && !resize_ready_) {
    resize_ready_ = tmap_.siblings_colocated();
    if (!resize_ready_ && !merge_warned_) {
      merge_warned_ = true;
      core_.result_.warnings.push_back(fmt::format(
          "cluster.server '{}' would merge the table's {} tablets into {} at {:.1f} s; lbsim's balancer does not "
          "co-locate sibling tablets, which a merge needs, so the count stays",
          server_rules(core_.sc_.nodes.server).name, count, count / 2, to_sec(core_.now_)));
    }
  }
  if (!resize_ready_) return true;
  for (const Migration& m : migs_)
    if (m.active) return draining;  // finalization waits; new migrations only to drain nodes
  finalize_resize();
  return true;
}

void TabletPlacement::on_resize_tick(std::uint32_t decision) {
  if (decision != resize_seq_ || resize_pending_ <= 0) return;  // revoked since
  resize_ready_ = true;
  rebalance();
}

void TabletPlacement::finalize_resize() {
  const bool split = resize_pending_ > 0;
  const std::uint64_t old_count = tmap_.count();
  tmap_ = split ? tmap_.split() : tmap_.merge();
  const std::uint64_t count = tmap_.count();
  thosts_.resize(tmap_.all().size());
  for (std::size_t i = 0; i < thosts_.size(); ++i) thosts_[i] = tmap_.all()[i].host;
  tmig_.assign(count, -1);
  // The driver's cache: each entry keeps its token range, now spanning twice (split) or half
  // (merge) as many current tablets.
  if (cache_w_.empty()) cache_w_.assign(old_count, 0);
  std::vector<std::uint8_t> known(count), w(count);
  std::vector<NodeId> hosts(count * stride_);
  std::vector<std::uint32_t> shards(count * stride_);
  for (std::uint64_t t = 0; t < count; ++t) {
    // Split: the halves inherit i's entry. Merge: the merged tablet is routed from the first
    // sibling's entry when both halves are cached (an approximation: one cached half alone counts
    // as not cached).
    const std::uint64_t from = split ? t / 2 : 2 * t;
    known[t] = split ? cache_known_[from] : static_cast<std::uint8_t>(cache_known_[from] && cache_known_[from + 1]);
    if (known[t])
      w[t] = static_cast<std::uint8_t>(split ? cache_w_[from] + 1
                                             : std::max(std::max(cache_w_[from], cache_w_[from + 1]), std::uint8_t{1}) - 1);
    std::copy_n(cache_hosts_.begin() + static_cast<std::ptrdiff_t>(from * stride_), stride_,
                hosts.begin() + static_cast<std::ptrdiff_t>(t * stride_));
    std::copy_n(cache_shards_.begin() + static_cast<std::ptrdiff_t>(from * stride_), stride_,
                shards.begin() + static_cast<std::ptrdiff_t>(t * stride_));
  }
  cache_known_ = std::move(known);
  cache_w_ = std::move(w);
  cache_hosts_ = std::move(hosts);
  cache_shards_ = std::move(shards);
  // Operations and requests in flight name their tablet by index: renumber them.
  const int k = tmap_.log2_count();
  auto& ops = core_.ops_;
  auto& crs = core_.crs_;
  for (std::uint32_t i = 0; i < ops.capacity(); ++i)
    ops[i].range = static_cast<std::uint32_t>(tablet_index(ops[i].token, k));
  for (std::uint32_t i = 0; i < crs.capacity(); ++i)
    crs[i].range = static_cast<std::uint32_t>(tablet_index(crs[i].token, k));
  if (split) {
    ++splits_;
    split_before_ = true;
  } else {
    ++merges_;
  }
  resize_pending_ = 0;
  resize_ready_ = false;
  ++resize_seq_;
}

void TabletPlacement::drop_cached_entry(std::uint32_t tablet) {
  if (cache_w_.empty() || !cache_known_[tablet] || cache_w_[tablet] == 0) return;
  // The entry covering `tablet` spans an aligned block of 2^w current tablets.
  const std::uint64_t width = std::uint64_t{1} << cache_w_[tablet];
  const std::uint64_t first = tablet & ~(width - 1);
  for (std::uint64_t t = first; t < first + width; ++t) {
    cache_known_[t] = 0;
    cache_w_[t] = 0;
  }
}

}  // namespace lbsim
