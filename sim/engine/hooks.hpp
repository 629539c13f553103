// The request path's hook points and strategies (issue 45), through which mechanisms
// (sim/engine/mechanism.hpp) observe and steer it without the core naming any of them.
//
// A hook point is a short list of (function, object) pairs fired in subscription order, which is
// the order of sim/mech/mechanisms.inc. An empty list costs one compare; a subscriber one indirect
// call, predicted (one target per run). Not std::function: no allocation, no type erasure beyond
// a function pointer (the review of SimGrid's signals in sim/README.md says why).
// A strategy replaces one of the core's inline defaults and has at most one owner.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "policies/policy.hpp"
#include "sim/cluster/coordination.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/core/check.hpp"
#include "sim/core/time.hpp"
#include "sim/engine/simulation.hpp"

namespace lbsim {

class TokenRing;
enum class ErrorKind : std::uint8_t;  // sim/metrics/run_result.hpp

template <class... A>
class HookList {
 public:
  using Fn = void (*)(void* self, A...);
  void add(void* self, Fn fn) {
    if (n_ == slots_.size()) check_fail("too many subscribers to one hook point", n_);
    slots_[n_++] = {fn, self};
  }
  bool empty() const { return n_ == 0; }
  std::size_t size() const { return n_; }
  // One load and one branch when empty. The first subscriber is called in line (one indirect
  // call), the others out of line, so the caller's code around a hook point stays small.
  [[gnu::always_inline]] void fire(A... a) const {
    if (n_ != 0) [[unlikely]] {
      slots_[0].fn(slots_[0].self, a...);
      if (n_ > 1) fire_rest(a...);
    }
  }

