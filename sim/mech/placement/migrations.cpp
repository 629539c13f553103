// Tablet keyspaces (issue 11), the topology half: topology changes, the balancer's migrations and
// their stages. Sources as tablets.cpp's (scylladb/scylladb at f4a4091ca2 locator/tablets.cc,
// service/tablet_allocator.cc), and scylladb/scylladb#19107 for the growth:
// - topology changes: joining nodes start empty and the balancer (sim/cluster/tablet_balancer.hpp)
//   moves tablets to them; a decommissioned node is drained and then leaves, closing its client
//   connections (Simulation::Impl::node_leaves); a removed node is dead and seen down at once
//   (node_removed) and its replicas are rebuilt elsewhere. Otherwise the driver and the
//   coordinators learn of a node after their detection delays (faults.driver_detection_ms /
//   server_detection_ms); Java 3.x round-robin policies then append a new host to their lists
//   (onAdd -> onUp), the mechanism of scylladb#19107.
// - A migration with the unspecified rules: write both (old and pending replica; the pending one
//   adds to the writes' block count, as Cassandra and ScyllaDB count pending endpoints), read old,
//   for the fixed latency's first half plus the streaming; then write both, read new, for the
//   second half; then the map replaces the old replica by the new one in place. With ScyllaDB's
//   rules (PlacementRules::stages) the stages of locator/tablets.cc: allow_write_both_read_old,
//   write_both_read_old, streaming, write_both_read_new, use_new, cleanup (the fixed latency split
//   in five equal parts around the streaming), the shards' slots freed when streaming ends.
// - Streaming (streaming.cpp): size / stream_mb_s, or, with a streaming cost
//   (PlacementSpec::stream_cost), streams paced chunk by chunk under per-node bandwidth and with CPU
//   work on both tablet shards. A removed (dead) replica is rebuilt from every live replica.
#include <algorithm>

#include "sim/engine/sim_impl.hpp"
#include "sim/mech/placement/tablets.hpp"

