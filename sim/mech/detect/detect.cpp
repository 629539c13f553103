// The driver's own failure detection (faults.driver_detection "driver"; configs/README.md,
// "Failure detection"), a mechanism of the engine (detect.hpp). The connections a `kill` fault
// closes are the core's (Simulation::Impl::close_connections, sim/engine/sim_client.cpp).
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
#include <memory>

#include "policies/registry.hpp"
#include "sim/engine/sim_impl.hpp"
#include "sim/mech/detect/detect.hpp"

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

std::unique_ptr<Mechanism> make_detect(DriverDetect::Core& core, std::uint16_t id) {
  if (!core.sc_.mech.get<DetectSpec>(MechSpecs::k_detect)) return nullptr;
  return std::make_unique<DriverDetect>(core, id);
}

DriverDetect::DriverDetect(Core& core, std::uint16_t id) : core_(core), id_(id) {
  const DetectSpec& o = *core.sc_.mech.get<DetectSpec>(MechSpecs::k_detect);
  Params& p = p_;
  p.driver = o.driver == DetectDriver::Auto ? of_policy(core.entry_.spec) : o.driver;
  const SimTime client = core.sc_.timeouts.client;
  switch (p.driver) {
    case DetectDriver::Java3:
      p = {p.driver, IdleRule::Read, 30 * kSec, client, 0, 0, DownEventRule::Ignored, 0, 0, true, kSec, 600 * kSec};
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
      p = {p.driver, IdleRule::Write, 30 * kSec, client, 0, 0, DownEventRule::Ignored, 0, 64, true, kSec, 600 * kSec};
      break;
    case DetectDriver::Auto: break;
  }
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
  nodes_.assign(core.n_, Node{});
  result_.driver = driver_key(p.driver);
  result_.interval_ms = to_ms(p.interval);
  result_.timeout_ms = to_ms(p.timeout);

  Hooks& k = core.hooks_;
  k.request_written.add(this, [](void* s, NodeId n, SimTime at) { static_cast<DriverDetect*>(s)->written(n, at); });
  k.answer_read.add(this, [](void* s, NodeId n, bool late) { static_cast<DriverDetect*>(s)->read(n, late); });
  k.client_timeout.add(this, [](void* s, NodeId n) { static_cast<DriverDetect*>(s)->client_timeout(n); });
  k.driver_down.add(this, [](void* s, NodeId n, const char* by) { static_cast<DriverDetect*>(s)->marked_down(n, by); });
  k.connections_closed.add(this, [](void* s, NodeId n) { static_cast<DriverDetect*>(s)->arm(n); });
  k.status_event.add(this, [](void* s, NodeId n, bool up) { static_cast<DriverDetect*>(s)->status_event(n, up); });
  for (NodeId n = 0; n < core.n_; ++n) arm(n);
}

SimTime DriverDetect::heartbeat_due(const Node& d) const {
  switch (p_.idle) {
    case IdleRule::Read: return d.last_read + p_.interval;
    case IdleRule::Write: return d.last_write + p_.interval;
    case IdleRule::Tick: return d.last_tick + p_.interval;
    case IdleRule::Periodic: return d.last_tick + (d.last_tick == 0 ? p_.first_tick : p_.interval);
  }
  return kNever;
}

void DriverDetect::arm(NodeId n) {
  Node& d = nodes_[n];
  SimTime at = kNever;
  if (!core_.view_.is_up(n)) {
    at = d.reconnect_at;
  } else {
    at = std::min(d.event_at, d.hb_deadline);
    if (d.hb_deadline == kNever) at = std::min(at, std::max(heartbeat_due(d), core_.now_));
  }
  if (at == kNever || at >= d.next_event) return;  // an earlier timer is already pending
  d.next_event = at;
  core_.push_mech(at, id_, 0, n);
}

void DriverDetect::send_heartbeat(NodeId n, Node& d) {
  // A live node answers at once, or when its pause ends; a dead one never.
  const SimTime now = core_.now_;
  const SimTime answered = core_.nodes_.up(n) ? core_.nodes_.paused_until(n, now) : kNever;
  if (answered != kNever && answered - now <= p_.timeout) {
    d.last_read = std::max(d.last_read, answered);
  } else {
    d.hb_deadline = now + p_.fail_after;
  }
}

