// Tablet keyspaces and topology changes (issue 11). Sources: scylladb/scylladb (read at
// f4a4091ca2) locator/tablets.cc, service/tablet_allocator.cc, docs/dev/protocol-extensions.md;
// the drivers' tablet caches (scylladb/java-driver TabletMap.java, scylladb/python-driver
// cassandra/tablets.py, scylladb/gocql tablets/tablets.go, scylladb/scylla-rust-driver
// scylla/src/routing/locator/tablets.rs); scylladb/scylladb#19107 for the growth:
// - the server's tablet map (system.tablets), changed only by migrations, each replica a
//   (host, shard); replica work runs on the replica's tablet shard;
// - the locality check after execution (locator/tablets.cc check_locality): a coordinator that is
//   not a replica, or a replica reached on another shard than the tablet's, answers with the
//   tablets-routing-v1 payload (the replicas column: the old set while a tablet moves), except
//   the pending replica on its pending shard; the request is never redirected;
// - the driver's cache, warm or empty, merged from payloads (delete the overlapping entries and
//   insert the new one: with a fixed pow2 count, the entry of that tablet is replaced); a key whose
//   tablet is unknown takes the driver's fallback (the vnode token map, or no token awareness);
// - topology changes: joining nodes start empty and the balancer (sim/cluster/tablet_balancer.hpp)
//   moves tablets to them; a decommissioned node is drained and then leaves, closing its client
//   connections (node_leaves); a removed node is dead and seen down at once (node_removed) and its
//   replicas are rebuilt elsewhere. Otherwise the driver and the coordinators learn of a node
//   after their detection delays (faults.driver_detection_ms / server_detection_ms); Java
//   3.x round-robin policies then append a new host to their lists (onAdd -> onUp), the mechanism
//   of scylladb#19107.
// - A migration with the unspecified rules: write both (old and pending replica; the pending one
//   adds to the writes' block count, as Cassandra and ScyllaDB count pending endpoints), read old,
//   for the fixed latency's first half plus the streaming; then write both, read new, for the
//   second half; then the map replaces the old replica by the new one in place. With ScyllaDB's
//   rules (ServerRules::tablet_stages) the stages of locator/tablets.cc: allow_write_both_read_old,
//   write_both_read_old, streaming, write_both_read_new, use_new, cleanup (the fixed latency split
//   in five equal parts around the streaming), the shards' slots freed when streaming ends.
// - Streaming (sim_streaming.cpp): size / stream_mb_s, or, with a streaming cost
//   (ChangeSpec::stream_cost), streams paced chunk by chunk under per-node bandwidth and with CPU
//   work on both tablet shards. A removed (dead) replica is rebuilt from every live replica.
#include <algorithm>

#include "sim/engine/sim_impl.hpp"

