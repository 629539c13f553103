// The driver's own failure detection (faults.driver_detection "driver"; configs/README.md,
// "Failure detection") and the connections a `kill` fault closes.
//
// A node that dies silently (`down`: power loss, a partition; no TCP RST) leaves the driver's
// connections open: requests sent to it time out on the client, and the host stays up in the
// policy until one of the driver's own mechanisms fails a connection. Which one, and when, is
// the driver's (each default read at the commit cited):
//
// - Java 3.x (scylladb/java-driver, branch scylla-3.x at 07d0f665): each connection has a netty
//   IdleStateHandler(heartbeatIntervalSeconds, 0, 0), a READER idle timer (Connection.java); when
//   it fires, an OPTIONS heartbeat goes out with the request timeout SocketOptions.readTimeoutMillis
//   (ResponseHandler), and its timeout defuncts the connection (HEARTBEAT_CALLBACK.onTimeout). A
//   client-side request timeout does not (OperationTimedOutException only retries or fails the
//   request). The host goes down when its last connection fails
//   (ConvictionPolicy.DefaultConvictionPolicy.signalConnectionFailure: remaining == 0). A DOWN
//   event from the cluster is ignored while the host has active connections (Cluster.java,
//   "Only process DOWN events if we have no active connections"). Defaults:
//   PoolingOptions.DEFAULT_HEARTBEAT_INTERVAL_SECONDS 30, SocketOptions.DEFAULT_READ_TIMEOUT_MILLIS
//   12,000 (lbsim: timeouts.client_ms), Policies: ExponentialReconnectionPolicy(1000, 600,000).
// - Java 4.x (scylladb/java-driver, branch 4.x at 37b48e11): HeartbeatHandler extends
//   IdleStateHandler(interval, 0, 0), reader idle; reference.conf advanced.heartbeat.interval
//   30 s, timeout = advanced.connection.init-query-timeout 5 s; NodeStateManager does not set a
//   node DOWN on an event while it has open connections; advanced.reconnection-policy 1 s .. 60 s.
// - Python (scylladb/python-driver at 76430785): one ConnectionHeartbeat thread sweeps every
//   idle_heartbeat_interval (30 s); a connection that received nothing since the last sweep
//   (is_idle: not msg_received) gets an OPTIONS and idle_heartbeat_timeout (30 s) to answer, else
//   it is defunct (connection.py), with its pool's shutdown_on_error set, so returning it marks the
//   host down (pool.py return_connection). DOWN events are
//   discounted while pools are open (cluster.py on_down, _discount_down_events = True);
//   ExponentialReconnectionPolicy(1.0, 600.0) (its +/- 15 % jitter is not modelled).
// - gocql (scylladb/gocql at 3703808c): every connection runs heartBeat(), an OPTIONS 1 s after it
//   opens then every 30 s whatever the traffic, each waiting ConnectTimeout (60 s), and closes the
//   connection after more than 5 failures (conn.go), and an empty pool marks the host down after
//   its refill's dial fails (connectionpool.go); a STATUS_CHANGE DOWN event marks the host
//   down at once (events.go handleNodeDown, after the 1 s eventDebounceTime); ReconnectInterval
//   60 s, a constant (cluster.go).
// - Rust (scylladb/scylla-rust-driver at f01af256): the keepaliver sends an OPTIONS every
//   keepalive_interval (30 s, a tokio interval) whatever the traffic and breaks the connection
//   when none answers within keepalive_timeout (30 s) (network/connection.rs); a DOWN event makes
//   it probe at once (cluster/metadata/worker.rs, trigger_keepalive); a node without connections is
//   not targeted; the pool refiller's ExponentialReconnectPolicy 50 ms .. 10 s
//   (policies/reconnect.rs; jitter not modelled).
// - Node.js (datastax/nodejs-driver at c0a6c5fa): the idle timer restarts whenever a request is
//   written (connection.js _setIdleTimeout), and fires heartBeatInterval (30 s) later with an
//   OPTIONS under socketOptions.readTimeout (12 s); its error closes the connection
//   (host-connection-pool.js idleRequestError). A connection with more than
//   defunctReadTimeoutThreshold (64) requests timed out and unanswered is removed from the pool
//   (host.js checkHealth, request-execution.js). DOWN events are only logged for hosts in use
//   (control-connection.js); ExponentialReconnectionPolicy(1000, 600,000).
//
// lbsim keeps one clock per host, not per connection: a dead node's connections all stop reading
// at the same moment, so the last to fail (the host's down) is the one with the latest read. A
// heartbeat to a live node is answered at once, or when a pause ends (an OPTIONS is not queued
// behind the node's requests: assumed), so a slow or saturated node is never marked down by a
// heartbeat. Every driver reconnects on the cluster's UP event too (Java 3.x onUp, Python on_up,
// gocql handleNodeUp, Rust merge_up_hint, Node.js checkIsUp), modelled as an immediate attempt.
#include <algorithm>