 private:
  [[gnu::noinline]] void fire_rest(A... a) const {
    for (std::uint8_t i = 1; i < n_; ++i) slots_[i].fn(slots_[i].self, a...);
  }
  struct Slot {
    Fn fn = nullptr;
    void* self = nullptr;
  };
  std::array<Slot, 4> slots_{};
  std::uint8_t n_ = 0;
};

// A read's replica order at its coordinator: the CL's targets among the live replicas, written to
// `out`, their count returned. The core's default is read_targets (closest first,
// sim/cluster/coordination.hpp).
struct ReadOrder {
  using Fn = std::size_t (*)(void* self, const ClNeed& need, NodeId coordinator, std::span<const NodeId> replicas,
                             std::span<NodeId> out);
  Fn fn = nullptr;
  void* self = nullptr;
  explicit operator bool() const { return fn != nullptr; }
  std::size_t operator()(const ClNeed& need, NodeId coordinator, std::span<const NodeId> replicas,
                         std::span<NodeId> out) const {
    return fn(self, need, coordinator, replicas, out);
  }
};

// A replica's service of a job (its slot) on node `replica` before its CPU work, `read` for a
// read (a data or digest read, an LWT's read round), else a write: the CPU time to queue, or a
// negative value when the strategy kept the job (it comes back later as a kReplicaArrive with
// Job::parked_done set, or it was dropped). The core's default draws NodeModelSpec::read or write.
struct ReplicaService {
  using Fn = double (*)(void* self, std::uint32_t job, NodeId replica, bool read, SimTime now);
  Fn fn = nullptr;
  void* self = nullptr;
  explicit operator bool() const { return fn != nullptr; }
  double operator()(std::uint32_t job, NodeId replica, bool read, SimTime now) const {
    return fn(self, job, replica, read, now);
  }
};

// A read's split between the targets its coordinator sends now and those a mechanism holds back
// (the coordinators' speculative retry). The core orders `spare` targets more than the CL needs
// (read_order's order, or its default), except for EACH_QUORUM, whose needs are per DC; the
// strategy gets the request slot, the CL's need and those targets, and returns how many of the
// first ones to send now and how many of those get data requests (the rest digests). It sends
// the others itself, later, or never.
struct ReadSplit {
  struct Split {
    std::size_t send = 0;
    std::size_t data = 1;
  };
  using Fn = Split (*)(void* self, std::uint32_t cr, std::size_t need, std::span<const NodeId> targets);
  Fn fn = nullptr;
  void* self = nullptr;
  std::uint32_t spare = 0;
  explicit operator bool() const { return fn != nullptr; }
  Split operator()(std::uint32_t cr, std::size_t need, std::span<const NodeId> targets) const {
    return fn(self, cr, need, targets);
  }
};

// Why the driver sends an attempt (send_attempt): an operation's first execution (or a
// cassandra-stress re-execution's), a retry on the plan's next host, a retry aimed at the host
// that failed (a driver's RETRY_SAME; the plan's next host when that host's connection is full),
// or a speculative execution.
enum class SendKind : std::uint8_t { First, NextHost, SameHost, Speculative };

// The hosts a speculative execution tries, in turn, until one's connection takes it. The core's
// default is the operation's own plan (the one its executions share).
struct ExtraHost {
  using Fn = NodeId (*)(void* self, std::uint32_t op);
  Fn fn = nullptr;
  void* self = nullptr;
  explicit operator bool() const { return fn != nullptr; }
  NodeId operator()(std::uint32_t op) const { return fn(self, op); }
};

// A strategy of one signature R(A...): a (function, object) pair, null when no mechanism owns it
// (the core then runs its inline default). The placement's (below) are of this kind.
template <class F>
struct Strategy;
template <class R, class... A>
struct Strategy<R(A...)> {
  using Fn = R (*)(void* self, A...);
  Fn fn = nullptr;
  void* self = nullptr;
  explicit operator bool() const { return fn != nullptr; }
  R operator()(A... a) const { return fn(self, a...); }
  // The owner's claim; a second one is a checked error (one owner per strategy).
  void claim(void* owner, Fn f) {
    if (fn != nullptr) check_fail("a strategy has another owner", 0);
    fn = f;
    self = owner;
  }
};

struct Hooks {
  // The replica jobs of reads (OpKind::Read; not writes, not LWT rounds), which is all that the
  // read balancers observe; the core tests the kind only when a hook has subscribers.
  // A read's replica job (its slot) leaves its coordinator, now.
  HookList<std::uint32_t> read_sent;
  // A read's replica job's answer is scheduled to reach `coordinator` from `replica` at `at`
  // (when the coordinator is the replica, `at` is when the work ends).
  HookList<std::uint32_t, NodeId, NodeId, SimTime> read_answer;
  // A remote read replica job's work is scheduled but its request was already answered: no answer
  // event follows (a subscriber that wants its arrival time draws the network itself).
  HookList<std::uint32_t> read_answer_unneeded;
  // A node's process is gone (a kill or a restart fault), after the drivers' connections to it
  // closed (Simulation::Impl::close_connections): what a mechanism kept of the old process starts
  // over. Subscribers fire in the list's order: the cache (sim/mech/cache) empties the node's
  // caches before HWLB (sim/mech/hwlb) resets its meters, as when the cache was in the core.
  HookList<NodeId> process_lost;
  // Loader 0's driver (the one-client policy_ and view_):
  // - a request to `host` is written to its connection at `at` (every attempt);
  HookList<NodeId, SimTime> request_written;
  // - an answer from `host` is read off its connection; `late`: after its attempt's client timeout;
  HookList<NodeId, bool> answer_read;
  // - an attempt to `host` timed out on the client;
  HookList<NodeId> client_timeout;
  // - the driver marked `host` down, `by` saying what told it (Simulation::Impl::driver_mark_down);
  HookList<NodeId, const char*> driver_down;
  // - every loader's connections to `host` closed (a kill, a node leaving), after driver_down;
  HookList<NodeId> connections_closed;
  // - the cluster's STATUS_CHANGE event for a fault on `host` (up or down) reaches it.
  HookList<NodeId, bool> status_event;
  // A read's coordinator answers its client, now (its request slot; CoordReq::success and error
  // are set); not when the coordinator went down before answering (no answer leaves it).
  HookList<std::uint32_t> read_done;
  // The driver side, every loader. An operation's plan is made and its first attempt is about to
  // be sent (start_op; not a cassandra-stress re-execution).
  HookList<std::uint32_t> op_started;
  // An attempt of operation `op` (its slot: host, shard, sent time) is sent and its coordinator
  // request's arrival scheduled: the last step of send_attempt.
  HookList<std::uint32_t, std::uint32_t, SendKind> attempt_sent;
  // An attempt ends: its answer reached the driver, or its client timeout fired. Before the
  // operation's count of live attempts drops and the slot is released.
  HookList<std::uint32_t, policy::ResponseKind> attempt_ended;
  // An operation ends (finish_op: succeeded, or failed with `error`), before its slot may be
  // released: the end of an external operation (Simulation::external_begin) subscribes.
  HookList<std::uint32_t, bool, ErrorKind> op_ended;
  // A topology change's ring switch (Simulation::Impl::schedule_detection): `n` is a member now
  // (+1: a joining node is NORMAL) or no longer (-1: it left, or was removed); lbsim serve's
  // sockets and system.peers follow it.
  HookList<NodeId, std::int8_t> member_changed;
  // Placement (sim/mech/placement: tablets, or a vnode ring that changes): a request's answer,
  // with its coordinator request's slot, reaches its driver (every loader's; after its attempt's
  // client timeout too), before the request is released;
  HookList<std::uint32_t> answer_received;
  // - a coordinator's own work for request cr ended and it is about to find the replicas (once per
  //   request; an LWT's later rounds do not fire it);
  HookList<std::uint32_t> coordinator_executed;
  // - a replica job on `node` hands its work over to its owner shard (a cross-shard hop);
  HookList<NodeId> replica_hop;
  // - a driver detection carrying a token map (Detection::ring) reaches the drivers: from now on
  //   they route with it.
  HookList<const TokenRing*> token_map;
  // Strategies (one owner each; the first mechanism of the list that claims one keeps it).
  ReadOrder read_order;
  ReplicaService replica_service;
  ReadSplit read_split;
  ExtraHost extra_host;
  // Placement's strategies (one owner: sim/mech/placement). The core's default, each inline, is
  // the fixed vnode ring (Simulation::Impl::ring_) and the token's shard:
  // - the range (index) a new operation's token falls in, as its driver sees the cluster;
  Strategy<std::uint32_t(Token token)> op_range;
  // - a routed operation's replicas for its policy (policy::Request::replicas), driver order;
  Strategy<std::span<const NodeId>(std::uint32_t range, Token token)> driver_replicas;
  // - the shard a routed operation's driver sends to on `host`;
  Strategy<std::uint32_t(std::uint32_t range, Token token, NodeId host)> driver_shard;
  // - the replicas coordinator request cr uses: the read set for `read`, else the write set, the
  //   `pending` replicas last (written to `buf` or pointing into the strategy's tables); it may
  //   set the request's range (the coordinator's ring differs from the driver's);
  Strategy<std::span<const NodeId>(std::uint32_t cr, bool read, std::array<NodeId, 64>& buf, std::uint32_t& pending)>
      coordinator_replicas;
  // - the shard of `replica` that owns the work of (range, token);
  Strategy<std::uint32_t(std::uint32_t range, Token token, NodeId replica)> replica_shard;
  // - the routing hint the answer of coordinator request cr carries (CoordReq::payload), now.
  Strategy<void(std::uint32_t cr, RoutingHint& out)> routing_hint;

  // Subscribers and strategy owners over every hook point (add a new one here): the bare request
  // path is chosen only when this is 0 (Simulation::Impl::choose_request_path).
  std::size_t subscribers() const {
    return read_sent.size() + read_answer.size() + read_answer_unneeded.size() + process_lost.size() +
           request_written.size() + answer_read.size() + client_timeout.size() + driver_down.size() +
           connections_closed.size() + status_event.size() + read_done.size() + (read_order ? 1 : 0) +
           attempt_sent.size() + attempt_ended.size() + (replica_service ? 1 : 0) + (read_split ? 1 : 0) +
           op_started.size() + op_ended.size() + member_changed.size() + (extra_host ? 1 : 0) + answer_received.size() + coordinator_executed.size() +
           replica_hop.size() + token_map.size() + (op_range ? 1 : 0) + (driver_replicas ? 1 : 0) +
           (driver_shard ? 1 : 0) + (coordinator_replicas ? 1 : 0) + (replica_shard ? 1 : 0) + (routing_hint ? 1 : 0);
  }
};

}  // namespace lbsim