void DriverDetect::on_event(std::uint16_t, std::uint32_t node) {
  const NodeId n = static_cast<NodeId>(node);
  const SimTime now = core_.now_;
  Node& d = nodes_[n];
  if (now != d.next_event) return;  // superseded by an earlier push
  d.next_event = kNever;
  if (!core_.view_.is_up(n)) {
    if (d.reconnect_at <= now) {
      if (core_.nodes_.up(n)) {
        // A paused node accepts the connection (its kernel runs) but answers the driver's
        // handshake only when the pause ends.
        const SimTime ready = core_.nodes_.paused_until(n, now);
        if (ready > now) d.reconnect_at = ready;
        else mark_up(n, "reconnect");
      } else {
        d.reconnect_delay = p_.exponential ? std::min(2 * d.reconnect_delay, p_.reconnect_max) : p_.reconnect_base;
        d.reconnect_at = now + d.reconnect_delay;
      }
    }
    arm(n);
    return;
  }
  if (d.event_at <= now) {  // the cluster's DOWN event reaches the driver
    d.event_at = kNever;
    if (p_.down_event == DownEventRule::MarksDown) {  // gocql: at once, even if the node still answers
      core_.driver_mark_down(n, "event");
      arm(n);
      return;
    }
    if (p_.down_event == DownEventRule::Probes && d.hb_deadline == kNever) {
      d.last_tick = now;  // Rust: the probe restarts the keepalive interval
      send_heartbeat(n, d);
    }
  }
  if (d.hb_deadline <= now) {
    // The heartbeat got no answer: the connection is defunct, and with it the host.
    d.hb_deadline = kNever;
    core_.driver_mark_down(n, "heartbeat");
    arm(n);
    return;
  }
  if (d.hb_deadline == kNever) {
    const SimTime due = heartbeat_due(d);
    if (due <= now) {
      switch (p_.idle) {
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
      if (p_.idle == IdleRule::Write && d.hb_deadline == kNever) d.last_write = now;
    }
  }
  arm(n);
}

void DriverDetect::read(NodeId n, bool late) {
  Node& d = nodes_[n];
  d.last_read = std::max(d.last_read, core_.now_);
  if (late && d.timed_out > 0) --d.timed_out;
}

void DriverDetect::client_timeout(NodeId n) {
  Node& d = nodes_[n];
  ++d.timed_out;
  if (p_.timeout_threshold > 0 && d.timed_out > p_.timeout_threshold && core_.view_.is_up(n)) {
    core_.driver_mark_down(n, "timeouts");
    arm(n);
  }
}

// The cluster's STATUS_CHANGE for a fault reaches the driver (the control connection's node
// gossiped the change); what it does with it is the driver's.
void DriverDetect::status_event(NodeId n, bool up) {
  Node& d = nodes_[n];
  const bool seen_up = core_.view_.is_up(n);
  if (!up && seen_up && p_.down_event != DownEventRule::Ignored) d.event_at = core_.now_ + p_.event_delay;
  if (up && !seen_up) d.reconnect_at = core_.now_;  // UP: an attempt at once
  arm(n);
}

void DriverDetect::marked_down(NodeId n, const char* by) {
  Node& d = nodes_[n];
  d.hb_deadline = d.event_at = kNever;
  d.timed_out = 0;
  d.reconnect_delay = p_.reconnect_base;
  d.reconnect_at = core_.now_ + d.reconnect_delay;
  result_.events.push_back({to_sec(core_.now_), core_.topo_.nodes[n].id, false, by});
}

void DriverDetect::mark_up(NodeId n, const char* by) {
  auto& view = core_.view_;
  if (view.is_up(n) || !view.is_known(n)) return;  // no pool to a host outside the metadata
  view.set_up(n, true);
  core_.policy_->on_up(n);
  Node& d = nodes_[n];
  d.reconnect_at = kNever;
  d.last_read = d.last_write = core_.now_;
  if (p_.idle == IdleRule::Periodic) d.last_tick = core_.now_ - p_.interval + p_.first_tick;  // new connections
  result_.events.push_back({to_sec(core_.now_), core_.topo_.nodes[n].id, true, by});
}

}  // namespace lbsim
