// ScyllaDB tablets: the tablet count rule, the pow2 token -> tablet index, and the placement of a
// new table's tablets as (host, shard) replicas.
//
// Sources (SS = scylladb/scylladb, read at commit f4a4091ca2; see also its
// docs/architecture/tablets.rst):
// - count: SS service/tablet_allocator.cc compute_target_tablet_count. The largest of `initial`,
//   `min_tablet_count` and a per-shard minimum ceil(m x shards_in_DC / RF_DC) over the DCs, where
//   m = min_per_shard_tablet_count, else tablets_initial_scale_factor (10) unless `initial` or
//   `min_tablet_count` is given; then capped so that the average tablet replicas per shard of each
//   DC stay within tablets_per_shard_goal (100, commit f1bda8d4c1); then rounded up to a power of
//   two. The scale factor's default went from 1 (commit 4c4a9679d8, 2023-12) to 10 (commits
//   2463e524ed and f043c83ba5, 2024-12).
// - index: SS dht/token.cc compaction_group_of (used by tablet_id_map::get_tablet_id):
//   tablet = (uint64)(token + 2^63) >> (64 - log2 N); tablet i owns (last[i-1], last[i]] with
//   last[i] = (i+1) 2^(64-k) - 1 - 2^63.
// - placement: SS locator/network_topology_strategy.cc add_tablets_in_dc, per tablet and DC: racks
//   sorted by name, those without a replica of the tablet first, rotated by tablet id % racks and
//   visited round-robin; in a rack the node with the lowest average shard load (ties broken at
//   random: a seeded stream here); on it the least-loaded shard (load_sketch::next_shard); a node
//   never holds two replicas of a tablet. Replicas are kept in allocation order (the v1 payload).
// Hand-written: no library models ScyllaDB's allocator.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster/murmur3.hpp"
#include "sim/cluster/topology.hpp"
#include "sim/core/rng.hpp"

