// One simulation run: a scenario, one policy, one seed. A plain object with no globals; two can
// run in one process (or in two threads: the scenario is only read).
//
// Model (see configs/README.md for the parameters):
// - client: closed-loop threads or open-loop arrivals; every attempt first runs a CPU burst on
//   the client (ClientCpu: driver cost, plan cost, random draws), then crosses the network to the
//   coordinator the plan chose;
// - coordinator: coordinator work on its queue, then Unavailable at once if too few replicas are
//   alive in its (gossip) view, else writes to every live replica and reads to the CL's number of
//   replicas, closest first; local work needs no network hop; it answers when the CL is met, or
//   with a read/write timeout;
// - replicas: FIFO queues per shard (per_shard) or per node (shared), service times by kind;
// - driver: retries (RetrySpec), client timeouts, speculative executions, fault detection delay.
//
// The event loop pops (time, seq)-ordered events from a binary heap; payloads live in slabs.
// Streams forked from the seed: "workload" (op kinds, keys), "arrivals", "think", "service",
// "network", "shard", "policy" (policy init), "plan" (plan draws), "driver_cost".
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "policies/policy.hpp"
#include "sim/client/client_cpu.hpp"
#include "sim/config/scenario.hpp"
#include "sim/engine/event_digest.hpp"
#include "sim/engine/event_queue.hpp"
#include "sim/engine/node_model.hpp"
#include "sim/engine/slab.hpp"
#include "sim/metrics/run_result.hpp"
#include "sim/workload/op_generator.hpp"

namespace lbsim {

struct Progress {
  SimTime now = 0;
  std::uint64_t finished = 0;  // operations finished (warm-up included)
  std::uint64_t target = 0;    // total operations, 0 in duration mode
  SimTime end = 0;             // duration mode: end of the window, else 0
  std::uint64_t events = 0;
  double wall_s = 0;
};

// Whether the engine draws operations ahead to prefetch their lookups (Simulation::Impl, issue
// 14): Auto on rings whose lookup tables exceed 1 MiB. It changes no result, only the speed;
// tests force it On and Off to check that.
enum class DrawAhead : std::uint8_t { Auto, On, Off };

// Which copy of the request path a run takes (Simulation::Impl::hooked_, issue 45): Auto the bare
// one when the scenario uses no mechanism, else the hooked one; Hooked forces the hooked one, for
// the test that both give the same report.
enum class RequestPath : std::uint8_t { Auto, Hooked };

struct RunOptions {
  const std::atomic<bool>* cancel = nullptr;             // polled; a cancelled run throws Cancelled
  std::function<void(const Progress&)> progress;          // called about twice a second of wall time
  DrawAhead draw_ahead = DrawAhead::Auto;
  RequestPath request_path = RequestPath::Auto;
  EventDigest* digest = nullptr;  // opt-in: every popped event is added (sim/engine/event_digest.hpp)
};

// An operation that arrives from outside the simulation (lbsim serve, issue 46: a real driver's
// request on a node's socket). Its coordinator is given; the engine runs one attempt of it with no
// client model: no client CPU, no plan, no driver retry or speculation (the real driver does
// those), only the client's network hop to the coordinator and everything after it.
struct ExternalOp {
  OpKind kind = OpKind::Read;
  ConsistencyLevel cl = ConsistencyLevel::LocalOne;
  bool routed = true;  // false: no routing key (the shard is drawn)
  Token token = 0;
  NodeId coordinator = 0;
  // The coordinator's shard: the connection's (ScyllaDB: the shard that accepted it), or -1 for
  // the token's shard (an ideally shard-aware connection). Used with external_begin's
  // connection_shards only.
  std::int32_t shard = -1;
  std::uint64_t tag = 0;  // the caller's, handed back with the end
};
// What a coordinator's answer tells its driver about where the key's data lives: a token range
// (first, last] and its replicas with their shards, in the order the server lists them
// (Hooks::routing_hint).
struct RoutingHint {
  Token first = 0, last = 0;
  std::vector<std::pair<NodeId, std::uint32_t>> replicas;
};

struct ExternalEnd {
  std::uint64_t tag = 0;
  bool success = true;
  ErrorKind error = ErrorKind::Unavailable;  // when !success
  SimTime latency = 0;                       // from the submission to the answer
  // A coordinator's Read/Write_timeout: the replicas' responses counted toward its consistency
  // level when it gave up, and (reads) whether the data replica was among them.
  std::uint32_t received = 0;
  bool data_present = false;
  // A successful answer's routing hint (tablets-routing-v1), when the model's placement gives one:
  // the coordinator was no replica, or not on the replica's shard.
  std::shared_ptr<const RoutingHint> hint;
};

struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("run cancelled") {}
};

class Simulation {
 public:
  Simulation(const Scenario& scenario, const PolicyEntry& entry, std::unique_ptr<policy::Policy> policy,
             std::uint64_t seed);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  RunResult run(const RunOptions& options = {});

  // A run fed from outside on the caller's clock (ExternalOp): external_begin opens the window
  // and starts the scenario's faults and mechanisms, but no loader; the caller submits operations
  // at external_now() and runs the events up to a time; `done` is called for each operation as it
  // ends, from inside external_advance. external_end closes the window and returns the result.
  // Not with run(). The hooked request path is taken (the operations' ends are a hook point).
  using ExternalDone = std::function<void(const ExternalEnd&)>;
  // connection_shards: each operation's coordinator runs on ExternalOp::shard, and its replica work
  // on another shard of the same node hands over with a cross-shard hop, as through a connection
  // model (without it every operation runs on its token's shard).
  void external_begin(ExternalDone done, bool connection_shards = false);
  SimTime external_now() const;
  // The time of the next pending event, or the largest SimTime when none is pending.
  SimTime external_next() const;
  // Runs every event due at or before `until`, then moves the clock to `until` (if later); returns
  // the number of events run.
  std::uint64_t external_advance(SimTime until);
  void external_submit(const ExternalOp& op);
  RunResult external_end();
  // What the caller's sockets must follow, called from inside external_advance: a topology
  // change's ring switch (+1: node n joined and is NORMAL, -1: it left or was removed) and the
  // closing of every connection to n (0: a kill, or a leaving node's shutdown).
  using ExternalTopology = std::function<void(NodeId n, int change)>;
  void external_on_topology(ExternalTopology f);

  // The core (sim/engine/sim_impl.hpp): named here for the mechanisms of sim/mech/ and the core
  // harness of the tests, which include its header; nothing else does.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Builds the entry's policy with the registry and runs it. Pure: the result (outside `engine`)
// depends only on the arguments.
RunResult run_simulation(const Scenario& scenario, const PolicyEntry& entry, std::uint64_t seed,
                         const RunOptions& options = {});

}  // namespace lbsim
