// The state of one `lbsim serve` (server.cpp, issue 46), apart from its entry point so that each
// file stays short: the served scenario, a connection, and the server with its acceptors, read
// loops, paced clock, faults and topology changes. Internal to sim/serve/.
#pragma once
#include <algorithm>
#include <chrono>
#include <csignal>
#include <deque>
#include <memory>
#include <unordered_map>

#include <fcntl.h>

#include <asio.hpp>
#include <fmt/format.h>

#include "policies/registry.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/metrics/histogram.hpp"
#include "sim/serve/server.hpp"
#include "sim/serve/session.hpp"

namespace lbsim::serve::detail {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// The scenario as served: the real driver is the client, so lbsim's client model is off (no
// client CPU, no plan, no driver retry or speculation, no connection pools, no client timeout
// before a day), one loader, and a window that the serve closes itself.
inline Scenario served_scenario(const Scenario& in) {
  Scenario s = in;
  s.loaders.clear();
  ClientSpec& c = s.client;
  c.mode = LoadMode::Open;
  c.rate = 1;
  c.cores = 0;
  c.driver_cost = Dist::constant(0);
  c.plan_ns = 0;
  c.plan_host_ns = 0;
  c.connections = Connections::None;
  c.max_in_flight = 0xffffffffu;
  c.stress_retries = 0;
  s.retry.enabled = false;
  s.retry.kind = RetryPolicyKind::Never;
  s.timeouts.client = 24 * 3600 * kSec;
  // The real drivers speculate and detect failures themselves: the model's drivers do neither.
  s.mech.clear(MechSpecs::k_driver_spec);
  s.mech.clear(MechSpecs::k_detect);
  s.mech.claims.driver_detection = false;
  s.workload.warmup = 0;
  s.workload.warmup_ops = 0;
  s.workload.ops = 0;
  s.workload.duration = 1;  // not ops mode; external_end closes the window
  return s;
}

enum class NodeState : std::uint8_t { Up, Down, Killed };

struct Server;

struct Conn : std::enable_shared_from_this<Conn> {
  Conn(Server& s, tcp::socket so, NodeId n, std::uint32_t conn_shard);
  Server& srv;
  tcp::socket sock;
  NodeId node;
  std::uint32_t shard;  // the shard that took the connection (ScyllaDB)
  cql::Session session;
  std::deque<cql::Bytes> queue;
  std::array<std::uint8_t, cql::kHeaderSize> hdr{};
  cql::Bytes body;  // the frame being read (at most ServeOptions::max_frame)
  bool writing = false, open = true, close_after = false;
  std::uint32_t in_flight = 0;

  void send(cql::Bytes f) {
    if (!open) return;
    queue.push_back(std::move(f));
    if (!writing) write_next();
  }
  void write_next() {
    if (queue.empty()) {
      writing = false;
      if (close_after) close();
      return;
    }
    writing = true;
    auto self = shared_from_this();
    asio::async_write(sock, asio::buffer(queue.front()), [self](std::error_code ec, std::size_t) {
      if (ec) {
        self->close();
        return;
      }
      self->queue.pop_front();
      self->write_next();
    });
  }
  void close() {
    if (!open) return;
    open = false;
    std::error_code ec;
    sock.shutdown(tcp::socket::shutdown_both, ec);
    sock.close(ec);
  }
};

struct Pending {
  std::weak_ptr<Conn> conn;
  cql::DataRequest req;
};

struct Server {
  Server(const Scenario& in, const PolicyEntry& entry, std::uint64_t seed, const ServeOptions& o, std::uint32_t base,
         std::ostream& out)
      : log(out), sc(served_scenario(in)), opt(o), base_addr(base), catalog(sc, base), nodes(sc.topology().size()),
        sim(sc, entry, make_pol(sc, entry), seed), pace(io), poll(io), signals(io, SIGINT, SIGTERM),
        state(sc.topology().size(), NodeState::Up), conns(sc.topology().size()),
        acceptors(sc.topology().size()), acceptors_sa(sc.topology().size()), requests(sc.topology().size(), 0), shard_next(sc.topology().size(), 0) {
    connection_shards = server_rules(sc.nodes.server).scylla && sc.nodes.discipline == Discipline::PerShard &&
                        sc.nodes.shards > 1;
    catalog.set_shard_aware_port(connection_shards ? opt.shard_aware_port : 0);
  }

