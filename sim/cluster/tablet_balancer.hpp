// ScyllaDB's incremental tablet load balancer, 6.0-2025.1 goal: an equal tablet count per shard
// (capacity-aware balancing came with scylladb/scylladb commit c4714180cc, 2025-02, size-based with
// 10eb364821). Pure logic: it reads a TabletMap and the migrations in flight and returns the
// migrations to start now; the caller applies a finished one with TabletMap::replace_replica.
// tests/tablet_balancer_test.cpp checks it against the overcommit figures of ScyllaDB's own
// `perf-load-balancing` runs (scylladb/scylladb commit 603abddca9 and PR #19779).
//
// Sources (SS = scylladb/scylladb, read at commit f4a4091ca2):
// - rounds: SS service/tablet_allocator.cc make_plan, called again and again until its plan is
//   empty; per DC an inter-node plan (make_internode_plan), then an intra-node one on every node
//   that is not being drained (make_intranode_plan / make_node_plan).
// - load: tablet replicas / shards of the node (comment on `load_balancer`); nodes first, because
//   moving between nodes is what costs, then shards inside each node.
// - sources and destinations: a draining node (decommission, removenode) is the only source while
//   it holds replicas; otherwise the least-loaded node is the destination and the most-loaded node
//   (and on it the most-loaded shard) the source.
// - candidates: check_constraints (no two replicas of a tablet on a node, never a higher maximum
//   per-rack replica count); picked at random among the valid ones (603abddca9; PR #19779 later
//   scores by per-table balance, which for lbsim's single table only breaks ties differently).
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
  bool operator==(const TabletMigration&) const = default;
};

// What the balancer knows of one node (indexed by NodeId of the Topology).
struct BalancerNode {
  std::uint32_t shards = 0;  // 0: not a member (not joined yet, or gone): holds nothing, gets nothing
  bool draining = false;     // decommission or removenode: every replica on it must move away
};

struct BalancerLimits {
  std::uint32_t max_in_per_shard = 2;   // tablet_streaming_write_concurrency_per_shard (SS db/config.cc)
  std::uint32_t max_out_per_shard = 2;  // tablet_streaming_read_concurrency_per_shard
};

// One planning round (SS make_plan): the migrations to start now, given the current map and the
// migrations still in progress.
//
// Contract:
// - `nodes.size() == topo.size()`; every replica of `map` sits on a member node (shards > 0) on a
//   shard below its shard count; each in-progress migration names a distinct tablet, a `from`
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
// - Draws randomness only from `rng`; the same inputs and rng state give the same plan.
// - The plan is empty once the cluster is balanced: a node move must strictly lower the load
//   ((dst + 1) / dst_shards < src / src_shards, in integers), a shard move needs a difference of 2.
std::vector<TabletMigration> plan_migrations(const Topology& topo, const TabletMap& map,
                                             std::span<const BalancerNode> nodes,
                                             std::span<const TabletMigration> in_progress,
                                             const BalancerLimits& limits, Rng& rng);

// Load figures for tests and reports ("overcommit", as scylla perf-load-balancing reports it),
// the worst over DCs. Per DC: node_overcommit = the maximum over member nodes (draining ones
// included) of replicas / shards, divided by the mean of that figure over member non-draining
// nodes; shard_overcommit = the maximum replicas on one shard of a member node, divided by the
// mean replicas per shard of the member non-draining nodes. A DC without replicas counts as 0.
// Replicas on non-member nodes are ignored.
struct BalanceStats {
  double node_overcommit = 0;
  double shard_overcommit = 0;
};
BalanceStats balance_stats(const Topology& topo, const TabletMap& map, std::span<const BalancerNode> nodes);

}  // namespace lbsim
