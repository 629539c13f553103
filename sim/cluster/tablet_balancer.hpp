// ScyllaDB's incremental tablet load balancer, with the rules that changed between releases
// (BalancerOptions): the goal (tablet count per shard, 6.0-2025.1; storage utilization assuming
// equal tablets, "capacity-aware", scylladb/scylladb commit c4714180cc, 2025.2; utilization from
// the tablets' sizes, commit 10eb364821, 2026.1) and the candidate tablet (the first entry of the
// shard's set, 5.4; random, commit 603abddca9, 6.0-6.1; scored per table, PR #19779, 6.2 and later).
// Several tables share the cluster. Pure logic: it reads the tables' TabletMaps and the migrations
// in flight and returns the migrations to start now; the caller applies a finished one with
// TabletMap::replace_replica. tests/tablet_balancer_test.cpp checks the rules and placement
// invariants; tests/tablet_balance_release_test.cpp the per-release rules against ScyllaDB's own
// `perf-load-balancing` figures (test/perf/tablet_load_balancing.cc; commit 603abddca9, PR #19779)
// and scylladb#31384.
//
// Sources (SS = scylladb/scylladb; service/tablet_allocator.cc at the tags scylla-5.4.0,
// scylla-6.0.0, scylla-6.2.0, scylla-2025.1.0, scylla-2025.2.0, scylla-2026.1.0; read at f4a4091ca2):
// - rounds: make_plan, called again and again until its plan is empty; per DC an inter-node plan
//   (make_internode_plan), then an intra-node one on every node that is not being drained
//   (make_intranode_plan / make_node_plan; since commit db9d3f0128, 2024-03: 5.4 has none).
// - load: per node, Count: tablet replicas / shards; Capacity: replicas x target_tablet_size /
//   capacity (2025.2 node_load::get_avg_load); Size: the sum of the replicas' sizes / capacity, each
//   size at least minimal_tablet_size_for_balancing = 5 GiB / 100 (2026.1 db/config.cc). Nodes
//   first, then shards inside each node (by count, or by bytes under Size).
// - sources and destinations: a draining node (decommission, removenode) is the only source while
//   it holds replicas; otherwise the least-loaded node is the destination and the most-loaded node
//   (and on it the most-loaded shard) the source.
// - stop: Count: a node move must strictly lower the load ((dst + 1) / dst_shards < src /
//   src_shards), a shard move needs a difference of 2. Capacity (2025.2 check_convergence): src load
//   > dst load, and after the move the source's load is not below the destination's. Size (2026.1): no inter-node move
//   once (max - min) / max < size_based_balance_threshold_percentage = 1 % (is_balanced), a node move
//   needs src load > dst load after it, a shard move src bytes > dst bytes after it.
// - candidates: check_constraints (no two replicas of a tablet on a node, never a higher maximum
//   per-rack replica count). First (5.4): the first valid tablet, tables in their order (SS iterated
//   an unordered_set whose hash the table id dominates, 603abddca9's message: its exact order is
//   not reproduced). Random (6.0, 6.1; 603abddca9, backported to 6.0 as b9c88fdf4b): uniform over
//   the shard's valid candidates (SS draws a table weighted by its candidates, then its first
//   tablet). Scored (6.2+; PR #19779, merge 99d0aaa7d2): each table is scored by the migration's
//   badness (evaluate_src_badness / evaluate_dst_badness: how far the table's count on the source
//   and destination shard and node would pass the table's even share), node badness first, then
//   shard; when the best is bad, other source shards and other destination nodes and shards are
//   tried (pick_candidate); the table's first valid tablet moves.
// - limits: tablet_streaming_{write,read}_concurrency_per_shard = 2 (SS db/config.cc): at most 2
//   pending and 2 leaving replicas per shard, in-flight migrations included.
// Hand-written: no library models ScyllaDB's balancer.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster/tablets.hpp"
#include "sim/cluster/topology.hpp"
#include "sim/core/rng.hpp"

