// Tablet keyspaces (issue 11), the routing half: the tablet map the coordinators use, the
// drivers' cache and the payload. Sources: scylladb/scylladb (read at f4a4091ca2)
// locator/tablets.cc, service/tablet_allocator.cc, docs/dev/protocol-extensions.md; the drivers'
// tablet caches (scylladb/java-driver TabletMap.java, scylladb/python-driver cassandra/tablets.py,
// scylladb/gocql tablets/tablets.go, scylladb/scylla-rust-driver
// scylla/src/routing/locator/tablets.rs):
// - the server's tablet map (system.tablets), changed only by migrations (migrations.cpp), each
//   replica a (host, shard); replica work runs on the replica's tablet shard;
// - the locality check after execution (locator/tablets.cc check_locality): a coordinator that is
//   not a replica, or a replica reached on another shard than the tablet's, answers with the
//   tablets-routing-v1 payload (the replicas column: the old set while a tablet moves), except
//   the pending replica on its pending shard; the request is never redirected;
// - the driver's cache, warm or empty, merged from payloads (delete the overlapping entries and
//   insert the new one: with a fixed pow2 count, the entry of that tablet is replaced); a key whose
//   tablet is unknown takes the driver's fallback (the vnode token map, or no token awareness).
// It reaches the request path through the placement's strategies and hooks (hooks.hpp): the
// operation's range is its tablet's index.
#include "sim/mech/placement/tablets.hpp"

#include <algorithm>
#include <limits>

#include "sim/engine/sim_impl.hpp"