  std::ostream& log;
  static std::unique_ptr<policy::Policy> make_pol(const Scenario& s, const PolicyEntry& e) {
    policy::BuildContext ctx;
    ctx.topology = &s.topology();
    ctx.replication = &s.cluster.replication;
    return policy::make_policy(e.spec, e.path, ctx);
  }

  Scenario sc;
  ServeOptions opt;
  std::uint32_t base_addr;
  cql::Catalog catalog;
  std::vector<cql::NodeState> nodes;
  cql::SessionCounts counts;
  Simulation sim;
  asio::io_context io;
  asio::steady_timer pace, poll;
  asio::signal_set signals;
  std::vector<NodeState> state;
  std::vector<std::vector<std::weak_ptr<Conn>>> conns;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
  // ScyllaDB's shard-aware port (ServeOptions::shard_aware_port): a connection's shard is its
  // source port modulo the node's shards (scylladb/scylladb docs/dev/protocol-extensions.md).
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors_sa;
  // A ScyllaDB release with several shards per node: each connection is one shard's, and a request
  // coordinated on another shard than its token's hands its replica work over (a cross-shard hop).
  bool connection_shards = false;
  std::vector<std::uint64_t> requests;  // data requests each node received
  std::vector<std::uint32_t> shard_next;
  std::vector<std::unique_ptr<asio::steady_timer>> fault_timers;
  std::unordered_map<std::uint64_t, Pending> pending;
  std::uint64_t next_tag = 1;
  Clock::time_point origin;
  bool armed = false, stopping = false;
  Clock::time_point armed_at;
  LatencyHistogram lag;
  std::uint64_t accepted = 0, refused = 0, closed_by_fault = 0, dropped_down = 0, answered = 0, unanswered = 0,
                stream_limit = 0, frame_limit = 0, hints_sent = 0;
  std::size_t peak_connections = 0;
  std::uint64_t relisten_failures = 0;

