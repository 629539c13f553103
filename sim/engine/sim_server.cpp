// The server side of a run: coordinators (CL arithmetic, Unavailable, closest-first reads,
// timeouts), replica work, and scheduled faults with their detection by driver and gossip.
#include "sim/engine/sim_impl.hpp"

namespace lbsim {

void Simulation::Impl::release_cr_if_idle(std::uint32_t cr) {
  const CoordReq& c = crs_[cr];
  if (c.done && c.pending == 0 && c.outstanding == 0) crs_.release(cr);
}

template <bool H>
void Simulation::Impl::respond(std::uint32_t cr, bool success, ErrorKind error) {
  CoordReq& c = crs_[cr];
  mark_cr_done(c, cr);
  if (!nodes_.up(c.node) || nodes_.went_down(c.node, c.epoch, now_ + 1)) {
    release_cr_if_idle(cr);
    return;
  }
  c.success = success;
  c.error = error;
  if (H && !hooks_.read_done.empty() && c.kind == OpKind::Read) [[unlikely]]
    hooks_.read_done.fire(cr);
  ++c.pending;
  q_.push(now_ + net_client_cr(c.node, cr), kClientResponse, cr);
  // The answer reaches the client a network hop from now and reads its attempt, written when it
  // was sent (cold at 10,000 client threads): fetched ahead (issue 14).
  if (in_flight_ >= kColdInFlight) {
    // The answer also reads its operation: the previous answer's attempt has arrived by now, so
    // its operation is fetched too (one answer behind).
    if (prefetched_attempt_ != kNone) __builtin_prefetch(&ops_[attempts_[prefetched_attempt_].op], 1);
    prefetched_attempt_ = c.attempt;
    __builtin_prefetch(&attempts_[c.attempt], 1);
  }
}

template <bool H>
void Simulation::Impl::on_attempt_arrive(std::uint32_t cr) {
  CoordReq& c = crs_[cr];
  LBSIM_DCHECK(c.pending > 0, "coordinator request event count would go negative");
  --c.pending;
  const NodeId node = c.node;
  if (!nodes_.up(node)) {  // lost: the client times out
    mark_cr_done(c, cr);
    release_cr_if_idle(cr);
    return;
  }
  if (const SimTime until = nodes_.paused_until(node, now_); until > now_) {
    ++c.pending;
    q_.push(until, kAttemptArrive, cr);
    return;
  }
  ++nodes_.counters(node).coordinator_ops;
  if (window_open_ && !window_closed_) {
    result_.timeline.record_coordinator(now_ - window_start_, node);
    ++loaders_[cr_loader_[cr]]->coordinator[node];
  }
  if (!shard_counts_.empty()) ++shard_counts_[lane(node, c.shard)].coordinator;  // (node, shard) as lanes are
  c.epoch = nodes_.epoch(node);
  if (!admitted_.empty()) {
    // ScyllaDB's admission limit: a shard holding max_concurrent_requests_per_shard requests
    // answers OVERLOADED at once (scylladb/scylladb transport/server.cc, requests_shed).
    std::uint32_t& held = admitted_[lane(node, c.shard)];
    if (held >= sc_.nodes.max_requests_per_shard) {
      ++nodes_.counters(node).dropped_coordinator;
      respond<H>(cr, false, ErrorKind::Overloaded);
      return;
    }
    ++held;
    c.admitted = true;
  }
  ++c.pending;
  const SimTime timeout = request_timeout(c.kind);
  if (sc_.nodes.coordinator.is_zero()) {
    c.deadline = now_ + timeout;  // arrival and dequeue coincide
    on_coord_done<H>(cr);
    return;
  }
  // The deadline is fixed here, once (ServerRules::coordinator_clock): at arrival, or at the start
  // of the coordinator's work. Work that waits too long is dropped at the head of the queue: past
  // its deadline with lbsim's unspecified rules (answering Read/WriteTimeout at the deadline), past
  // native_transport_ms with cassandra-5.0 (answering OverloadedException when dequeued).
  const SimTime wait = coord_max_wait_[static_cast<std::size_t>(c.kind)];
  const double service = sc_.nodes.coordinator.sample_ns(service_rng_);
  const SimTime end = nodes_.enqueue(node, c.shard, now_, service, wait == kNoDeadline ? kNoDeadline : now_ + wait);
  c.deadline = (deadline_at_arrival_ ? now_ : nodes_.last_start()) + timeout;
  if (timer_at_arrival_) {
    // Armed now, so the timer FIFO gets its deadlines in order (arrival + a constant); armed when
    // the coordinator's work ends, they would come out of order by the spread of queue waits,
    // and the FIFO would delay the earlier ones.
    DeadlineFifo& f = timers_[timer_of(c.kind)];
    f.push(c.deadline, cr, c.gen);
    if (!f.armed) arm(timer_of(c.kind));  // else on_coord_done's arm() trims it, as before
  }
  if (end == kDropped) {
    ++nodes_.counters(node).dropped_coordinator;
    c.shed = true;
    const bool overloaded = rules_.native_transport_timeout;
    c.error = overloaded ? ErrorKind::Overloaded : timeout_error(c.kind);
    q_.push(overloaded ? nodes_.last_start() : c.deadline, kCoordDone, cr);
    return;
  }
  q_.push_lane(lane(node, c.shard), end, kCoordDone, cr);
}

template <bool H>
void Simulation::Impl::on_coord_done(std::uint32_t cr) {
  CoordReq& c = crs_[cr];
  LBSIM_DCHECK(c.pending > 0, "coordinator request event count would go negative");
  --c.pending;
  const NodeId node = c.node;
  if (!nodes_.up(node) || nodes_.went_down(node, c.epoch, now_ + 1)) {
    mark_cr_done(c, cr);
    release_cr_if_idle(cr);
    return;
  }
  if (c.done) {  // the coordinator's timer fired while the work waited or ran (timer_at_arrival_)
    release_cr_if_idle(cr);
    return;
  }
  if (c.shed) {  // dropped unexecuted: the error chosen when it was dropped
    respond<H>(cr, false, c.error);
    return;
  }
  if (now_ >= c.deadline) {  // the coordinator's own work outlasted the timeout
    respond<H>(cr, false, timeout_error(c.kind));
    return;
  }
  if (H) hooks_.coordinator_executed.fire(cr);  // the coordinator's own work ended (hooks.hpp)
  std::array<NodeId, 64> rbuf;  // written before read; not zeroed (a 256-byte store per request)
  std::uint32_t pending = 0;
  const auto replicas = coordinator_replicas<H>(cr, c.kind == OpKind::Read, rbuf, pending);
  const std::uint32_t local = topo_.node_dc[node];
  // CL arithmetic, availability and closest-first reads: sim/cluster/coordination.hpp, the same
  // code the analytic load model uses.
  ClNeed need = cl_need(c.cl, local, rf_);
  if (c.kind != OpKind::Read) add_pending_to_need(need, node, replicas, pending);
  store_need(cr, need);
  auto live = [this](NodeId r) { return server_up_[r] != 0; };
  if (!cl_available(need, topo_, local, replicas, live)) {
    respond<H>(cr, false, ErrorKind::Unavailable);
    return;
  }

  const TimerId timer = timer_of(c.kind);
  if (!timer_at_arrival_) timers_[timer].push(c.deadline, cr, c.gen);
  if (c.kind == OpKind::Lwt) {
    c.phase = 0;
    send_phase<H>(cr);
  } else {
    // Targets: writes go to every live replica; reads to as many as the CL needs, closest first.
    std::array<NodeId, 64> targets;  // written before read
    std::size_t nt = 0, data_targets = 1;
    if (c.kind == OpKind::Write) {
      for (NodeId r : replicas)
        if (live(r) && nt < targets.size()) targets[nt++] = r;
    } else if (!H || !hooks_.read_split || need.each) {
      nt = order_reads<H>(need, node, replicas, live, targets);
    } else {
      // A mechanism holds some targets back (hooks.hpp ReadSplit): `spare` more than the CL needs.
      ClNeed more = need;
      more.total += hooks_.read_split.spare;
      nt = order_reads<H>(more, node, replicas, live, targets);
      const ReadSplit::Split s = hooks_.read_split(cr, need.total, std::span<const NodeId>(targets.data(), nt));
      nt = s.send;
      data_targets = s.data;
    }
    send_to_replicas<H>(cr, std::span<const NodeId>(targets.data(), nt), data_targets);
  }
  arm(timer);
}

template <bool H>
void Simulation::Impl::send_to_replicas(std::uint32_t cr, std::span<const NodeId> targets, std::size_t data_targets) {
  // Replica work is owned by the token's shard. It arrives on the coordinator's shard when local,
  // and on the sender's shard number when remote (rpc_on_sender_shard); a different arrival shard
  // hands it over (a cross-shard hop). Without a connection model (or the connections' shards of
  // operations from outside, Simulation::external_begin) it goes straight to the owner.
  const NodeId node = crs_[cr].node;
  const bool hops = (conns_per_host_ != 0 || external_shards_) && shards_ > 1;
  // The first `data_targets` targets of a read get data requests, the others digests.
  std::size_t data = crs_[cr].kind == OpKind::Read ? data_targets : 0;
  for (const NodeId r : targets) {
    const std::uint32_t owner = replica_shard<H>(crs_[cr].range, crs_[cr].token, r);
    const std::uint32_t job = jobs_.alloc();
    Job& j = jobs_[job];
    j.cr = cr;
    j.node = r;
    j.owner = static_cast<std::uint16_t>(owner);
    j.arrival = static_cast<std::uint16_t>(hops && (r == node || sc_.nodes.rpc_on_sender_shard) ? crs_[cr].shard : owner);
    j.phase = crs_[cr].phase;
    j.data = data > 0;
    if (data > 0) --data;
    // The work's expiry (ServerRules::replica_clock) while it waits; receipt clocks set it on arrival.
    j.end = rules_.replica_clock == ReplicaClock::Sent ? now_ + request_timeout(crs_[cr].kind) : crs_[cr].deadline;
    ++crs_[cr].outstanding;
    if (H && !hooks_.read_sent.empty() && crs_[cr].kind == OpKind::Read) hooks_.read_sent.fire(job);
    if (r == node) enqueue_replica<H>(job, r, now_);
    else q_.push(now_ + net(node, r), kReplicaArrive, job);
  }
}

// Paxos for a lightweight transaction, as a model (configs/README.md, "workload"): four rounds,
// prepare, read, propose and commit, each sent to every live replica of the serial DC set (all
// replicas for SERIAL, the coordinator's DC for LOCAL_SERIAL) and each waiting for a quorum of that
// set before the next starts. Prepare, propose and commit are writes at the replica (the Paxos
// state and then the mutation), the read round a read. Contention between transactions on one
// partition (ballot conflicts, retries) is not modelled.
template <bool H>
void Simulation::Impl::send_phase(std::uint32_t cr) {
  CoordReq& c = crs_[cr];
  c.got = 0;
  // The replicas may have changed since the previous Paxos round (a placement's strategy).
  std::array<NodeId, 64> rbuf;  // written before read; not zeroed (a 256-byte store per request)
  std::uint32_t pending = 0;
  const auto replicas = coordinator_replicas<H>(cr, c.phase == 1, rbuf, pending);
  const bool local_only = c.cl == ConsistencyLevel::LocalSerial;
  const std::uint32_t local = topo_.node_dc[c.node];
  // Each round counts its own pending replicas (the ring or a tablet may have moved on).
  ClNeed need = cl_need(c.cl, local, rf_);
  if (c.phase != 1) add_pending_to_need(need, c.node, replicas, pending);
  store_need(cr, need);
  std::array<NodeId, 64> targets;  // written before read
  std::size_t nt = 0;
  for (NodeId r : replicas)
    if (server_up_[r] != 0 && (!local_only || topo_.node_dc[r] == local) && nt < targets.size()) targets[nt++] = r;
  send_to_replicas<H>(cr, std::span<const NodeId>(targets.data(), nt));
}

// Each live pending replica (a tablet moving, a vnode range changing hands) adds one to the
// writes' block count, as Cassandra's and ScyllaDB's pending endpoints do; `replicas` ends with
// the `pending` ones.
void Simulation::Impl::add_pending_to_need(ClNeed& need, NodeId coordinator, std::span<const NodeId> replicas,
                                           std::uint32_t pending) {
  const std::uint32_t local = topo_.node_dc[coordinator];
  for (std::size_t i = replicas.size() - pending; i < replicas.size(); ++i) {
    const NodeId p = replicas[i];
    if (server_up_[p] == 0) continue;
    const std::uint32_t pd = topo_.node_dc[p];
    if (need.each) {
      if (pd < kMaxDcs) ++need.per_dc[pd];
    } else if (!need.local_only || pd == local) {
      ++need.total;
    }
  }
}

void Simulation::Impl::store_need(std::uint32_t cr, const ClNeed& need) {
  CoordReq& c = crs_[cr];
  c.need_total = static_cast<std::uint16_t>(std::min<std::uint32_t>(need.total, 0xffff));
  c.need_local_only = need.local_only;
  c.need_each = need.each;
  if (need.each) {
    cr_per_dc_[cr] = need.per_dc;
  }
}

void Simulation::Impl::drop_job(std::uint32_t job) {
  const std::uint32_t cr = jobs_[job].cr;
  LBSIM_DCHECK(crs_[cr].outstanding > 0, "replica job count would go negative");
  --crs_[cr].outstanding;
  jobs_.release(job);
  release_cr_if_idle(cr);
}

// Out of line (as the cache's member call was before it became a strategy), so that the indirect
// call does not change how enqueue_replica keeps its state in registers: cachegrind, Release,
// configs/default.json under RANDOM at 50,000 operations, 545.13M instructions with it inline,
// 544.51M out of line, 545.03M before the move.
double Simulation::Impl::replica_service(std::uint32_t job, NodeId r, bool read, SimTime now) {
  return hooks_.replica_service(job, r, read, now);
}

template <bool H>
void Simulation::Impl::enqueue_replica(std::uint32_t job, NodeId r, SimTime now) {
  Job& j = jobs_[job];
  CoordReq& c = crs_[j.cr];
  // LWT rounds: read (1) is a read, prepare (0), propose (2) and commit (3) are writes.
  const bool read = c.kind == OpKind::Read || (c.kind == OpKind::Lwt && j.phase == 1);
  // A replica drops work that expired before its start (on arrival or while queued), and with
  // read_abort cancels a read still running at its expiry; the coordinator then counts no answer
  // from it. The expiry is in j.end (ServerRules::replica_clock): the coordinator's deadline, the
  // message's creation + timeout, or (set here, on the first arrival) its receipt + timeout.
  if (rules_.replica_clock == ReplicaClock::Receipt && !j.hopped && !j.parked_done) j.end = now + request_timeout(c.kind);
  const SimTime deadline = shed_ ? j.end : kNoDeadline;
  NodeCounters& k = nodes_.counters(r);
  if (j.arrival != j.owner && !j.hopped) {
    // The arrival shard's half of the hop; the owner takes over when it is done (on_hop_done).
    j.epoch = nodes_.epoch(r);
    const SimTime handed = nodes_.enqueue(r, j.arrival, now, sc_.nodes.cross_shard_hop_ns / 2, deadline);
    if (handed == kDropped) {
      ++(read ? k.dropped_reads : k.dropped_writes);
      drop_job(job);
      return;
    }
    j.hopped = true;
    ++node_hops_[r];
    if (H) hooks_.replica_hop.fire(r);
    if (!shard_counts_.empty()) ++shard_counts_[r * shards_ + j.arrival].hops;
    q_.push(handed + sc_.nodes.cross_shard_latency.sample(net_rng_), kHopDone, job);
    return;
  }
  double service;
  if (H && hooks_.replica_service) [[unlikely]] {  // a mechanism's (hooks.hpp): it may keep the job
    service = replica_service(job, r, read, now);
    if (service < 0) return;
  } else {
    service = (read ? sc_.nodes.read : sc_.nodes.write).sample_ns(service_rng_);
  }
  if (c.rows > 1) service *= 1.0 + sc_.nodes.row_cost * static_cast<double>(c.rows - 1);
  if (j.hopped) service += sc_.nodes.cross_shard_hop_ns / 2;  // the owner's half of the hop (model_spec.hpp)
  j.epoch = nodes_.epoch(r);
  j.end = read && read_abort_ ? nodes_.enqueue_abortable(r, j.owner, now, service, deadline, deadline)
                              : nodes_.enqueue(r, j.owner, now, service, deadline);
  if (j.end < 0) {  // kDropped, or kAborted (Cassandra counts an aborted read as a dropped message)
    ++(read ? k.dropped_reads : k.dropped_writes);
    drop_job(job);
    return;
  }
  ++(read ? k.replica_reads : k.replica_writes);
  if (!shard_counts_.empty()) ++shard_counts_[r * shards_ + j.owner].replica;
  if (r == c.node) {
    if (H && !hooks_.read_answer.empty() && c.kind == OpKind::Read) hooks_.read_answer.fire(job, c.node, r, j.end);
    if (answer_needed(c, r, j.end)) q_.push_lane(lane(r, j.owner), j.end, kReplicaDone, job);
    else drop_job(job);
  } else if (c.done) {
    // The answer is no longer needed: the replica still does the work, no response event.
    if (H && !hooks_.read_answer_unneeded.empty() && c.kind == OpKind::Read) hooks_.read_answer_unneeded.fire(job);
    drop_job(job);
  } else {
    const SimTime at = j.end + net(r, c.node);  // drawn either way: the network stream's order holds
    if (H && !hooks_.read_answer.empty() && c.kind == OpKind::Read) hooks_.read_answer.fire(job, c.node, r, at);
    if (answer_needed(c, r, at)) {
      // The server's own lane holds its completions; its answers to other coordinators take a
      // second one: their times are its completion times plus a network hop, nearly in order, and
      // an answer out of order goes to the calendar on its own (the order of pops is the same).
      j.answer_lane = true;
      q_.push_lane(answer_lane(r, j.owner), at, kReplicaDone, job);
    } else {
      drop_job(job);
    }
  }
}

// An answer that would find the request already answered does nothing in on_replica_done but
// release its job; without faults or topology changes that is known when it is scheduled. Skipping
// its event keeps every other event, in the same order, and every random draw, so the run is the
// same (only the job and request slots are recycled sooner). Issue 14: 0.8 of the 1.8 answers per
// operation of configs/default.json (LOCAL_ONE writes to three replicas).
bool Simulation::Impl::answer_needed(CoordReq& c, NodeId r, SimTime at) {
  if (!answers_fixed_ || c.kind == OpKind::Lwt || c.need_each || c.need_total == 0) return true;
  // An answer from outside the coordinator's DC never counts toward a LOCAL_* level.
  if (c.need_local_only && topo_.node_dc[r] != topo_.node_dc[c.node]) return false;
  // A fixed instant of the request at or before its send to the replicas (where its deadline
  // counts from): answer times are kept relative to it.
  const SimTime sent = c.deadline - request_timeout(c.kind);
  const SimTime rel = at - sent;
  auto& a = c.answers;
  const std::uint32_t need = c.need_total;
  // The need-th earliest answer scheduled before this one arrives no later (on a tie it was queued
  // first, so it pops first): the request is answered by then.
  if (need <= a.size() && a[need - 1] != kNoAnswer && a[need - 1] <= rel) return false;
  if (rel < kNoAnswer) {  // keep the earliest a.size() times, sorted; later ones are not needed
    std::uint32_t v = static_cast<std::uint32_t>(rel);
    for (auto& x : a)
      if (v < x) std::swap(v, x);
  }
  return true;
}

template <bool H>
void Simulation::Impl::on_hop_done(std::uint32_t job) {
  const Job& j = jobs_[job];
  if (!nodes_.up(j.node) || nodes_.went_down(j.node, j.epoch, now_ + 1)) {
    drop_job(job);  // lost with the node's queues
    return;
  }
  enqueue_replica<H>(job, j.node, now_);
}

template <bool H>
void Simulation::Impl::on_replica_arrive(std::uint32_t job) {
  const NodeId r = jobs_[job].node;
  if (!nodes_.up(r)) {
    drop_job(job);
    return;
  }
  if (const SimTime until = nodes_.paused_until(r, now_); until > now_) {
    q_.push(until, kReplicaArrive, job);
    return;
  }
  enqueue_replica<H>(job, r, now_);
}

template <bool H>
void Simulation::Impl::on_replica_done(std::uint32_t job) {
  const Job j = jobs_[job];
  CoordReq& c = crs_[j.cr];
  if (j.node != c.node && nodes_.up(c.node)) {
    if (const SimTime until = nodes_.paused_until(c.node, now_); until > now_) {
      q_.push(until, kReplicaDone, job);
      return;
    }
  }
  jobs_.release(job);
  LBSIM_DCHECK(c.outstanding > 0, "replica job count would go negative");
  --c.outstanding;
  const bool lost = nodes_.went_down(j.node, j.epoch, j.end) || !nodes_.up(c.node) ||
                    nodes_.went_down(c.node, c.epoch, now_ + 1);
  const bool stale = c.kind == OpKind::Lwt && j.phase != c.phase;  // an answer of an earlier round
  if (!lost && !c.done && !stale) {
    const std::uint32_t d = topo_.node_dc[j.node];
    bool met = false;
    if (c.need_each) {
      // The per-DC need counts down the answers each DC still owes (it is recomputed per request
      // and per Paxos round before any answer), so no separate per-DC tally is kept per request.
      auto& per_dc = cr_per_dc_[j.cr];
      if (d < kMaxDcs && per_dc[d] > 0) --per_dc[d];
      met = true;
      for (std::size_t k = 0; k < topo_.dcs.size() && k < kMaxDcs; ++k) met = met && per_dc[k] == 0;
    } else {
      if (!c.need_local_only || d == topo_.node_dc[c.node]) ++c.got;
      if (j.data) c.phase = 1;
      // A read needs its data answer too; with exactly need_total targets every answer is needed.
      met = c.got >= c.need_total && (c.kind != OpKind::Read || c.phase != 0);
    }
    if (met && c.kind == OpKind::Lwt && c.phase < 3) {
      ++c.phase;  // the next Paxos round
      send_phase<H>(j.cr);
      release_cr_if_idle(j.cr);
      return;
    }
    if (met) {
      // An answer after the deadline does not count: the timeout error went, or goes, first (a
      // timer whose FIFO holds an earlier-armed later deadline can fire late).
      if (now_ > c.deadline) respond<H>(j.cr, false, timeout_error(c.kind));
      else respond<H>(j.cr, true, ErrorKind::Unavailable);
      return;
    }
  }
  release_cr_if_idle(j.cr);
}

void Simulation::Impl::on_fault(std::uint32_t idx) {
  const FaultEvent& f = faults_[idx];
  if (f.kind == FaultKind::Up) {
    nodes_.set_up(f.node, now_);
    return;
  }
  nodes_.set_down(f.node, now_);
  if (f.kind == FaultKind::Kill || f.kind == FaultKind::Restart) {
    close_connections(f.node);  // sim_client.cpp
    hooks_.process_lost.fire(f.node);
  }
}

// A decommissioned node that has left shuts its client servers down: ScyllaDB right after it left
// (scylladb/scylladb service/storage_service.cc decommission: "DECOMMISSIONING: stopped
// transport"), Cassandra after its RING_DELAY (after the vnode ring's switch). It does not die
// silently: the driver's connections to it close, so the requests in flight on them fail at once
// and go to the retry policy, and the host is down for every loader's driver at once (its last
// connection failed), as with a `kill` (close_connections), instead of each request waiting for
// the client timeout until faults.driver_detection_ms.
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


void Simulation::Impl::schedule_detection(NodeId n, bool up, const TokenRing* ring, std::int8_t member) {
  if (member != 0 && !hooks_.member_changed.empty()) hooks_.member_changed.fire(n, member);
  const auto at_driver = now_ + sc_.faults.driver_detection;
  const auto at_server = now_ + sc_.faults.server_detection;
  detections_.push_back({at_driver, n, up, true, ring, member});
  q_.push(at_driver, kDetect, static_cast<std::uint32_t>(detections_.size() - 1));
  detections_.push_back({at_server, n, up, false});
  q_.push(at_server, kDetect, static_cast<std::uint32_t>(detections_.size() - 1));
}

void Simulation::Impl::schedule_driver_detection(NodeId n, bool up, const TokenRing* ring, std::int8_t member) {
  if (member != 0 && !hooks_.member_changed.empty()) hooks_.member_changed.fire(n, member);
  const auto at = now_ + sc_.faults.driver_detection;
  detections_.push_back({at, n, up, true, ring, member});
  q_.push(at, kDetect, static_cast<std::uint32_t>(detections_.size() - 1));
}

void Simulation::Impl::schedule_fault(const FaultEvent& f) {
  faults_.push_back(f);
  q_.push(f.at, kFault, static_cast<std::uint32_t>(faults_.size() - 1));
}

void Simulation::Impl::on_detect(std::uint32_t idx) {
  const Detection& d = detections_[idx];
  if (d.driver && d.ring) hooks_.token_map.fire(d.ring);  // the drivers' token map refreshes with the topology event
  if (!d.driver) {
    server_up_[d.node] = d.up ? 1 : 0;
    // The cluster's STATUS_CHANGE event for a fault reaches the driver (the control connection's
    // node gossiped the change): the drivers' own detection hears it (hooks.hpp).
    if (idx < fault_detections_) hooks_.status_event.fire(d.node, d.up);
    return;
  }
  // A joining node enters the driver's metadata before its UP reaches the policy; a leaving one
  // leaves it after its DOWN (ClusterView::is_known).
  auto learn = [&](policy::ClusterView& view, policy::Policy& pol, std::size_t loader) {
    if (d.member > 0) view.set_known(d.node, true);
    // A host marked down has its connections closed: their stream ids are free.
    if (!d.up && view.is_up(d.node)) release_lingering_on(d.node, loader);
    if (view.is_up(d.node) != d.up) {
      view.set_up(d.node, d.up);
      if (d.up) pol.on_up(d.node);
      else pol.on_down(d.node);
    }
    if (d.member < 0) view.set_known(d.node, false);
  };
  for (std::size_t l = 0; l < loaders_.size(); ++l) learn(*loaders_[l]->view, *loaders_[l]->policy, l);  // all at once
}

// The request path's two copies (sim_impl.hpp, hooked_).
template void Simulation::Impl::respond<false>(std::uint32_t, bool, ErrorKind);
template void Simulation::Impl::respond<true>(std::uint32_t, bool, ErrorKind);
template void Simulation::Impl::on_attempt_arrive<false>(std::uint32_t);
template void Simulation::Impl::on_attempt_arrive<true>(std::uint32_t);
template void Simulation::Impl::on_coord_done<false>(std::uint32_t);
template void Simulation::Impl::on_coord_done<true>(std::uint32_t);
template void Simulation::Impl::send_to_replicas<false>(std::uint32_t, std::span<const NodeId>, std::size_t);
template void Simulation::Impl::send_to_replicas<true>(std::uint32_t, std::span<const NodeId>, std::size_t);
template void Simulation::Impl::send_phase<false>(std::uint32_t);
template void Simulation::Impl::send_phase<true>(std::uint32_t);
template void Simulation::Impl::enqueue_replica<false>(std::uint32_t, NodeId, SimTime);
template void Simulation::Impl::enqueue_replica<true>(std::uint32_t, NodeId, SimTime);
template void Simulation::Impl::on_hop_done<false>(std::uint32_t);
template void Simulation::Impl::on_hop_done<true>(std::uint32_t);
template void Simulation::Impl::on_replica_arrive<false>(std::uint32_t);
template void Simulation::Impl::on_replica_arrive<true>(std::uint32_t);
template void Simulation::Impl::on_replica_done<false>(std::uint32_t);
template void Simulation::Impl::on_replica_done<true>(std::uint32_t);

}  // namespace lbsim