namespace lbsim {

void TabletPlacement::on_change(std::uint32_t idx) {
  const ChangeEvent& e = ch_.events[idx];
  for (NodeId n : e.nodes) {
    switch (e.kind) {
      case ChangeKind::AddNode:
        // The joining node is a member at once (with no tablets) and gossip knows it at once; the
        // driver learns of it after its detection delay.
        bnodes_[n].shards = core_.sc_.nodes.shards;
        core_.server_up_[n] = 1;
        core_.schedule_detection(n, true, nullptr, +1);
        break;
      case ChangeKind::Decommission:
        bnodes_[n].draining = true;
        break;
      case ChangeKind::RemoveNode:
        bnodes_[n].draining = true;
        core_.node_removed(n);  // dead: its replicas are rebuilt from the others
        break;
    }
  }
  rebalance();
  for (NodeId n : e.nodes) leave_if_drained(n);
}

void TabletPlacement::rebalance() {
  if (!resize_before_balancing()) return;  // a ready split or merge waits for the migrations in flight
  const bool stages = pr_.stages;
  // In flight for the balancer: with ScyllaDB's stages only the migrations that have not finished
  // streaming hold slots (service/tablet_allocator.cc is_streaming); the later ones count as done
  // (get_replicas_for_tablet_load: the new replica set), so the balancer sees a map where they are
  // applied, and a plan entry for one of their tablets (not a candidate in ScyllaDB: it is
  // migrating) is dropped.
  std::vector<TabletMigration> running;
  bool streamed = false;
  for (const Migration& m : migs_)
    if (m.active) {
      if (stages && m.stage > MigStage::Streaming) streamed = true;
      else running.push_back(m.m);
    }
  const BalancerLimits limits{ps_.max_in_per_shard, ps_.max_out_per_shard};
  // The release's balancer rules (ServerRules); unspecified keeps the single-table defaults. The
  // table's tablets all have the current tablet size (tablet_mb(); only the Size goal reads it).
  BalancerOptions opts;
  opts.goal = pr_.goal;
  opts.candidates = pr_.candidates;
  opts.intranode = pr_.intranode;
  const std::uint64_t tablet_bytes = static_cast<std::uint64_t>(tablet_mb() * 1048576.0);
  std::vector<TabletMigration> plan;
  if (!streamed) {
    const BalancerTable table{&tmap_, tablet_bytes};
    plan = plan_migrations(core_.topo_, std::span<const BalancerTable>(&table, 1), bnodes_, running, limits, opts,
                           balancer_rng_);
  } else {
    TabletMap seen = tmap_;
    for (const Migration& m : migs_)
      if (m.active && m.stage > MigStage::Streaming) seen.replace_replica(m.m.tablet, m.m.from, m.m.to);
    const BalancerTable table{&seen, tablet_bytes};
    plan = plan_migrations(core_.topo_, std::span<const BalancerTable>(&table, 1), bnodes_, running, limits, opts,
                           balancer_rng_);
    std::erase_if(plan, [&](const TabletMigration& p) { return tmig_[p.tablet] >= 0; });
  }
  const SimTime now = core_.now_;
  const SimTime stream = static_cast<SimTime>(tablet_mb() / ps_.stream_mb_s * 1e9 + 0.5);
  const SimTime latency = ps_.migration_latency;
  for (const TabletMigration& m : plan) {
    std::uint32_t slot = 0;
    while (slot < migs_.size() && migs_[slot].active) ++slot;
    if (slot == migs_.size()) migs_.emplace_back();
    tmig_[m.tablet] = static_cast<std::int32_t>(slot);
    ++migrations_started_;
    if (stages) {
      migs_[slot] = {m, MigStage::AllowWriteBothReadOld, true};
      push(now + latency / 5, kMigration, slot);
    } else if (ps_.stream_cost()) {
      migs_[slot] = {m, MigStage::WriteBothReadOld, true};
      push(now + latency / 2, kMigration, slot);  // then the streams
    } else {
      migs_[slot] = {m, MigStage::WriteBothReadOld, true};
      push(now + latency / 2 + stream, kMigration, slot);
    }
  }
}

void TabletPlacement::on_migration(std::uint32_t slot) {
  Migration& m = migs_[slot];
  const SimTime now = core_.now_;
  const SimTime latency = ps_.migration_latency;
  if (pr_.stages) {
    // Five equal parts of the fixed latency: allow_write_both_read_old, write_both_read_old (each
    // ended by a barrier), then after streaming write_both_read_new, use_new, cleanup and
    // end_migration (service/topology_coordinator.cc: a barrier at each transition).
    switch (m.stage) {
      case MigStage::AllowWriteBothReadOld:
        m.stage = MigStage::WriteBothReadOld;
        push(now + latency / 5, kMigration, slot);
        return;
      case MigStage::WriteBothReadOld: start_streaming(slot); return;
      case MigStage::Streaming: streaming_done(slot); return;  // the fixed streaming time ended
      case MigStage::WriteBothReadNew:
        m.stage = MigStage::UseNew;
        push(now + latency / 5, kMigration, slot);
        return;
      case MigStage::UseNew:
        m.stage = MigStage::Cleanup;
        push(now + latency - 4 * (latency / 5), kMigration, slot);
        return;
      case MigStage::Cleanup: break;  // end_migration below
    }
  } else if (m.stage == MigStage::WriteBothReadOld) {
    if (ps_.stream_cost()) {
      start_streaming(slot);
      return;
    }
    // Streamed (the fixed time): reads switch to the new replica.
    m.stage = MigStage::WriteBothReadNew;
    push(now + latency - latency / 2, kMigration, slot);
    return;
  }
  // The new replica replaces the old one in place.
  const std::uint64_t t = m.m.tablet;
  const bool ok = tmap_.replace_replica(t, m.m.from, m.m.to);
  LBSIM_DCHECK(ok, "a migration's source is not a replica of its tablet");
  (void)ok;
  for (std::size_t i = 0; i < stride_; ++i) thosts_[t * stride_ + i] = tmap_.replicas(t)[i].host;
  tmig_[t] = -1;
  m.active = false;
  ++migrations_done_;
  const NodeId from = m.m.from.host;
  rebalance();
  leave_if_drained(from);
}

void TabletPlacement::leave_if_drained(NodeId n) {
  if (!bnodes_[n].draining || left_[n]) return;
  for (NodeId h : thosts_)
    if (h == n) return;
  for (const Migration& m : migs_)
    if (m.active && (m.m.from.host == n || m.m.to.host == n)) return;
  // Drained: the node leaves. A decommissioned node stops serving now and closes its client
  // connections (node_leaves); the coordinators drop it after their detection delay. A removed
  // node was already down.
  left_[n] = 1;
  bnodes_[n].shards = 0;
  bnodes_[n].draining = false;
  if (core_.nodes_.up(n)) {
    core_.node_leaves(n);
    core_.schedule_detection(n, false, nullptr, -1);
  } else {  // removed: already down (and detected so); the driver drops it from its metadata
    core_.schedule_driver_detection(n, false, nullptr, -1);
  }
}

}  // namespace lbsim