  SimTime sim_now() const {
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - origin).count();
    return static_cast<SimTime>(ns * opt.time_scale);
  }
  Clock::time_point wall_of(SimTime t) const {
    return origin + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double, std::nano>(static_cast<double>(t) / opt.time_scale));
  }
  void advance() { sim.external_advance(std::max(sim_now(), sim.external_now())); }
  void rearm() {
    const SimTime next = sim.external_next();
    if (next == std::numeric_limits<SimTime>::max()) return;
    const Clock::time_point when = wall_of(next);
    if (armed && armed_at <= when) return;  // an earlier wake-up is set; it rearms
    armed = true;
    armed_at = when;
    pace.expires_at(when);
    pace.async_wait([this](std::error_code ec) {
      if (ec) return;  // re-set or stopped
      armed = false;
      advance();
      rearm();
    });
  }

  std::size_t live_connections(NodeId n) {
    auto& v = conns[n];
    v.erase(std::remove_if(v.begin(), v.end(), [](const std::weak_ptr<Conn>& w) {
              auto c = w.lock();
              return !c || !c->open;
            }),
            v.end());
    return v.size();
  }

  std::unique_ptr<tcp::acceptor> listen_on(NodeId n, std::uint16_t port) {
    auto a = std::make_unique<tcp::acceptor>(io);
    const tcp::endpoint ep(asio::ip::address_v4(base_addr + n), port);
    std::error_code ec;
    a->open(ep.protocol(), ec);
    // Close-on-exec: a process this one starts (a test's driver) must not inherit the listening
    // socket, or the port would stay bound after a kill closes ours.
    if (!ec) ::fcntl(a->native_handle(), F_SETFD, FD_CLOEXEC);
    if (!ec) a->set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) a->bind(ep, ec);
    if (!ec) a->listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
      throw IoError(fmt::format("lbsim serve: node {} cannot listen on {}:{}: {}", sc.topology().nodes[n].id,
                                cql::ipv4_text(base_addr + n), port, ec.message()));
    return a;
  }
  void listen(NodeId n) {
    auto a = listen_on(n, opt.port);
    std::unique_ptr<tcp::acceptor> sa;
    if (connection_shards && opt.shard_aware_port != 0) sa = listen_on(n, opt.shard_aware_port);
    acceptors[n] = std::move(a);
    accept_next(n, acceptors[n].get(), false);
    if (sa) {
      acceptors_sa[n] = std::move(sa);
      accept_next(n, acceptors_sa[n].get(), true);
    }
  }
  // A killed node listens again; if its address is still taken (another process), the failure is
  // reported and retried every 100 ms rather than ending the serve.
  void relisten(NodeId n) {
    try {
      listen(n);
    } catch (const IoError& e) {
      ++relisten_failures;
      if (relisten_failures == 1) log << e.what() << "; retrying every 100 ms" << std::endl;
      auto t = std::make_unique<asio::steady_timer>(io, std::chrono::milliseconds(100));
      t->async_wait([this, n](std::error_code ec) {
        if (!ec && !stopping && !acceptors[n]) relisten(n);
      });
      fault_timers.push_back(std::move(t));
    }
  }
  void stop_listening(NodeId n) {
    std::error_code ec;
    for (auto* v : {&acceptors, &acceptors_sa})
      if ((*v)[n]) {
        (*v)[n]->close(ec);
        (*v)[n].reset();
      }
  }
  void close_node(NodeId n) {
    for (auto& w : conns[n])
      if (auto c = w.lock(); c && c->open) {
        c->close();
        ++closed_by_fault;
      }
    conns[n].clear();
  }

  // Callbacks rather than coroutines: Debian 12's clang 14 with libstdc++ 12 gives Asio no
  // co_await (the sanitizer build's compiler), and the two loops are short.
  void accept_next(NodeId n, tcp::acceptor* a, bool shard_aware) {
    a->async_accept([this, n, a, shard_aware](std::error_code ec, tcp::socket s) {
      if (ec) return;  // closed: a kill, or the end
      if ((shard_aware ? acceptors_sa : acceptors)[n].get() != a) {  // killed while this one was accepted
        s.close(ec);
        return;
      }
      if (live_connections(n) >= opt.max_connections) {
        ++refused;
        s.close(ec);
      } else {
        ++accepted;
        ::fcntl(s.native_handle(), F_SETFD, FD_CLOEXEC);
        s.set_option(tcp::no_delay(true), ec);
        const std::uint32_t shards = std::max<std::uint32_t>(1, sc.nodes.shards);
        std::uint32_t shard = shard_next[n]++ % shards;  // the plain port: the shards take turns
        if (shard_aware) {
          const auto remote = s.remote_endpoint(ec);
          if (!ec) shard = remote.port() % shards;
        }
        auto c = std::make_shared<Conn>(*this, std::move(s), n, shard);
        conns[n].push_back(c);
        std::size_t total = 0;
        for (NodeId m = 0; m < conns.size(); ++m) total += conns[m].size();
        peak_connections = std::max(peak_connections, total);
        read_header(c);
      }
      accept_next(n, a, shard_aware);
    });
  }

  // One frame: its 9-byte header, then its body; the next is read once this one is handled.
  void read_header(const std::shared_ptr<Conn>& c) {
    asio::async_read(c->sock, asio::buffer(c->hdr), [this, c](std::error_code ec, std::size_t) {
      if (ec || !c->open) {
        c->close();  // the client closed its side (or the connection failed): close ours at once
        return;
      }
      const cql::Header h = cql::parse_header(c->hdr.data());
      if (h.length > opt.max_frame) {
        ++frame_limit;
        const std::string m = fmt::format("frame body of {} bytes is over the limit of {} bytes", h.length, opt.max_frame);
        counts.count_error("protocol_error", m);
        c->send(cql::frame(h.stream, cql::kError, cql::error_body(cql::kProtocolError, m)));
        c->close_after = true;
        if (!c->writing) c->close();
        return;
      }
      c->body.resize(h.length);
      if (h.length == 0) {
        frame_read(c, h);
        return;
      }
      asio::async_read(c->sock, asio::buffer(c->body), [this, c, h](std::error_code ec2, std::size_t) {
        if (ec2 || !c->open) {
          c->close();
          return;
        }
        frame_read(c, h);
      });
    });
  }
  void frame_read(const std::shared_ptr<Conn>& c, const cql::Header& h) {
    on_frame(c, h, c->body);
    if (c->open && !c->close_after) read_header(c);
  }

  void on_frame(const std::shared_ptr<Conn>& c, const cql::Header& h, const cql::Bytes& body) {
    if (state[c->node] == NodeState::Down) {  // a silent loss: nothing answers
      ++dropped_down;
      return;
    }
    cql::Outcome o = c->session.handle(h, body);
    for (auto& f : o.frames) c->send(std::move(f));
    if (o.created) schema_event(*o.created);
    if (o.data) {
      if (c->in_flight >= opt.max_streams) {
        ++stream_limit;
        const std::string m = fmt::format("more than {} requests in flight on one connection", opt.max_streams);
        counts.count_error("overloaded", m);
        c->send(cql::frame(h.stream, cql::kError, cql::error_body(cql::kOverloaded, m)));
      } else {
        submit(c, std::move(*o.data));
      }
    }
    if (o.close) {
      c->close_after = true;
      if (!c->writing) c->close();
    }
  }

  void submit(const std::shared_ptr<Conn>& c, cql::DataRequest d) {
    advance();
    const std::uint64_t tag = next_tag++;
    ++requests[c->node];
    ++c->in_flight;
    ExternalOp op = d.op;
    op.tag = tag;
    op.coordinator = c->node;
    op.shard = connection_shards ? static_cast<std::int32_t>(c->shard) : -1;
    pending.emplace(tag, Pending{c, std::move(d)});
    sim.external_submit(op);
    rearm();
  }

  // The answer of a simulated operation, written now (inside external_advance).
  void on_end(const ExternalEnd& e) {
    const auto it = pending.find(e.tag);
    if (it == pending.end()) return;
    const SimTime behind = std::max<SimTime>(0, static_cast<SimTime>(std::chrono::duration<double, std::nano>(
                                                     Clock::now() - wall_of(sim.external_now())).count()));
    lag.record(std::min(behind, LatencyHistogram::kMaxValue));
    if (auto c = it->second.conn.lock(); c && c->open) {
      --c->in_flight;
      const cql::DataRequest& r = it->second.req;
      if (e.success) {
        c->send(c->session.result_frame(r, e));
        if (e.hint && r.hint_eligible && c->session.wants_tablet_hints()) ++hints_sent;
      } else {
        c->send(c->session.error_frame(r, e, alive_replicas(r)));
      }
      ++answered;
    } else {
      ++unanswered;
    }
    pending.erase(it);
  }

  // The replicas of a request's token that are not killed or down now (Unavailable's `alive`).
  std::uint32_t alive_replicas(const cql::DataRequest& r) const {
    std::uint32_t alive = 0;
    const TokenRing& ring = sc.placement();
    for (NodeId n : ring.replicas_at(ring.range_index(r.op.token), ReplicaOrder::Server))
      alive += state[n] == NodeState::Up ? 1 : 0;
    return alive;
  }

  void event_to(bool (cql::Session::*wants)() const, const cql::Bytes& body, NodeId except) {
    for (NodeId n = 0; n < conns.size(); ++n) {
      if (n == except || state[n] != NodeState::Up) continue;
      for (auto& w : conns[n])
        if (auto c = w.lock(); c && c->open && (c->session.*wants)()) c->send(cql::frame(-1, cql::kEvent, body));
    }
  }
  void status_event(NodeId n, bool up) {
    cql::Writer w;
    w.string("STATUS_CHANGE");
    w.string(up ? "UP" : "DOWN");
    w.inet(base_addr + n, opt.port);
    event_to(&cql::Session::wants_status, w.out(), n);
  }
  void topology_event(const char* change, NodeId n) {
    cql::Writer w;
    w.string("TOPOLOGY_CHANGE");
    w.string(change);
    w.inet(base_addr + n, opt.port);
    event_to(&cql::Session::wants_topology, w.out(), n);
  }
  // The model's topology changes (Simulation::external_on_topology): a joining node listens once it
  // is NORMAL (Cassandra and ScyllaDB start their native transport after joining), and the others'
  // registered connections hear NEW_NODE and UP when gossip would have told them
  // (faults.server_detection); a node that left is dropped from system.peers and announced as
  // REMOVED_NODE; a node whose every connection the model closed (a kill, a leaving node's
  // shutdown: RING_DELAY after it left for Cassandra, at once for ScyllaDB) closes its sockets.
  void on_topology(NodeId n, int change) {
    const SimTime told = sim.external_now() + sc.faults.server_detection;
    if (change > 0) {
      catalog.set_member(n, true);
      if (state[n] == NodeState::Killed) relisten(n);
      state[n] = NodeState::Up;
      at_sim(told, [this, n] {
        topology_event("NEW_NODE", n);
        status_event(n, true);
      });
    } else if (change < 0) {
      catalog.set_member(n, false);
      at_sim(told, [this, n] { topology_event("REMOVED_NODE", n); });
    } else if (state[n] != NodeState::Killed) {
      state[n] = NodeState::Killed;
      stop_listening(n);
      close_node(n);
    }
  }
  void schema_event(const std::string& table) {
    cql::Writer w;
    w.string("SCHEMA_CHANGE");
    w.string("CREATED");
    w.string("TABLE");
    w.string(catalog.keyspace());
    w.string(table);
    event_to(&cql::Session::wants_schema, w.out(), kNoNode);
  }

  void at_sim(SimTime t, std::function<void()> f) {
    auto timer = std::make_unique<asio::steady_timer>(io, wall_of(t));
    timer->async_wait([f = std::move(f)](std::error_code ec) {
      if (!ec) f();
    });
    fault_timers.push_back(std::move(timer));
  }
  // What the scenario's faults do to the sockets (the model does the rest): kill closes the node's
  // connections and refuses new ones until it comes back; down answers nothing with the sockets
  // open; restart is a kill that comes back after its duration. The other nodes' registered
  // connections hear STATUS_CHANGE once the gossip would have (faults.server_detection).
  void schedule_faults() {
    for (const FaultEvent& f : sc.faults.events) {
      const NodeId n = f.node;
      const SimTime detect = sc.faults.server_detection;
      auto back = [this, n, detect] {
        if (state[n] == NodeState::Killed) relisten(n);
        state[n] = NodeState::Up;
        at_sim(sim.external_now() + detect, [this, n] { status_event(n, true); });
      };
      switch (f.kind) {
        case FaultKind::Kill:
        case FaultKind::Restart:
          at_sim(f.at, [this, n] {
            state[n] = NodeState::Killed;
            stop_listening(n);
            close_node(n);
          });
          at_sim(f.at + detect, [this, n] { status_event(n, false); });
          if (f.duration > 0 || f.kind == FaultKind::Restart) at_sim(f.at + f.duration, back);
          break;
        case FaultKind::Down:
          at_sim(f.at, [this, n] { state[n] = NodeState::Down; });
          at_sim(f.at + detect, [this, n] { status_event(n, false); });
          if (f.duration > 0) at_sim(f.at + f.duration, back);
          break;
        case FaultKind::Up: at_sim(f.at, back); break;
        default: break;  // slow, pause: the model's queues
      }
    }
  }

  void stop_all() {
    if (stopping) return;
    stopping = true;
    for (NodeId n = 0; n < acceptors.size(); ++n) stop_listening(n);  // both ports
    for (NodeId n = 0; n < conns.size(); ++n)
      for (auto& w : conns[n])
        if (auto c = w.lock()) c->close();
    std::error_code ec;
    pace.cancel();
    poll.cancel();
    signals.cancel(ec);
    for (auto& t : fault_timers) t->cancel();
    io.stop();
  }
};

inline Conn::Conn(Server& s, tcp::socket so, NodeId n, std::uint32_t conn_shard)
    : srv(s), sock(std::move(so)), node(n), shard(conn_shard),
      session(s.catalog, s.nodes[n], n, s.sc, s.counts, conn_shard) {}

}  // namespace lbsim::serve::detail