namespace lbsim {

void Simulation::Impl::init_tablets() {
  const ChangeSpec& ch = sc_.changes;
  const std::uint32_t initial = ch.initial_nodes == 0 ? static_cast<std::uint32_t>(n_) : ch.initial_nodes;
  left_.assign(n_, 0);
  bnodes_.assign(n_, BalancerNode{});
  for (NodeId n = 0; n < n_; ++n) bnodes_[n].shards = n < initial ? sc_.nodes.shards : 0;
  // Nodes that join later are unknown to the driver and the coordinators until they join.
  for (NodeId n = initial; n < n_; ++n) {
    view_.set_up(n, false);
    view_.set_known(n, false);
    server_up_[n] = 0;
  }
  for (std::uint32_t i = 0; i < ch.events.size(); ++i) push_mech(ch.events[i].at, kMechPlacement, kChange, i);
  balancer_rng_ = root_.fork("balancer");
  sring_ = dring_ = &ring_;
  vnode_members_.assign(n_, 0);
  for (NodeId n = 0; n < initial; ++n) vnode_members_[n] = 1;
  vnode_changes_ = !sc_.tablet_map && ch.any();
  if (!sc_.tablet_map) return;
  tablets_ = true;
  stream_report_ = ch.any() && (rules_.tablet_stages || ch.stream_cost());
  if (stream_report_) {
    node_streams_.assign(n_, 0);
    node_stream_time_.assign(n_, 0);
    node_stream_since_.assign(n_, 0);
    node_sent_mb_.assign(n_, 0);
    node_recv_mb_.assign(n_, 0);
  }
  tmap_ = *sc_.tablet_map;
  tstride_ = tmap_.replicas_per_tablet();
  thosts_.resize(tmap_.all().size());
  for (std::size_t i = 0; i < thosts_.size(); ++i) thosts_[i] = tmap_.all()[i].host;
  tmig_.assign(tmap_.count(), -1);
  const bool warm = sc_.client.tablet_cache_warm;
  cache_known_.assign(tmap_.count(), warm ? 1 : 0);
  cache_hosts_ = thosts_;
  cache_shards_.resize(thosts_.size());
  for (std::size_t i = 0; i < thosts_.size(); ++i) cache_shards_[i] = tmap_.all()[i].shard;
  init_resize();
}

std::span<const NodeId> Simulation::Impl::server_replicas(std::uint32_t range, Token token, bool read,
                                                          std::array<NodeId, 64>& buf, std::uint32_t& pending) const {
  pending = 0;
  if (!tablets_) {
    const auto cur = sring_->replicas_at(range, ReplicaOrder::Server);
    if (read || !pring_) return cur;
    // Pending ranges: the replicas of the ring being streamed to that do not hold the range now.
    std::size_t k = 0;
    for (NodeId h : cur) buf[k++] = h;
    for (NodeId h : pring_->replicas(token, ReplicaOrder::Server))
      if (std::find(cur.begin(), cur.end(), h) == cur.end() && k < buf.size()) {
        buf[k++] = h;
        ++pending;
      }
    return {buf.data(), k};
  }
  const std::span<const NodeId> cur(thosts_.data() + range * tstride_, tstride_);
  const std::int32_t mi = tmig_[range];
  if (mi < 0) return cur;
  const Migration& m = migs_[static_cast<std::size_t>(mi)];
  std::size_t k = 0;
  for (NodeId h : cur) buf[k++] = h;
  // Reads: the new set from write_both_read_new on. Writes: the old set in
  // allow_write_both_read_old, both (the new replica pending) until use_new, then the new set.
  const bool new_set = read ? m.stage >= MigStage::WriteBothReadNew : m.stage >= MigStage::UseNew;
  if (new_set) {
    for (std::size_t i = 0; i < k; ++i)
      if (buf[i] == m.m.from.host) buf[i] = m.m.to.host;
  } else if (!read && m.stage != MigStage::AllowWriteBothReadOld && m.m.to.host != m.m.from.host) {
    buf[k++] = m.m.to.host;
    pending = 1;
  }
  return {buf.data(), k};
}

std::uint32_t Simulation::Impl::replica_shard(std::uint32_t range, Token t, NodeId r) const {
  if (!tablets_) return shard_of_token(t);
  const std::int32_t mi = tmig_[range];
  if (mi >= 0) {
    const Migration& m = migs_[static_cast<std::size_t>(mi)];
    // An intra-node move keeps the host: the new shard serves once reads switch.
    if (m.m.to.host == r && (m.m.from.host != r || m.stage >= MigStage::WriteBothReadNew)) return m.m.to.shard;
  }
  for (const TabletReplica& x : tmap_.replicas(range))
    if (x.host == r) return x.shard;
  return shard_of_token(t);  // not a replica (not reached: coordinators send only to replicas)
}

std::span<const NodeId> Simulation::Impl::driver_replicas(Op& op) {
  if (!tablets_) return dring_->replicas_at(op.range, ReplicaOrder::Driver);
  if (cache_known_[op.range]) return {cache_hosts_.data() + op.range * tstride_, tstride_};
  ++tc_.fallback;
  if (window_open_ && !window_closed_) result_.timeline.record_fallback(now_ - window_start_);
  if (sc_.client.tablet_fallback == TabletFallback::Random) return {};  // Rust: not token-aware
  return dring_->replicas(op.token, ReplicaOrder::Driver);
}

std::uint32_t Simulation::Impl::driver_shard(const Op& op, NodeId host) {
  // No connection model: the unrouted request's shard is drawn over the node's shards as before.
  const std::uint32_t shards = conns_per_host_ == 0 ? sc_.nodes.shards : shards_;
  if (!op.routed) return static_cast<std::uint32_t>(shard_rng_.below(shards));
  if (tablets_) {
    if (cache_known_[op.range]) {
      // The tablet's shard for this host (Java 3.x, Python, Go: else the vnode formula).
      const std::size_t base = op.range * tstride_;
      for (std::size_t i = 0; i < tstride_; ++i)
        if (cache_hosts_[base + i] == host) return cache_shards_[base + i];
    } else if (sc_.client.tablet_fallback == TabletFallback::Random) {
      return static_cast<std::uint32_t>(shard_rng_.below(shards));  // Rust: a random shard
    }
  }
  return shard_of_token(op.token);
}

void Simulation::Impl::tablet_route(std::uint32_t cr) {
  CoordReq& c = crs_[cr];
  if (!tablets_ || !c.routed) return;
  bool replica = false, wrong = false;
  for (const TabletReplica& x : tmap_.replicas(c.range))
    if (x.host == c.node) {
      replica = true;
      wrong = x.shard != c.shard;
    }
  bool pending_here = false;
  if (const std::int32_t mi = tmig_[c.range]; mi >= 0) {
    const TabletMigration& m = migs_[static_cast<std::size_t>(mi)].m;
    pending_here = m.to.host == c.node && m.to.shard == c.shard;
  }
  if (!replica) {
    ++tc_.non_replica;
    if (window_open_ && !window_closed_) result_.timeline.record_non_replica(now_ - window_start_);
    c.payload = !pending_here;
  } else if (wrong) {
    ++tc_.wrong_shard;
    c.payload = !pending_here;
  }
}

void Simulation::Impl::tablet_learn(std::uint32_t cr) {
  const CoordReq& c = crs_[cr];
  if (!c.payload || !c.success) return;
  ++tc_.payloads;
  if (window_open_ && !window_closed_) result_.timeline.record_payload(now_ - window_start_);
  // Java 4.x before 4.19.0.1 learnt from SELECT results only (java-driver#498).
  if (c.kind != OpKind::Read && !sc_.client.tablet_learn_writes) return;
  drop_cached_entry(c.range);  // an entry learnt before a split covers more than this tablet
  const std::size_t base = c.range * tstride_;
  const auto reps = tmap_.replicas(c.range);
  for (std::size_t i = 0; i < tstride_; ++i) {
    cache_hosts_[base + i] = reps[i].host;
    cache_shards_[base + i] = reps[i].shard;
  }
  cache_known_[c.range] = 1;
  ++tc_.cache_updates;
}

void Simulation::Impl::schedule_detection(NodeId n, bool up, const TokenRing* ring, std::int8_t member) {
  const auto at_driver = now_ + sc_.faults.driver_detection;
  const auto at_server = now_ + sc_.faults.server_detection;
  detections_.push_back({at_driver, n, up, true, ring, member});
  q_.push(at_driver, kDetect, static_cast<std::uint32_t>(detections_.size() - 1));
  detections_.push_back({at_server, n, up, false});
  q_.push(at_server, kDetect, static_cast<std::uint32_t>(detections_.size() - 1));
}

void Simulation::Impl::on_change(std::uint32_t idx) {
  if (vnode_changes_) {
    const ChangeEvent& e = sc_.changes.events[idx];
    if (e.kind == ChangeKind::RemoveNode) node_removed(e.nodes[0]);  // even if its removal waits
    if (streaming_) queued_changes_.push_back(idx);
    else start_vnode_change(idx);
    return;
  }
  const ChangeEvent& e = sc_.changes.events[idx];
  for (NodeId n : e.nodes) {
    switch (e.kind) {
      case ChangeKind::AddNode:
        // The joining node is a member at once (with no tablets) and gossip knows it at once; the
        // driver learns of it after its detection delay.
        bnodes_[n].shards = sc_.nodes.shards;
        server_up_[n] = 1;
        schedule_detection(n, true, nullptr, +1);
        break;
      case ChangeKind::Decommission:
        bnodes_[n].draining = true;
        break;
      case ChangeKind::RemoveNode:
        bnodes_[n].draining = true;
        node_removed(n);  // dead: its replicas are rebuilt from the others
        break;
    }
  }
  rebalance();
  for (NodeId n : e.nodes) leave_if_drained(n);
}

void Simulation::Impl::rebalance() {
  if (!tablets_) return;
  if (!resize_before_balancing()) return;  // a ready split or merge waits for the migrations in flight
  // In flight for the balancer: with ScyllaDB's stages only the migrations that have not finished
  // streaming hold slots (service/tablet_allocator.cc is_streaming); the later ones count as done
  // (get_replicas_for_tablet_load: the new replica set), so the balancer sees a map where they are
  // applied, and a plan entry for one of their tablets (not a candidate in ScyllaDB: it is
  // migrating) is dropped.
  std::vector<TabletMigration> running;
  bool streamed = false;
  for (const Migration& m : migs_)
    if (m.active) {
      if (rules_.tablet_stages && m.stage > MigStage::Streaming) streamed = true;
      else running.push_back(m.m);
    }
  const BalancerLimits limits{sc_.changes.max_in_per_shard, sc_.changes.max_out_per_shard};
  // The release's balancer rules (ServerRules); unspecified keeps the single-table defaults. The
  // table's tablets all have the current tablet size (tablet_mb(); only the Size goal reads it).
  BalancerOptions opts;
  opts.goal = rules_.tablet_goal;
  opts.candidates = rules_.tablet_candidates;
  opts.intranode = rules_.tablet_intranode;
  const std::uint64_t tablet_bytes = static_cast<std::uint64_t>(tablet_mb() * 1048576.0);
  std::vector<TabletMigration> plan;
  if (!streamed) {
    const BalancerTable table{&tmap_, tablet_bytes};
    plan = plan_migrations(topo_, std::span<const BalancerTable>(&table, 1), bnodes_, running, limits, opts,
                           balancer_rng_);
  } else {
    TabletMap seen = tmap_;
    for (const Migration& m : migs_)
      if (m.active && m.stage > MigStage::Streaming) seen.replace_replica(m.m.tablet, m.m.from, m.m.to);
    const BalancerTable table{&seen, tablet_bytes};
    plan = plan_migrations(topo_, std::span<const BalancerTable>(&table, 1), bnodes_, running, limits, opts,
                           balancer_rng_);
    std::erase_if(plan, [&](const TabletMigration& p) { return tmig_[p.tablet] >= 0; });
  }
  const SimTime stream = static_cast<SimTime>(
      tablet_mb() / sc_.changes.stream_mb_s * 1e9 + 0.5);
  const SimTime latency = sc_.changes.migration_latency;
  for (const TabletMigration& m : plan) {
    std::uint32_t slot = 0;
    while (slot < migs_.size() && migs_[slot].active) ++slot;
    if (slot == migs_.size()) migs_.emplace_back();
    tmig_[m.tablet] = static_cast<std::int32_t>(slot);
    ++migrations_started_;
    if (rules_.tablet_stages) {
      migs_[slot] = {m, MigStage::AllowWriteBothReadOld, true};
      push_mech(now_ + latency / 5, kMechPlacement, kMigration, slot);
    } else if (sc_.changes.stream_cost()) {
      migs_[slot] = {m, MigStage::WriteBothReadOld, true};
      push_mech(now_ + latency / 2, kMechPlacement, kMigration, slot);  // then the streams
    } else {
      migs_[slot] = {m, MigStage::WriteBothReadOld, true};
      push_mech(now_ + latency / 2 + stream, kMechPlacement, kMigration, slot);
    }
  }
}

void Simulation::Impl::on_migration(std::uint32_t slot) {
  Migration& m = migs_[slot];
  const SimTime latency = sc_.changes.migration_latency;
  if (rules_.tablet_stages) {
    // Five equal parts of the fixed latency: allow_write_both_read_old, write_both_read_old (each
    // ended by a barrier), then after streaming write_both_read_new, use_new, cleanup and
    // end_migration (service/topology_coordinator.cc: a barrier at each transition).
    switch (m.stage) {
      case MigStage::AllowWriteBothReadOld:
        m.stage = MigStage::WriteBothReadOld;
        push_mech(now_ + latency / 5, kMechPlacement, kMigration, slot);
        return;
      case MigStage::WriteBothReadOld: start_streaming(slot); return;
      case MigStage::Streaming: streaming_done(slot); return;  // the fixed streaming time ended
      case MigStage::WriteBothReadNew:
        m.stage = MigStage::UseNew;
        push_mech(now_ + latency / 5, kMechPlacement, kMigration, slot);
        return;
      case MigStage::UseNew:
        m.stage = MigStage::Cleanup;
        push_mech(now_ + latency - 4 * (latency / 5), kMechPlacement, kMigration, slot);
        return;
      case MigStage::Cleanup: break;  // end_migration below
    }
  } else if (m.stage == MigStage::WriteBothReadOld) {
    if (sc_.changes.stream_cost()) {
      start_streaming(slot);
      return;
    }
    // Streamed (the fixed time): reads switch to the new replica.
    m.stage = MigStage::WriteBothReadNew;
    push_mech(now_ + latency - latency / 2, kMechPlacement, kMigration, slot);
    return;
  }
  // The new replica replaces the old one in place.
  const std::uint64_t t = m.m.tablet;
  const bool ok = tmap_.replace_replica(t, m.m.from, m.m.to);
  LBSIM_DCHECK(ok, "a migration's source is not a replica of its tablet");
  (void)ok;
  for (std::size_t i = 0; i < tstride_; ++i) thosts_[t * tstride_ + i] = tmap_.replicas(t)[i].host;
  tmig_[t] = -1;
  m.active = false;
  ++migrations_done_;
  const NodeId from = m.m.from.host;
  rebalance();
  leave_if_drained(from);
}

void Simulation::Impl::leave_if_drained(NodeId n) {
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
  if (nodes_.up(n)) {
    node_leaves(n);
    schedule_detection(n, false, nullptr, -1);
  } else {  // removed: already down (and detected so); the driver drops it from its metadata
    const auto at = now_ + sc_.faults.driver_detection;
    detections_.push_back({at, n, false, true, nullptr, -1});
    q_.push(at, kDetect, static_cast<std::uint32_t>(detections_.size() - 1));
  }
}

// A decommissioned node that has left shuts its client servers down: ScyllaDB right after it left
// (scylladb/scylladb service/storage_service.cc decommission: "DECOMMISSIONING: stopped
// transport"), Cassandra after its RING_DELAY (on_change_done). It does not die silently: the
// driver's connections to it close, so the requests in flight on them fail at once and go to the
// retry policy, and the host is down for every loader's driver at once (its last connection
// failed), as with a `kill` (close_connections), instead of each request waiting for the client
// timeout until faults.driver_detection_ms.
void Simulation::Impl::node_leaves(NodeId n) {
  if (!nodes_.up(n)) return;
  nodes_.set_down(n, now_);
  close_connections(n);  // sim_client.cpp
}

// removenode removes a node that is dead and seen down: Cassandra and ScyllaDB refuse a live one
// (apache/cassandra StorageService.removeNode, scylladb/scylladb service/storage_service.cc
// removenode: "is alive and owns this ID. Use decommission command to remove it from the ring").
// So at the event the node is down for the coordinators (gossip) and for the driver, and nothing
// waits for it: the requests in flight to it fail at once, as on a closed connection. A death that
// the driver has still to detect is a `down` fault before the event.
void Simulation::Impl::node_removed(NodeId n) {
  if (!nodes_.up(n)) return;  // already down (a fault): its own detection applies
  server_up_[n] = 0;
  node_leaves(n);
}

// Vnode keyspaces (Cassandra, ScyllaDB without tablets): a joining node takes its tokens, a
// decommissioned or removed one gives its ranges away. While the data streams (changes.
// streaming_s), writes also go to the ranges' pending replicas (the new ring's replicas that do
// not hold the range now) and reads stay on the old ones; then the coordinators switch to the new
// ring. The driver refreshes its token map, and its policies add or remove the host, after its
// detection delay from the switch (a node is announced NEW_NODE once it is NORMAL); a
// decommissioned node shuts down kRingDelay after the switch. Concurrent changes are serialized,
// as Cassandra requires.
const TokenRing* Simulation::Impl::member_ring(const std::vector<std::uint8_t>& members) {
  std::vector<NodeSpec> nodes;
  std::vector<NodeId> to_full;
  for (NodeId n = 0; n < n_; ++n)
    if (members[n]) {
      nodes.push_back(topo_.nodes[n]);
      to_full.push_back(n);
    }
  const TokenRing local(Topology::build(std::move(nodes)), ring_.replication());
  rings_.push_back(std::make_unique<TokenRing>(local.renumbered(topo_, to_full)));
  return rings_.back().get();
}

void Simulation::Impl::start_vnode_change(std::uint32_t idx) {
  const ChangeEvent& e = sc_.changes.events[idx];
  for (NodeId n : e.nodes) {
    if (e.kind == ChangeKind::AddNode) {
      vnode_members_[n] = 1;
      server_up_[n] = 1;  // gossip knows the joining node; it takes pending writes
    } else {
      vnode_members_[n] = 0;
      if (e.kind == ChangeKind::RemoveNode) node_removed(n);  // dead; the others stream its ranges
    }
  }
  pring_ = member_ring(vnode_members_);
  streaming_ = true;
  ++migrations_started_;
  push_mech(now_ + sc_.changes.streaming, kMechPlacement, kChangeDone, idx);
}

void Simulation::Impl::on_change_done(std::uint32_t idx) {
  const ChangeEvent& e = sc_.changes.events[idx];
  sring_ = pring_;
  pring_ = nullptr;
  streaming_ = false;
  ++migrations_done_;
  for (NodeId n : e.nodes) {
    switch (e.kind) {
      case ChangeKind::AddNode: schedule_detection(n, true, sring_, +1); break;
      case ChangeKind::Decommission: {
        // LEFT: the coordinators use the new ring now, the driver drops the host (and refreshes
        // its token map) after its detection delay. The node itself shuts its client servers
        // and messaging down kRingDelay later (apache/cassandra 3.11 StorageService: leaveRing()
        // announces LEFT and sleeps RING_DELAY, then finishLeaving runs shutdownClientServers()
        // and stops messaging); until then it still answers what it is sent, as a coordinator
        // only (it owns no range). Its shutdown is a `kill`: the driver's connections close.
        schedule_detection(n, false, sring_, -1);
        const SimTime at = now_ + kRingDelay;
        faults_.push_back({at, n, FaultKind::Kill, 0, 1.0});
        q_.push(at, kFault, static_cast<std::uint32_t>(faults_.size() - 1));
        break;
      }
      case ChangeKind::RemoveNode: {
        // Already down (and detected as such): only the driver's token map changes.
        const auto at = now_ + sc_.faults.driver_detection;
        detections_.push_back({at, n, false, true, sring_, -1});
        q_.push(at, kDetect, static_cast<std::uint32_t>(detections_.size() - 1));
        break;
      }
    }
  }
  if (!queued_changes_.empty()) {
    const std::uint32_t next = queued_changes_.front();
    queued_changes_.erase(queued_changes_.begin());
    start_vnode_change(next);
  }
}

}  // namespace lbsim