namespace lbsim {

TabletPlacement::TabletPlacement(Core& core, std::uint16_t id)
    : Placement(core, id), ch_(core.sc_.changes),
      ps_(*core.sc_.mech.get<PlacementSpec>(MechSpecs::k_placement)), pr_(placement_rules(core.sc_.nodes.server)), balancer_rng_(core.root_.fork("balancer")) {
  const std::size_t n = core.n_;
  left_.assign(n, 0);
  bnodes_.assign(n, BalancerNode{});
  for (NodeId i = 0; i < n; ++i) bnodes_[i].shards = i < initial_ ? core.sc_.nodes.shards : 0;
  stream_report_ = ch_.any() && (pr_.stages || ps_.stream_cost());
  if (stream_report_) {
    node_streams_.assign(n, 0);
    node_stream_time_.assign(n, 0);
    node_stream_since_.assign(n, 0);
    node_sent_mb_.assign(n, 0);
    node_recv_mb_.assign(n, 0);
  }
  tmap_ = *core.sc_.tablet_map;
  stride_ = tmap_.replicas_per_tablet();
  thosts_.resize(tmap_.all().size());
  for (std::size_t i = 0; i < thosts_.size(); ++i) thosts_[i] = tmap_.all()[i].host;
  tmig_.assign(tmap_.count(), -1);
  const bool warm = core.sc_.client.tablet_cache_warm;
  cache_known_.assign(tmap_.count(), warm ? 1 : 0);
  cache_hosts_ = thosts_;
  cache_shards_.resize(thosts_.size());
  for (std::size_t i = 0; i < thosts_.size(); ++i) cache_shards_[i] = tmap_.all()[i].shard;
  init_resize();

  Hooks& k = core.hooks_;
  k.op_range.claim(this, [](void* s, Token t) { return static_cast<TabletPlacement*>(s)->op_range(t); });
  k.driver_replicas.claim(this, [](void* s, std::uint32_t tablet, Token t) {
    return static_cast<TabletPlacement*>(s)->driver_replicas(tablet, t);
  });
  k.driver_shard.claim(this, [](void* s, std::uint32_t tablet, Token t, NodeId host) {
    return static_cast<TabletPlacement*>(s)->driver_shard(tablet, t, host);
  });
  k.coordinator_replicas.claim(
      this, [](void* s, std::uint32_t cr, bool read, std::array<NodeId, 64>& buf, std::uint32_t& pending) {
        auto* p = static_cast<TabletPlacement*>(s);
        return p->server_replicas(p->core_.crs_[cr].range, read, buf, pending);
      });
  k.replica_shard.claim(this, [](void* s, std::uint32_t tablet, Token t, NodeId r) {
    return static_cast<TabletPlacement*>(s)->replica_shard(tablet, t, r);
  });
  k.routing_hint.claim(this, [](void* s, std::uint32_t cr, RoutingHint& out) {
    static_cast<TabletPlacement*>(s)->routing_hint(cr, out);
  });
  k.coordinator_executed.add(this, [](void* s, std::uint32_t cr) { static_cast<TabletPlacement*>(s)->route(cr); });
  k.answer_received.add(this, [](void* s, std::uint32_t cr) { static_cast<TabletPlacement*>(s)->learn(cr); });
  k.replica_hop.add(this, [](void* s, NodeId) { static_cast<TabletPlacement*>(s)->hop(); });
}

void TabletPlacement::on_event(std::uint16_t sub, std::uint32_t arg) {
  switch (sub) {
    case kChange: on_change(arg); break;
    case kMigration: on_migration(arg); break;
    case kStreamChunk: on_stream_chunk(arg); break;
    case kResizeTick: on_resize_tick(arg); break;
    default: check_fail("tablet placement event of unknown kind", sub);
  }
}

bool TabletPlacement::in_window() const { return core_.window_open_ && !core_.window_closed_; }

std::span<const NodeId> TabletPlacement::server_replicas(std::uint32_t tablet, bool read, std::array<NodeId, 64>& buf,
                                                         std::uint32_t& pending) const {
  pending = 0;
  const std::span<const NodeId> cur(thosts_.data() + tablet * stride_, stride_);
  const std::int32_t mi = tmig_[tablet];
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

std::uint32_t TabletPlacement::replica_shard(std::uint32_t tablet, Token t, NodeId r) const {
  const std::int32_t mi = tmig_[tablet];
  if (mi >= 0) {
    const Migration& m = migs_[static_cast<std::size_t>(mi)];
    // An intra-node move keeps the host: the new shard serves once reads switch.
    if (m.m.to.host == r && (m.m.from.host != r || m.stage >= MigStage::WriteBothReadNew)) return m.m.to.shard;
  }
  for (const TabletReplica& x : tmap_.replicas(tablet))
    if (x.host == r) return x.shard;
  return core_.shard_of_token(t);  // not a replica (not reached: coordinators send only to replicas)
}

std::span<const NodeId> TabletPlacement::driver_replicas(std::uint32_t tablet, Token t) {
  if (cache_known_[tablet]) return {cache_hosts_.data() + tablet * stride_, stride_};
  ++tc_.fallback;
  if (in_window()) core_.result_.timeline.record_fallback(core_.now_ - core_.window_start_);
  if (core_.sc_.client.tablet_fallback == TabletFallback::Random) return {};  // Rust: not token-aware
  return core_.ring_.replicas(t, ReplicaOrder::Driver);
}

std::uint32_t TabletPlacement::driver_shard(std::uint32_t tablet, Token t, NodeId host) {
  if (cache_known_[tablet]) {
    // The tablet's shard for this host (Java 3.x, Python, Go: else the vnode formula).
    const std::size_t base = tablet * stride_;
    for (std::size_t i = 0; i < stride_; ++i)
      if (cache_hosts_[base + i] == host) return cache_shards_[base + i];
  } else if (core_.sc_.client.tablet_fallback == TabletFallback::Random) {
    // Rust: a random shard (no connection model: over the node's shards, as an unrouted request's).
    const std::uint32_t shards = core_.conns_per_host_ == 0 ? core_.sc_.nodes.shards : core_.shards_;
    return static_cast<std::uint32_t>(core_.shard_rng_.below(shards));
  }
  return core_.shard_of_token(t);
}

void TabletPlacement::route(std::uint32_t cr) {
  auto& c = core_.crs_[cr];
  if (!c.routed) return;
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
    if (in_window()) core_.result_.timeline.record_non_replica(core_.now_ - core_.window_start_);
    c.payload = !pending_here;
  } else if (wrong) {
    ++tc_.wrong_shard;
    c.payload = !pending_here;
  }
}

// The tablets-routing-v1 payload of an answer (SS locator/tablets.cc check_locality and
// cql3/query_processor's add_tablet_info): the tablet's range (first, last], the first tablet's
// from the minimum token, and the replicas column of system.tablets (the old set while it moves).
void TabletPlacement::routing_hint(std::uint32_t cr, RoutingHint& out) const {
  const std::uint32_t tablet = core_.crs_[cr].range;
  const int log2 = tmap_.log2_count();
  out.first = tablet == 0 ? std::numeric_limits<Token>::min() : tablet_last_token(tablet - 1, log2);
  out.last = tablet_last_token(tablet, log2);
  out.replicas.clear();
  for (const TabletReplica& r : tmap_.replicas(tablet)) out.replicas.emplace_back(r.host, r.shard);
}

void TabletPlacement::learn(std::uint32_t cr) {
  const auto& c = core_.crs_[cr];
  if (!c.payload || !c.success) return;
  ++tc_.payloads;
  if (in_window()) core_.result_.timeline.record_payload(core_.now_ - core_.window_start_);
  // Java 4.x before 4.19.0.1 learnt from SELECT results only (java-driver#498).
  if (c.kind != OpKind::Read && !core_.sc_.client.tablet_learn_writes) return;
  drop_cached_entry(c.range);  // an entry learnt before a split covers more than this tablet
  const std::size_t base = c.range * stride_;
  const auto reps = tmap_.replicas(c.range);
  for (std::size_t i = 0; i < stride_; ++i) {
    cache_hosts_[base + i] = reps[i].host;
    cache_shards_[base + i] = reps[i].shard;
  }
  cache_known_[c.range] = 1;
  ++tc_.cache_updates;
}

void TabletPlacement::hop() {
  if (in_window()) core_.result_.timeline.record_hop(core_.now_ - core_.window_start_);
}

void TabletPlacement::window_open() {
  tc_start_ = tc_;
  if (!stream_report_) return;
  const SimTime now = core_.now_;
  stream_time_start_.clear();
  for (NodeId n = 0; n < core_.n_; ++n) stream_time_start_.push_back(stream_time_at(n, now));
  sent_start_ = streamed_mb(true);
  recv_start_ = streamed_mb(false);
}

void TabletPlacement::window_close() {
  tc_end_ = tc_;
  if (!stream_report_) return;
  const SimTime now = core_.now_;
  stream_time_end_.clear();
  for (NodeId n = 0; n < core_.n_; ++n) stream_time_end_.push_back(stream_time_at(n, now));
  sent_end_ = streamed_mb(true);
  recv_end_ = streamed_mb(false);
}

void TabletPlacement::collect(RunResult& r) const {
  if (stream_report_)
    for (NodeId n = 0; n < core_.n_ && n < r.nodes.size(); ++n)
      r.nodes[n].streaming = NodeStreaming{to_sec(stream_time_end_[n] - stream_time_start_[n]),
                                           sent_end_[n] - sent_start_[n], recv_end_[n] - recv_start_[n]};
  TabletResult t;
  t.tablets = tmap_.count();
  t.count_start = tcount_start_;
  t.table_mb = table_mb_;
  t.tablet_mb_start = table_mb_ / static_cast<double>(tcount_start_);
  t.server = std::string(server_rules(core_.sc_.nodes.server).name);
  t.splits = splits_;
  t.merges = merges_;
  t.fallback = tc_end_.fallback - tc_start_.fallback;
  t.non_replica = tc_end_.non_replica - tc_start_.non_replica;
  t.wrong_shard = tc_end_.wrong_shard - tc_start_.wrong_shard;
  t.payloads = tc_end_.payloads - tc_start_.payloads;
  t.cache_updates = tc_end_.cache_updates - tc_start_.cache_updates;
  t.migrations_started = migrations_started_;
  t.migrations_done = migrations_done_;
  t.node_replicas.assign(core_.n_, 0);
  for (NodeId h : thosts_) ++t.node_replicas[h];
  const BalanceStats bs = balance_stats(core_.topo_, tmap_, bnodes_);
  t.overcommit_node = bs.node_overcommit;
  t.overcommit_shard = bs.shard_overcommit;
  t.best_node = bs.best_node;
  t.best_shard = bs.best_shard;
  r.tablets = std::move(t);
}

}  // namespace lbsim