namespace lbsim {

// Per DC: shards in the DC (sum over its nodes) and the DC's replication factor.
struct DcShards {
  std::uint64_t shards = 0;
  int rf = 0;
};

// Which release's tablet count and resize rules apply (built from ServerRules by the engine's
// tablet_rules(); the default is lbsim's own: the current count rule, no resizing). Sources per
// rule: configs/README.md "Tablet count, split and merge by release".
enum class TabletCountRule : std::uint8_t {
  // The keyspace's `initial` only (SS 5.4 network_topology_strategy.cc allocate_tablets_for_new_table,
  // the base of ScyllaDB 2024.1): tablets need it.
  Initial,
  // 6.0-2025.1 (commit 4c4a9679d8, 2023-12; scale factor eb3b237e05, 2024-01): `initial`, else
  // ceil(shards_in_DC / RF_DC) over the DCs times tablets_initial_scale_factor; no table options,
  // no goal cap.
  ShardsOverRf,
  // 2025.2 and later (SS service/tablet_allocator.cc make_sizing_plan): the largest of the
  // minimums, capped by tablets_per_shard_goal; the rule of tablet_count() below.
  Target,
};
struct TabletRules {
  TabletCountRule count = TabletCountRule::Target;
  double scale_factor = 10;     // tablets_initial_scale_factor's default
  bool resize_by_size = false;  // split / merge on the average tablet size (target_tablet_size_in_bytes)
  // The resize target also holds the count rule's minimums for the current topology, so the table
  // splits when they rise (nodes join) and never merges below them (commit 20c6ca2813, 2025.2.0).
  bool topology_target = false;
  // Nodes being drained still count in the DC's shards (2025.2: token owners that are normal;
  // 2026.1 excludes draining nodes: make_sizing_plan's `!n.is_draining()`).
  bool draining_counts = true;
};

// target_tablet_size_in_bytes' default, 5 GiB (SS service/tablet_allocator_fwd.hh
// default_target_tablet_size), in MiB: lbsim's table sizes (changes.migration.table_size_mb)
// are read as MiB here. Split above 2x the target, merge below 1/2x.
inline constexpr double kTargetTabletMb = 5 * 1024.0;

// The tablet count of a new table (a power of two, at least 1), by the current rule.
std::uint64_t tablet_count(const TabletOptions& o, std::span<const DcShards> dcs);
// The tablet count of a new table under a release's rule.
std::uint64_t tablet_count(const TabletOptions& o, std::span<const DcShards> dcs, const TabletRules& r);

// One step of a release's resize rule for an existing table of `table_mb` (its data) and
// `current` tablets: the count the balancer aims at next (current x 2: split, / 2: merge, or
// current). `pending` is the table's resize decision in progress (+1 split, -1 merge, 0 none: the
// hysteresis of 20c6ca2813); `split_before` says the table left "growing mode" (2025.1 merges only
// then). Releases without resize_by_size return current.
std::uint64_t tablet_resize_target(const TabletOptions& o, std::span<const DcShards> dcs, const TabletRules& r,
                                   std::uint64_t current, double table_mb, int pending, bool split_before);
// The count a table created under the release's rule on this topology has once its size-driven
// resizes have run (the run starts with a loaded table): the creation count, then
// tablet_resize_target to its fixed point. `splits` (optional) receives how many splits that took.
std::uint64_t tablet_count_loaded(const TabletOptions& o, std::span<const DcShards> dcs, const TabletRules& r,
                                  double table_mb, std::uint64_t* splits = nullptr);

// log2 of a power of two N.
int tablet_log2(std::uint64_t count);
inline std::uint64_t tablet_index(Token t, int log2_count) {
  const std::uint64_t u = token_order(t);
  return log2_count == 0 ? 0 : u >> (64 - log2_count);
}
Token tablet_last_token(std::uint64_t index, int log2_count);

struct TabletReplica {
  NodeId host = 0;
  std::uint32_t shard = 0;
  bool operator==(const TabletReplica&) const = default;
};

// A table's tablet map: count, and for each tablet its replicas (allocation order).
class TabletMap {
 public:
  // Places `count` tablets on the topology with `shards[node]` shards per node and the per-DC RF
  // (`rf[dc index]`); `rng` breaks ties between equally loaded nodes. A node with 0 shards is not
  // a member of the cluster (yet, or any more) and gets no replica.
  static TabletMap allocate(const Topology& topo, std::span<const std::uint32_t> shards,
                            std::span<const int> rf, std::uint64_t count, Rng rng);
  // A map with explicit replicas (tablet-major, `stride` per tablet); count is a power of two.
  static TabletMap from_replicas(std::uint64_t count, std::size_t stride, std::vector<TabletReplica> replicas);

  std::uint64_t count() const { return count_; }
  int log2_count() const { return log2_; }
  std::size_t replicas_per_tablet() const { return stride_; }
  std::span<const TabletReplica> replicas(std::uint64_t tablet) const {
    return {replicas_.data() + tablet * stride_, stride_};
  }
  std::span<const TabletReplica> replicas_of(Token t) const { return replicas(tablet_index(t, log2_)); }
  // A migration's last stage: `from` is replaced in place by `to` (v1 payload order is kept,
  // SS replace_replica). Returns false when `from` is not a replica of the tablet.
  bool replace_replica(std::uint64_t tablet, TabletReplica from, TabletReplica to);
  // The table split in two (SS locator/tablets.cc tablet_map::for_each_sibling_tablets and the
  // resize finalization, service/tablet_allocator.cc resize_tablets): tablet i becomes 2i and
  // 2i + 1, each with i's replicas in i's order (scylladb/scylladb#17752: split tablets inherit
  // their replica order).
  TabletMap split() const;
  // Sibling tablets 2i and 2i + 1 merged into i, which keeps 2i's replicas in 2i's order; they
  // must be co-located (the same (host, shard) set), as SS merge_tablet_info requires.
  TabletMap merge() const;
  // Whether every pair of sibling tablets holds the same (host, shard) set.
  bool siblings_colocated() const;
  const std::vector<TabletReplica>& all() const { return replicas_; }

 private:
  std::uint64_t count_ = 1;
  int log2_ = 0;
  std::size_t stride_ = 0;
  std::vector<TabletReplica> replicas_;  // tablet-major
};

}  // namespace lbsim