namespace lbsim {

struct TabletMigration {
  std::uint64_t tablet = 0;
  TabletReplica from;  // the replica leaving (its host may be a dead or draining node)
  TabletReplica to;    // the pending replica (same host, other shard: an intra-node move)
  std::uint32_t table = 0;  // index into the tables planned (0 with the single-table overload)
  bool operator==(const TabletMigration&) const = default;
};

// What the balancer knows of one node (indexed by NodeId of the Topology).
struct BalancerNode {
  std::uint32_t shards = 0;  // 0: not a member (not joined yet, or gone): holds nothing, gets nothing
  bool draining = false;     // decommission or removenode: every replica on it must move away
  // Storage capacity in bytes (Capacity and Size goals); 0: proportional to the shards. Give it
  // for every member or for none.
  std::uint64_t capacity = 0;
};

struct BalancerLimits {
  std::uint32_t max_in_per_shard = 2;   // tablet_streaming_write_concurrency_per_shard (SS db/config.cc)
  std::uint32_t max_out_per_shard = 2;  // tablet_streaming_read_concurrency_per_shard
};

// What the balancer equalizes between nodes (see the header comment).
enum class BalanceGoal : std::uint8_t { Count, Capacity, Size };
// How the tablet to move is chosen among a shard's valid candidates.
enum class CandidateRule : std::uint8_t { First, Random, Scored };

inline constexpr std::uint64_t kTargetTabletSize = 5ull << 30;  // SS service/tablet_allocator_fwd.hh

struct BalancerOptions {
  BalanceGoal goal = BalanceGoal::Count;
  CandidateRule candidates = CandidateRule::Random;
  bool intranode = true;  // shard moves inside a node (false: 5.4)
  std::uint64_t target_tablet_size = kTargetTabletSize;       // Capacity: every tablet's size
  std::uint64_t min_tablet_size = kTargetTabletSize / 100;    // Size: smaller tablets count as this
  double balance_threshold = 0.01;  // Size: (max - min) / max below which nodes are balanced
};

// One table: its map and the size of each tablet replica in bytes (Size goal only).
struct BalancerTable {
  const TabletMap* map = nullptr;
  std::uint64_t tablet_size = 0;
};

// One planning round (SS make_plan) over several tables: the migrations to start now, given the
// current maps and the migrations still in progress (`table` indexes `tables`).
//
// Contract:
// - `nodes.size() == topo.size()`; every replica of every map sits on a member node (shards > 0)
//   on a shard below its shard count; each in-progress migration names a distinct tablet, a `from`
//   that is a replica of it and a `to` on a member node of the same DC that holds no other replica
//   of it. Otherwise std::invalid_argument (a caller bug, checked at this boundary).
// - In-progress migrations count as done for load purposes, occupy their shards' in/out slots,
//   and their tablets are not planned again.
// - Each DC is balanced on its own; a replica never leaves its DC. A returned migration never puts
//   two replicas of a tablet on one node, never targets a non-member or draining node, never
//   raises the tablet's maximum replica count per rack of that DC, and together with `in_progress`
//   keeps at most `max_in_per_shard` pending and `max_out_per_shard` leaving replicas per shard.
// - A removenode of a dead node is the same as a drain: the balancer names the dead replica as
//   `from` (the data is rebuilt from the other replicas).
// - Draws randomness only from `rng` (Random rule only); the same inputs and rng state give the
//   same plan.
// - The plan is empty once the cluster is balanced by the goal's stop rule (header comment).
std::vector<TabletMigration> plan_migrations(const Topology& topo, std::span<const BalancerTable> tables,
                                             std::span<const BalancerNode> nodes,
                                             std::span<const TabletMigration> in_progress,
                                             const BalancerLimits& limits, const BalancerOptions& options, Rng& rng);

// One table, the Count goal and Random candidates (lbsim's rules before releases were modelled,
// and the engine's under cluster.server unspecified): the same plans, draw for draw.
std::vector<TabletMigration> plan_migrations(const Topology& topo, const TabletMap& map,
                                             std::span<const BalancerNode> nodes,
                                             std::span<const TabletMigration> in_progress,
                                             const BalancerLimits& limits, Rng& rng);

// Load figures of one table ("overcommit", as scylla perf-load-balancing reports it,
// SS test/perf/tablet_load_balancing.cc check_balance), the worst over DCs. Per DC, over member
// non-draining nodes: ideal = replicas / shards; node_overcommit = max over member nodes (draining
// ones included) of (replicas / shards) / ideal; shard_overcommit = the most replicas on one shard
// / ideal; best_shard = ceil(ideal) / ideal (perf-load-balancing's "best"); best_node = max over
// nodes of (ceil(ideal x shards) / shards) / ideal (1 when the replicas divide evenly). With equal
// shard counts node_overcommit is perf-load-balancing's (max node load / mean). A DC without
// replicas counts as 0. Replicas on non-member nodes are ignored.
struct BalanceStats {
  double node_overcommit = 0;
  double shard_overcommit = 0;
  double best_node = 0;
  double best_shard = 0;
};
BalanceStats balance_stats(const Topology& topo, const TabletMap& map, std::span<const BalancerNode> nodes);

}  // namespace lbsim
