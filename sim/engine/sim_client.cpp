// The driver side of a run: sending attempts (client CPU, plan, network), answers, client
// timeouts and the retry policy. The drivers' speculative executions (sim/mech/driver_spec/) and
// their replica maps' counters (sim/mech/replica_map/) are mechanisms on the hooks op_started,
// attempt_sent and attempt_ended and the strategy extra_host.
#include <limits>

#include <fmt/format.h>

#include "sim/cluster/shard.hpp"
#include "sim/engine/retry_policy.hpp"
#include "sim/engine/sim_impl.hpp"

namespace lbsim {

using policy::ResponseKind;

template <bool H>
bool Simulation::Impl::send_attempt(std::uint32_t id, bool first, policy::HostId same, bool speculative) {
  Op& op = ops_[id];
  OpExtra& x = op_extra_[id];
  // The next host whose connection can take the request; a full connection makes the driver move
  // on (Java 3.x BusyPoolException) unless on_busy takes another connection of the host.
  policy::HostId host = policy::kNoHost;
  std::uint32_t conn = kNoConn, shard = 0, tried = 0;
  const bool same_host = same != policy::kNoHost;
  for (;;) {
    if (same != policy::kNoHost) {  // a retry on the host that failed; if busy, the plan goes on
      host = same;
      same = policy::kNoHost;
    } else {
      host = next_host(id, speculative);
    }
    ++tried;
    if (host == policy::kNoHost) return false;
    const bool ok = pick_connection<H>(id, host, conn, shard);
    if (!shard_counts_.empty() && conns_per_host_ > 0) {
      ShardCounts& sc = shard_counts_[host * shards_ + shard];
      ++(ok ? sc.requests : sc.busy);
    }
    if (ok) break;
    ++busy_rejections_[host];
  }

  // Client CPU: the request side of the driver cost once per operation (the response side is
  // charged when the answer arrives), plan cost, the plan's new random draws.
  const std::uint32_t loader = op_loader(id);
  Loader& L = *loaders_[loader];
  const ClientSpec& cs = *L.spec;
  double work = cs.plan_host_ns * tried;
  if (first) {
    const double cost = cs.driver_cost.sample_ns(*L.cost_rng);
    const double decode = cost * cs.response_share;
    op.decode_ns = static_cast<SimTime>(decode + 0.5);
    work += cs.plan_ns + (cost - decode);
  }
  const std::uint32_t shared = x.rnd.shared_draws - op.shared_charged;
  const std::uint32_t tl = x.rnd.thread_local_draws - op.tl_charged;
  op.shared_charged = x.rnd.shared_draws;
  op.tl_charged = x.rnd.thread_local_draws;
  shared_draws_ += shared;
  tl_draws_ += tl;
  ClientCpu& cpu = *L.cpu;
  const SimTime sent = cpu.run(now_, static_cast<SimTime>(work + 0.5), shared, tl, op.thread);
  LBSIM_DCHECK(sent >= now_, "the client CPU finished work before it started");

  const std::uint32_t a = attempts_.alloc();
  Attempt& at = attempts_[a];
  at.op = id;
  at.op_gen = op.gen;
  at.host = host;
  at.shard = static_cast<std::uint16_t>(shard);
  at.conn = conn;
  at.sent = sent;
  at.alive = true;
  attempt_live_[a] = at.gen;
  ++op.alive;
  ++op.executions;
  // The driver's in-flight count starts when the request is written to the connection, after the
  // client CPU has done its work (Java 4.x: the counter of the channel's in-flight stream ids).
  // Only a policy that reads the count needs that timing; for the others it starts at once.
  if (sent == now_ || !exact_in_flight_) mark_sent(host, shard, loader);
  else {
    pending_sends_.push({sent, a, at.gen});
    next_send_ = pending_sends_.top().at;
  }
  timers_[kClientTimeout].push(sent + sc_.timeouts.client, a, at.gen);
  arm(kClientTimeout);
  if (H) hooks_.request_written.fire(host, sent);

  const std::uint32_t cr = crs_.alloc();
  CoordReq& c = crs_[cr];
  cr_live_[cr] = c.gen;
  c.attempt = a;
  c.attempt_gen = at.gen;
  c.node = host;
  c.range = op.range;
  c.token = op.token;
  c.rows = op.rows;
  c.routed = op.routed;
  c.kind = op.kind;
  c.cl = op.cl;
  c.shard = static_cast<std::uint16_t>(shard);
  c.pending = 1;
  cr_loader_[cr] = static_cast<std::uint8_t>(loader);
  q_.push(sent + net_client_cr(host, cr), kAttemptArrive, cr);
  if (H && !hooks_.attempt_sent.empty()) [[unlikely]]
    hooks_.attempt_sent.fire(id, a, first         ? SendKind::First
                                    : speculative ? SendKind::Speculative
                                    : same_host   ? SendKind::SameHost
                                                  : SendKind::NextHost);
  return true;
}

template <bool H>
std::uint32_t Simulation::Impl::driver_shard(const Op& op, NodeId host) {
  // No connection model: the unrouted request's shard is drawn over the node's shards as before.
  const std::uint32_t shards = conns_per_host_ == 0 ? sc_.nodes.shards : shards_;
  if (!op.routed) return static_cast<std::uint32_t>(shard_rng_.below(shards));
  if (H && hooks_.driver_shard) [[unlikely]] return hooks_.driver_shard(op.range, op.token, host);
  return shard_of_token(op.token);
}

std::uint32_t Simulation::Impl::shard_of_token(Token t) const {
  if (sc_.nodes.discipline == Discipline::Shared || sc_.nodes.shards <= 1) return 0;
  return shard_of(t, Sharding{sc_.nodes.shards, sc_.nodes.msb_ignore});
}

void Simulation::Impl::mark_sent(NodeId host, std::uint32_t shard, std::uint32_t loader) {
  Loader& L = *loaders_[loader];
  L.view->add_in_flight(host, shard, 1);
  L.policy->on_request_sent(host, now_);
}

template <bool H>
bool Simulation::Impl::pick_connection(std::uint32_t id, NodeId host, std::uint32_t& conn, std::uint32_t& shard) {
  const Op& op = ops_[id];
  const ClientSpec& cs = client_of(id);
  if (conns_per_host_ == 0) {
    conn = kNoConn;
    // An operation from outside (lbsim serve) may come with its connection's shard.
    shard = H && external_shards_ && op_shard_[id] >= 0 ? static_cast<std::uint32_t>(op_shard_[id])
                                                        : driver_shard<H>(op, host);
    return true;
  }
  // The loader's own pools (loader-major; loader 0 with one client).
  const std::size_t base = (std::size_t{op_loader(id)} * n_ + host) * conns_per_host_;
  Conn* pool = &conns_[base];
  auto least_busy = [&] {  // Java 3.x HostConnectionPool: the first connection with the fewest in flight
    std::uint32_t best = 0;
    for (std::uint32_t i = 1; i < conns_per_host_; ++i)
      if (pool[i].in_flight < pool[best].in_flight) best = i;
    return best;
  };
  const std::int32_t limit = static_cast<std::int32_t>(topo_.node_dc[host] == cs.dc_index ? cs.max_requests_local
                                                                                          : cs.max_requests_remote);
  std::uint32_t pick = 0;
  if (cs.connections == Connections::ShardAware) {
    // The token's shard; no routing key: a random shard (Scylla Java 3.x pool).
    pick = driver_shard<H>(op, host);
    if (pool[pick].in_flight >= limit) {
      shard = pool[pick].shard;
      if (cs.on_busy == OnBusy::NextHost) return false;
      pick = least_busy();  // gocql: the host's least busy connection instead
    }
  } else {
    pick = least_busy();
  }
  shard = pool[pick].shard;
  if (pool[pick].in_flight >= limit) return false;
  Conn& c = pool[pick];
  ++c.in_flight;
  c.peak = std::max(c.peak, c.in_flight);
  ++c.requests;
  conn = static_cast<std::uint32_t>(base + pick);
  shard = c.shard;
  return true;
}

void Simulation::Impl::drain_sends() {
  while (!pending_sends_.empty() && pending_sends_.top().at <= now_) {
    const PendingSend p = pending_sends_.top();
    pending_sends_.pop();
    LBSIM_DCHECK(attempts_[p.attempt].gen == p.gen && attempts_[p.attempt].alive, "an attempt ended before it was sent");
    mark_sent(attempts_[p.attempt].host, attempts_[p.attempt].shard, op_loader(attempts_[p.attempt].op));
  }
  next_send_ = pending_sends_.empty() ? std::numeric_limits<SimTime>::max() : pending_sends_.top().at;
}

bool Simulation::Impl::timer_live(std::uint32_t which, const DeadlineFifo::Entry& e) const {
  switch (which) {
    case kClientTimeout: return attempt_live_[e.id] == e.gen;
    default: return cr_live_[e.id] == e.gen;
  }
}

void Simulation::Impl::arm(std::uint32_t which) {
  DeadlineFifo& f = timers_[which];
  // Entries whose request already ended are dropped from the front at once, so the FIFO holds
  // about the requests in flight rather than everything sent within one timeout.
  while (!f.empty() && !timer_live(which, f.front())) f.pop();
  if (!f.armed && !f.empty()) {
    q_.push(f.front().at, kTimer, which);
    f.armed = true;
  }
}

template <bool H>
void Simulation::Impl::end_attempt(std::uint32_t a, ResponseKind kind, bool linger) {
  Attempt& at = attempts_[a];
  LBSIM_DCHECK(at.alive, "an attempt ended twice");
  LBSIM_DCHECK(ops_[at.op].alive > 0 && loader_of(at.op).view->in_flight(at.host) > 0,
               "in-flight attempt count would go negative");
  at.alive = false;
  attempt_live_[a] = kDeadTag;
  Loader& L = loader_of(at.op);
  if (!linger) {
    if (at.conn != kNoConn) --conns_[at.conn].in_flight;
    L.view->add_in_flight(at.host, at.shard, -1);
  }
  L.policy->on_response(at.host, now_, now_ - at.sent, kind);
  if (H && !hooks_.attempt_ended.empty()) [[unlikely]] hooks_.attempt_ended.fire(a, kind);
  --ops_[at.op].alive;
  if (!linger) {
    attempts_.release(a);
    return;
  }
  at.lingering = true;
  at.op = op_loader(at.op);
  ++lingering_;
}

void Simulation::Impl::release_lingering(std::uint32_t a) {
  Attempt& at = attempts_[a];
  LBSIM_DCHECK(at.lingering && lingering_ > 0, "a lingering attempt released twice");
  if (at.conn != kNoConn) --conns_[at.conn].in_flight;
  loaders_[at.op]->view->add_in_flight(at.host, at.shard, -1);
  at.lingering = false;
  --lingering_;
  attempts_.release(a);
}

void Simulation::Impl::release_lingering_on(NodeId n, std::size_t loader) {
  if (lingering_ == 0) return;
  for (std::uint32_t a = 0; a < attempt_live_.size(); ++a) {
    const Attempt& at = attempts_[a];
    if (at.lingering && at.host == n && (loader == kAllLoaders || at.op == loader)) release_lingering(a);
  }
}

void Simulation::Impl::after_failure(std::uint32_t id, ErrorKind error, bool retryable, bool unavailable) {
  Op& op = ops_[id];
  const RetrySpec& r = sc_.retry;
  if (driver_retry_) {  // a driver's own default policy (retry_policy.hpp); error_retries counts all retries
    const RetryInput in{error, op.error_retries, op.kind == OpKind::Lwt, op.answer_no_data};
    const RetryDecision d = retry_decision(r, in);
    if (d == RetryDecision::Rethrow) {
      fail_or_restart(id, error);
      return;
    }
    if (op.error_retries < 0xff) ++op.error_retries;
    ++retries_;
    if (!send_attempt(id, false, d == RetryDecision::SameHost ? last_host_[id] : policy::kNoHost))
      fail_or_restart(id, ErrorKind::NoHostAvailable);
    return;
  }
  bool retry = false;
  if (r.enabled && unavailable && op.unavailable_retries < r.unavailable_retries) {
    ++op.unavailable_retries;
    retry = true;
  } else if (r.enabled && retryable && op.kind != OpKind::Lwt && op.error_retries < r.error_retries) {
    ++op.error_retries;
    retry = true;
  }
  if (!retry) {
    fail_or_restart(id, error);
    return;
  }
  ++retries_;
  if (!send_attempt(id, false)) fail_or_restart(id, ErrorKind::NoHostAvailable);
}

// cassandra-stress's own retries (-errors retries=N; tools/stress Operation.timeWithRetry): the
// failed operation runs again through the driver, a new execution with a new plan and the retry
// policy's count from zero; its latency counts from the first try, as the tool's timer does.
// Without client.stress_retries, the failure is final.
void Simulation::Impl::fail_or_restart(std::uint32_t id, ErrorKind error) {
  if (stress_tries_.registered()) {
    if (stress_tries_[id] < client_of(id).stress_retries) {
      ++stress_tries_[id];
      ++stress_retries_;
      restart_op(id);
      return;
    }
  }
  finish_op(id, false, error);
}

void Simulation::Impl::restart_op(std::uint32_t id) {
  Op& op = ops_[id];
  op.unavailable_retries = 0;
  op.error_retries = 0;
  op.answer_no_data = false;
  OpExtra& x = op_extra_[id];
  x.arena.reset();
  x.rnd.shared_draws = 0;
  x.rnd.thread_local_draws = 0;
  op.shared_charged = 0;
  op.tl_charged = 0;
  op.plan = policy_of(id).new_plan(request_of(op), x.rnd, x.arena);
  if (!send_attempt(id, true)) fail_or_restart(id, ErrorKind::NoHostAvailable);
}

template <bool H>
void Simulation::Impl::on_client_response(std::uint32_t cr) {
  CoordReq& c = crs_[cr];
  LBSIM_DCHECK(c.pending > 0, "coordinator request event count would go negative");
  --c.pending;
  const std::uint32_t a = c.attempt;
  const bool success = c.success;
  const ErrorKind error = c.error;
  // The ReadTimeoutException's received >= blockFor && !data_present (read before c is released).
  const bool no_data = driver_retry_ && !success && error == ErrorKind::ReadTimeout && c.kind == OpKind::Read &&
                       !c.need_each && c.got >= c.need_total && c.phase == 0;
  const bool current = attempts_[a].gen == c.attempt_gen && attempts_[a].alive;
  if (H) hooks_.answer_read.fire(c.node, !current);  // the connection read something (late: after its client timeout)
  if (H) hooks_.answer_received.fire(cr);  // the answer reaches its driver (hooks.hpp), late or not
  // A late answer frees the stream id of an attempt that lingered after its client timeout.
  const bool frees = !current && attempts_[a].lingering && attempts_[a].gen == c.attempt_gen;
  release_cr_if_idle(cr);
  if (frees) [[unlikely]] release_lingering(a);
  if (!current) return;  // the attempt already timed out on the client
  const std::uint32_t id = attempts_[a].op;
  const NodeId host = attempts_[a].host;
  end_attempt<H>(a, success                           ? ResponseKind::Success
                    : error == ErrorKind::Unavailable ? ResponseKind::Unavailable
                    : error == ErrorKind::Overloaded  ? ResponseKind::Overloaded
                                                      : ResponseKind::Timeout);
  Op& op = ops_[id];
  if (op.done) {
    maybe_free_op(id);
    return;
  }
  if (op.decoding) return;  // an answer of another execution is already being decoded
  if (!success && op.alive > 0) return;  // another execution may still succeed
  // The thread decodes the answer on the client CPU, queued with other driver work; the operation
  // ends (or is retried) when that is done.
  op.answer_success = success;
  op.answer_error = error;
  if (driver_retry_ && !success) {
    op.answer_no_data = no_data;
    note_host(id, host);
  }
  // Once decoded, the operation ends and its thread's next one reuses this slot (the slab is
  // LIFO) and writes a new plan into its arena, last written when this operation started: cold at
  // 10,000 client threads. No prefetch here: one during the decode (PREFETCHT0 of its three lines)
  // left the arena's first line as slow to read at the next start as none did (rdtscp-timed,
  // 1M operations: 256-272 vs 193-301 cycles; its other two lines about 100 either way), and a
  // PREFETCHW of it one event ahead made that read hit but not the run faster (issue 14).
  const SimTime end = loader_of(id).cpu->run(now_, op.decode_ns, 0, 0, op.thread);
  if (end == now_) {
    on_decoded<H>(id);
    return;
  }
  op.decoding = true;
  q_.push(end, kDecoded, id);
}

template <bool H>
void Simulation::Impl::on_decoded(std::uint32_t id) {
  Op& op = ops_[id];
  op.decoding = false;
  if (op.answer_success) finish_op<H>(id, true, ErrorKind::Unavailable);
  else if (op.answer_error == ErrorKind::Unavailable) after_failure(id, op.answer_error, false, true);
  // OVERLOADED / OverloadedException: the Java driver's DefaultRetryPolicy.onRequestError (3.x;
  // 4.x onErrorResponse) tries the next host, for idempotent statements: as a client error here.
  else if (op.answer_error == ErrorKind::Overloaded) after_failure(id, op.answer_error, true, false);
  else if (driver_retry_) after_failure(id, op.answer_error, false, false);  // read/write timeouts: the policy
  else fail_or_restart(id, op.answer_error);  // default: server read/write timeouts are not retried
}

void Simulation::Impl::on_timer(std::uint32_t which) {
  DeadlineFifo& f = timers_[which];
  f.armed = false;
  while (!f.empty() && f.front().at <= now_) {
    const DeadlineFifo::Entry e = f.front();
    f.pop();
    if (which == kClientTimeout) {
      Attempt& at = attempts_[e.id];
      if (at.gen != e.gen || !at.alive) continue;
      const std::uint32_t id = at.op;
      const NodeId host = at.host;
      end_attempt(e.id, ResponseKind::ClientTimeout, loader_of(id).lingers);  // a driver-side timeout (policy.hpp)
      hooks_.client_timeout.fire(host);  // Node.js: too many timed-out requests remove the connection
      Op& op = ops_[id];
      if (op.done) maybe_free_op(id);
      else if (op.alive == 0 && !op.decoding) {
        if (driver_retry_) {
          op.answer_no_data = false;
          note_host(id, host);
        }
        after_failure(id, ErrorKind::ClientTimeout, true, false);
      }
    } else {
      CoordReq& c = crs_[e.id];
      if (c.gen != e.gen || c.done) continue;
      respond(e.id, false, which == kReadTimeout ? ErrorKind::ReadTimeout : ErrorKind::WriteTimeout);
    }
  }
  arm(which);
}

// An operation started in the window that ends after it is not measured (the window counts what
// ends inside it). One that took the client timeout or more waited for a node that never answered
// (a silent `down`), which the report would otherwise hide: the run says how many.
void Simulation::Impl::warn_late_hung() {
  if (late_hung_ == 0) return;
  result_.warnings.push_back(fmt::format(
      "{} operations started in the measurement window ended after it, each after at least the client timeout "
      "({} ms; the longest {:.3f} s): they count in neither the latency nor the errors (requests that waited "
      "for a node that never answered: see faults.driver_detection_ms)",
      late_hung_, to_ms(sc_.timeouts.client), to_sec(late_hung_max_)));
}

// The host `n` is down for loader 0's driver: its connections failed (a kill, the drivers' own
// detection), or the cluster's event said so.
void Simulation::Impl::driver_mark_down(NodeId n, const char* by) {
  if (!view_.is_up(n)) return;
  release_lingering_on(n, 0);  // its connections are closed or defunct: their stream ids are free
  view_.set_up(n, false);
  policy_->on_down(n);
  hooks_.driver_down.fire(n, by);
}

// kill, and a node that leaves the cluster (sim_server.cpp node_leaves): the node's sockets
// close, so every loader's driver connections to it drop at once.
// Every request in flight on them fails at once (Java 3.x: TransportException "Channel has been
// closed", a ConnectionException that RequestHandler hands to the retry policy's onRequestError
// for idempotent statements, as a client timeout) and the host goes down (its last connection
// failed). lbsim counts those requests as client_timeout errors when they are not retried.
//
// A request the client CPU has not yet written (exact in-flight policies only, pending_sends_) is
// left to its client timeout: approximate, it is a few microseconds' worth of requests.
void Simulation::Impl::close_connections(NodeId n) {
  driver_mark_down(n, "connection");
  release_lingering_on(n, kAllLoaders);
  for (const auto& L : loaders_) {  // every loader's connections to the node close with it
    if (!L->view->is_up(n)) continue;  // loader 0's view, when driver_mark_down marked it
    L->view->set_up(n, false);
    L->policy->on_down(n);
  }
  hooks_.connections_closed.fire(n);
  if (!pending_sends_.empty()) drain_sends();
  for (std::uint32_t a = 0; a < attempt_live_.size(); ++a) {
    if (attempt_live_[a] == kDeadTag) continue;
    Attempt& at = attempts_[a];
    if (!at.alive || at.host != n || (exact_in_flight_ && at.sent > now_)) continue;
    const std::uint32_t id = at.op;
    end_attempt(a, policy::ResponseKind::Timeout);
    Op& op = ops_[id];
    if (op.done) {
      maybe_free_op(id);
    } else if (op.alive == 0 && !op.decoding) {
      if (driver_retry_) {
        op.answer_no_data = false;
        note_host(id, n);
      }
      after_failure(id, ErrorKind::ClientTimeout, true, false);
    }
  }
}

// The request path's two copies (sim_impl.hpp, hooked_).
template bool Simulation::Impl::send_attempt<false>(std::uint32_t, bool, policy::HostId, bool);
template bool Simulation::Impl::send_attempt<true>(std::uint32_t, bool, policy::HostId, bool);
template void Simulation::Impl::on_client_response<false>(std::uint32_t);
template void Simulation::Impl::on_client_response<true>(std::uint32_t);
template void Simulation::Impl::end_attempt<false>(std::uint32_t, ResponseKind, bool);
template void Simulation::Impl::end_attempt<true>(std::uint32_t, ResponseKind, bool);
template void Simulation::Impl::on_decoded<false>(std::uint32_t);
template void Simulation::Impl::on_decoded<true>(std::uint32_t);

}  // namespace lbsim