#include "policies/registry.hpp"
#include "sim/engine/sim_impl.hpp"

namespace lbsim {

namespace {

const char* driver_key(DetectDriver d) {
  switch (d) {
    case DetectDriver::Java4: return "java4";
    case DetectDriver::Python: return "python";
    case DetectDriver::Go: return "go";
    case DetectDriver::Rust: return "rust";
    case DetectDriver::Nodejs: return "nodejs";
    default: return "java3";
  }
}

DetectDriver of_policy(const jsonin::Json& spec) {
  const auto* t = spec.is_object() && spec.contains("type") && spec["type"].is_string() ? &spec["type"] : nullptr;
  const policy::PolicyInfo* info = t ? policy::Registry::instance().find(t->get<std::string>()) : nullptr;
  if (!info) return DetectDriver::Java3;
  switch (info->driver) {
    case policy::Driver::Java4: return DetectDriver::Java4;
    case policy::Driver::Python: return DetectDriver::Python;
    case policy::Driver::Go: return DetectDriver::Go;
    case policy::Driver::Rust: return DetectDriver::Rust;
    case policy::Driver::NodeJs: return DetectDriver::Nodejs;
    default: return DetectDriver::Java3;
  }
}

}  // namespace

void Simulation::Impl::init_detect() {
  const FaultSpec& f = sc_.faults;
  if (f.detection != DetectionMode::Driver) return;
  detect_ = true;
  DetectParams& p = dp_;
  p.driver = f.heartbeat.driver == DetectDriver::Auto ? of_policy(entry_.spec) : f.heartbeat.driver;
  switch (p.driver) {
    case DetectDriver::Java3:
      p = {p.driver, IdleRule::Read, 30 * kSec, sc_.timeouts.client, 0, 0, DownEventRule::Ignored, 0, 0, true, kSec,
           600 * kSec};
      break;
    case DetectDriver::Java4:
      p = {p.driver, IdleRule::Read, 30 * kSec, 5 * kSec, 0, 0, DownEventRule::Ignored, 0, 0, true, kSec, 60 * kSec};
      break;
    case DetectDriver::Python:
      p = {p.driver, IdleRule::Tick, 30 * kSec, 30 * kSec, 0, 0, DownEventRule::Ignored, 0, 0, true, kSec, 600 * kSec};
      break;
    case DetectDriver::Go:
      p = {p.driver, IdleRule::Periodic, 30 * kSec, 60 * kSec, kSec, 0, DownEventRule::MarksDown, kSec, 0, false,
           60 * kSec, 60 * kSec};
      break;
    case DetectDriver::Rust:
      p = {p.driver, IdleRule::Periodic, 30 * kSec, 30 * kSec, 0, 0, DownEventRule::Probes, 0, 0, true, 50 * kMs,
           10 * kSec};
      break;
    case DetectDriver::Nodejs:
      p = {p.driver, IdleRule::Write, 30 * kSec, sc_.timeouts.client, 0, 0, DownEventRule::Ignored, 0, 64, true, kSec,
           600 * kSec};
      break;
    case DetectDriver::Auto: break;
  }
  const HeartbeatSpec& o = f.heartbeat;
  if (o.interval > 0) p.interval = o.interval;
  if (o.timeout > 0) p.timeout = o.timeout;
  if (o.reconnect_base > 0) p.reconnect_base = o.reconnect_base;
  if (o.reconnect_max > 0) p.reconnect_max = o.reconnect_max;
  if (!p.exponential && o.reconnect_base > 0) p.reconnect_max = p.reconnect_base;  // gocql: a constant interval
  p.reconnect_max = std::max(p.reconnect_max, p.reconnect_base);
  if (p.first_tick == 0) p.first_tick = p.interval;
  // gocql closes the connection on the 6th failed heartbeat in a row: 6 waits of the timeout with
  // the 30 s sleeps between them; its pool then refills (connectionpool.go HandleError,
  // fill_debounce), and the dial to the silent node fails after ConnectTimeout (the same 60 s)
  // before an empty pool marks the host down. The others fail on the first.
  p.fail_after = p.driver == DetectDriver::Go ? 7 * p.timeout + 5 * p.interval : p.timeout;
  dnodes_.assign(n_, DetectNode{});
  DetectionResult r;
  r.driver = driver_key(p.driver);
  r.interval_ms = to_ms(p.interval);
  r.timeout_ms = to_ms(p.timeout);
  result_.detection = std::move(r);
  for (NodeId n = 0; n < n_; ++n) detect_arm(n);
}

SimTime Simulation::Impl::heartbeat_due(const DetectNode& d) const {
  switch (dp_.idle) {
    case IdleRule::Read: return d.last_read + dp_.interval;
    case IdleRule::Write: return d.last_write + dp_.interval;
    case IdleRule::Tick: return d.last_tick + dp_.interval;
    case IdleRule::Periodic: return d.last_tick + (d.last_tick == 0 ? dp_.first_tick : dp_.interval);
  }
  return kNever;
}

void Simulation::Impl::detect_arm(NodeId n) {
  DetectNode& d = dnodes_[n];
  SimTime at = kNever;
  if (!view_.is_up(n)) {
    at = d.reconnect_at;
  } else {
    at = std::min(d.event_at, d.hb_deadline);
    if (d.hb_deadline == kNever) at = std::min(at, std::max(heartbeat_due(d), now_));
  }
  if (at == kNever || at >= d.next_event) return;  // an earlier timer is already pending
  d.next_event = at;
  push_mech(at, kMechDetect, 0, n);
}

void Simulation::Impl::send_heartbeat(NodeId n, DetectNode& d) {
  // A live node answers at once, or when its pause ends; a dead one never.
  const SimTime answered = nodes_.up(n) ? nodes_.paused_until(n, now_) : kNever;
  if (answered != kNever && answered - now_ <= dp_.timeout) {
    d.last_read = std::max(d.last_read, answered);
  } else {
    d.hb_deadline = now_ + dp_.fail_after;
  }
}

void Simulation::Impl::on_driver_detect(NodeId n) {
  DetectNode& d = dnodes_[n];
  if (now_ != d.next_event) return;  // superseded by an earlier push
  d.next_event = kNever;
  if (!view_.is_up(n)) {
    if (d.reconnect_at <= now_) {
      if (nodes_.up(n)) {
        // A paused node accepts the connection (its kernel runs) but answers the driver's
        // handshake only when the pause ends.
        const SimTime ready = nodes_.paused_until(n, now_);
        if (ready > now_) d.reconnect_at = ready;
        else driver_mark_up(n, "reconnect");
      } else {
        d.reconnect_delay = dp_.exponential ? std::min(2 * d.reconnect_delay, dp_.reconnect_max) : dp_.reconnect_base;
        d.reconnect_at = now_ + d.reconnect_delay;
      }
    }
    detect_arm(n);
    return;
  }
  if (d.event_at <= now_) {  // the cluster's DOWN event reaches the driver
    d.event_at = kNever;
    if (dp_.down_event == DownEventRule::MarksDown) {  // gocql: at once, even if the node still answers
      driver_mark_down(n, "event");
      detect_arm(n);
      return;
    }
    if (dp_.down_event == DownEventRule::Probes && d.hb_deadline == kNever) {
      d.last_tick = now_;  // Rust: the probe restarts the keepalive interval
      send_heartbeat(n, d);
    }
  }
  if (d.hb_deadline <= now_) {
    // The heartbeat got no answer: the connection is defunct, and with it the host.
    d.hb_deadline = kNever;
    driver_mark_down(n, "heartbeat");
    detect_arm(n);
    return;
  }
  if (d.hb_deadline == kNever) {
    const SimTime due = heartbeat_due(d);
    if (due <= now_) {
      switch (dp_.idle) {
        case IdleRule::Read:
        case IdleRule::Write: send_heartbeat(n, d); break;
        case IdleRule::Tick: {
          const SimTime prev = d.last_tick;
          d.last_tick = due;
          if (d.last_read <= prev) send_heartbeat(n, d);  // nothing read since the last sweep
          break;
        }
        case IdleRule::Periodic:
          d.last_tick = due;
          send_heartbeat(n, d);
          break;
      }
      // Read / Write: an answered heartbeat is a read, not a write (Node.js keeps its idle timer
      // on sends); restart its idle clock so that it fires again an interval later.
      if (dp_.idle == IdleRule::Write && d.hb_deadline == kNever) d.last_write = now_;
    }
  }
  detect_arm(n);
}

void Simulation::Impl::detect_timeout(NodeId n) {
  if (!detect_) return;
  DetectNode& d = dnodes_[n];
  ++d.timed_out;
  if (dp_.timeout_threshold > 0 && d.timed_out > dp_.timeout_threshold && view_.is_up(n)) {
    driver_mark_down(n, "timeouts");
    detect_arm(n);
  }
}

void Simulation::Impl::driver_mark_down(NodeId n, const char* by) {
  if (!view_.is_up(n)) return;
  view_.set_up(n, false);
  policy_->on_down(n);
  if (!detect_) return;
  DetectNode& d = dnodes_[n];
  d.hb_deadline = d.event_at = kNever;
  d.timed_out = 0;
  d.reconnect_delay = dp_.reconnect_base;
  d.reconnect_at = now_ + d.reconnect_delay;
  result_.detection->events.push_back({to_sec(now_), topo_.nodes[n].id, false, by});
}

void Simulation::Impl::driver_mark_up(NodeId n, const char* by) {
  if (view_.is_up(n) || !view_.is_known(n)) return;  // no pool to a host outside the metadata
  view_.set_up(n, true);
  policy_->on_up(n);
  DetectNode& d = dnodes_[n];
  d.reconnect_at = kNever;
  d.last_read = d.last_write = now_;
  if (dp_.idle == IdleRule::Periodic) d.last_tick = now_ - dp_.interval + dp_.first_tick;  // new connections
  result_.detection->events.push_back({to_sec(now_), topo_.nodes[n].id, true, by});
}

// kill, and a node that leaves the cluster (sim_tablets.cpp node_leaves): the node's sockets
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
  for (const auto& L : loaders_) {  // every loader's connections to the node close with it
    if (!L->view->is_up(n)) continue;  // loader 0's view, when driver_mark_down marked it
    L->view->set_up(n, false);
    L->policy->on_down(n);
  }
  if (detect_) detect_arm(n);
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

}  // namespace lbsim
