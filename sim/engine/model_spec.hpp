// Parameters of the cluster model: nodes (shards, queueing discipline, service times, speed),
// network latencies, timeouts, the retry and speculative-execution policies and scheduled faults.
// Plain data built and validated by the scenario parser; documented in configs/README.md.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster/topology.hpp"
#include "sim/core/time.hpp"
#include "sim/workload/distribution.hpp"

namespace lbsim {

// per_shard (ScyllaDB): one FIFO queue per shard, a request goes to the shard owning its token.
// shared (Cassandra): one FIFO queue per node served by `shards` threads.
enum class Discipline : std::uint8_t { PerShard, Shared };

// The server software whose request-lifetime rules a run follows (cluster.server; the table of
// rules is server_rules() below, documented rule by rule in configs/README.md). Unspecified keeps
// lbsim's own mixed rules, which no release has.
enum class ServerRelease : std::uint8_t {
  Unspecified, Cassandra311, Cassandra41, Cassandra50, Scylla2024_1, Scylla2025_1, Scylla2025_2, Scylla2026_1
};
inline constexpr std::size_t kServerReleases = 8;

// Where the coordinator fixes a request's deadline (once; it never restarts).
enum class CoordinatorClock : std::uint8_t {
  Arrival,  // when the request reaches the coordinator (its queue wait counts)
  Dequeue,  // when the coordinator starts executing it (its queue wait does not count)
};
// Where replica work's expiry counts from.
enum class ReplicaClock : std::uint8_t {
  Coordinator,  // the coordinator's deadline itself
  Sent,         // the message's creation on the coordinator + the verb's timeout
  Receipt,      // the message's receipt on the replica + the verb's timeout
};

// One release's rules. Add a field with a comment naming its source, then a value in every row of
// server_rules(); the default member values are lbsim's unspecified rules.

struct ServerRules {
  std::string_view name = "unspecified";
  bool scylla = false;
  // Coordinator: where the request's timeout clock starts. Cassandra: the Native-Transport-Requests
  // stage starts the clock when it dequeues the request (apache/cassandra
  // src/java/org/apache/cassandra/transport/Dispatcher.java; 5.0's cql_start_time: REQUEST, the
  // default, CASSANDRA-19534). ScyllaDB: the statement computes its timeout when it executes
  // (scylladb/scylladb cql3/statements/modification_statement.cc, select_statement.cc).
  CoordinatorClock coordinator_clock = CoordinatorClock::Arrival;
  // Coordinator: work that would start after arrival + timeout is discarded at the head of the
  // queue, answering Read/WriteTimeout at the deadline. lbsim's own rule; no release has it.
  bool coordinator_drops_expired = true;
  // Coordinator: a request dequeued more than timeouts.native_transport_ms after it arrived is
  // answered OverloadedException without executing (apache/cassandra 5.0, CASSANDRA-19534:
  // native_transport_timeout, 12 s; earlier releases never drop at the coordinator).
  bool native_transport_timeout = false;
  // Coordinator: cluster.max_concurrent_requests_per_shard admits at most that many requests per
  // shard, answering OVERLOADED on arrival (scylladb/scylladb db/config.cc, transport/server.cc
  // requests_shed; unlimited by default).
  bool admission_limit = true;
  // Replica: where the expiry of replica work counts from. Cassandra's InboundMessageHandler
  // expires a message at its creation on the sender + the verb timeout when internode_timeout is
  // true (the default since 4.1, conf/cassandra.yaml), at its receipt when false (3.x:
  // cross_node_timeout: false). ScyllaDB sends the coordinator's absolute timeout with the RPC.
  // lbsim's unspecified rule: the coordinator's deadline.
  ReplicaClock replica_clock = ReplicaClock::Coordinator;
  // Replica work that expired before its stage starts is dropped unexecuted (Cassandra:
  // InboundMessageHandler on arrival and at ProcessMessage.run; ScyllaDB: database::apply's timeout
  // on entry, reads timing out in the reader-concurrency-semaphore queue). An item that arrives
  // expired starts after its expiry, so the drop on arrival is the same rule. All rows: this rule;
  // timeouts.shed_expired false turns it off.
  // Replica: a read running at its expiry is cancelled and answers nothing (apache/cassandra
  // src/java/org/apache/cassandra/db/ReadCommandVerbHandler.java: setMonitoringTime, then
  // "Discarding partial response ... (timed out)", counted as a dropped message; since 3.10,
  // CASSANDRA-7392). ScyllaDB: not modelled (not established that readers stop at their deadline).
  bool read_abort = false;
  // Coordinator: read replicas at equal distance (same rack, same DC, other DCs) are shuffled by
  // a pass over the proximity sort, so a read at 1 < CL < RF spreads over them; before, ties kept
  // the replica order (scylladb/scylladb commit d1490bb7bf, PR #21958, merged 2024-12-24 as
  // f9c3ab03a3, first in 2025.1.0; locator/topology.cc do_sort_by_proximity; sim/cluster/
  // coordination.hpp read_targets). Cassandra orders by its dynamic snitch (dynamic_snitch
  // below); with it off, ties keep the replica order there too.
  bool shuffle_equal_distance_reads = false;
  // (The release rules of the mechanisms with folders of their own are there: the placement's in
  // sim/mech/placement/placement_rules.hpp, the others' in their parsers,
  // sim/mech/<name>/<name>_config.cpp, listed by sim/mech/specs.inc.)
};

// The rules of `r`, one row per release.
constexpr ServerRules server_rules(ServerRelease r) {
  ServerRules s;  // unspecified: the member defaults
  if (r == ServerRelease::Unspecified) return s;
  // Every real release starts the coordinator's clock at dequeue and never drops expired work there.
  s.coordinator_clock = CoordinatorClock::Dequeue;
  s.coordinator_drops_expired = false;
  s.scylla = r >= ServerRelease::Scylla2024_1;
  if (!s.scylla) {  // Cassandra
    s.admission_limit = false;
    s.replica_clock = ReplicaClock::Sent;  // conf/cassandra.yaml 4.1, 5.0: internode_timeout: true
    s.read_abort = true;                   // ReadCommandVerbHandler, since 3.10
  }
  switch (r) {
    case ServerRelease::Unspecified: break;
    case ServerRelease::Cassandra311:
      s.name = "cassandra-3.11";
      s.replica_clock = ReplicaClock::Receipt;  // conf/cassandra.yaml 3.11: cross_node_timeout: false
      break;
    case ServerRelease::Cassandra41: s.name = "cassandra-4.1"; break;
    case ServerRelease::Cassandra50:
      s.name = "cassandra-5.0";
      s.native_transport_timeout = true;  // CASSANDRA-19534
      break;
    // ScyllaDB: the request rules are the same in these releases; their placement rules differ
    // (sim/mech/placement/placement_rules.hpp).
    case ServerRelease::Scylla2024_1: s.name = "scylla-2024.1"; break;
    case ServerRelease::Scylla2025_1: s.name = "scylla-2025.1"; break;
    case ServerRelease::Scylla2025_2: s.name = "scylla-2025.2"; break;
    case ServerRelease::Scylla2026_1: s.name = "scylla-2026.1"; break;
  }
  s.shuffle_equal_distance_reads = r >= ServerRelease::Scylla2025_1;  // PR #21958, 2025.1.0
  return s;
}

struct NodeModelSpec {
  std::uint32_t shards = 4;
  Discipline discipline = Discipline::PerShard;
  std::uint32_t msb_ignore = 12;  // shard-of-token parameter (cluster.sharding.msb_ignore)
  Dist coordinator = Dist::constant(20000);      // coordinator work per request
  Dist read = Dist::lognormal(200000, 1000000);  // replica read
  Dist write = Dist::lognormal(100000, 500000);  // replica write
  double row_cost = 0.1;  // replica time x (1 + row_cost x (rows - 1))
  std::vector<double> speed;  // per node (NodeId order), 1 = nominal; service time / speed
  // Cross-shard hops (per_shard only; scylladb/scylladb service/storage_proxy.cc hands local
  // replica work to the owning shard with invoke_on / submit_to). Replica work arriving on a shard
  // that does not own its token is handed to the owner: an absolute extra CPU of
  // cross_shard_hop_ns per hop, whatever the work's size (the smp queue's message, task and reply),
  // half on the arrival shard and half on the owner, and cross_shard_latency between the two.
  // Measured: scylladb/scylladb commit b26923c1a4 (PR #30756, perf-simple-query, one node, reads):
  // at 4 shards 16,044 cycles/op shard-aware and 20,295 not, and 3/4 of the latter hop: about
  // 5.7k cycles per hop, 1.9 us at 3 GHz.
  double cross_shard_hop_ns = 1900;
  Dist cross_shard_latency = Dist::constant(0);
  // Inter-node RPCs land on the sender's shard number and hop from there when that is not the
  // owner (inferred from messaging_service's port-based shard selection).
  bool rpc_on_sender_shard = true;
  // cluster.server and the rules it selects (server_rules()).
  ServerRelease server = ServerRelease::Unspecified;
  // cluster.max_concurrent_requests_per_shard (releases with admission_limit); 0: unlimited.
  std::uint32_t max_requests_per_shard = 0;
};

struct NetworkSpec {
  Dist same_rack = Dist::constant(50000);  // one-way
  Dist same_dc = Dist::constant(100000);
  Dist cross_dc = Dist::constant(20000000);
  struct Pair {
    std::uint32_t from = 0, to = 0;  // DC indexes; a pair applies in both directions
    Dist latency;
  };
  std::vector<Pair> dc_pairs;
};

struct TimeoutSpec {
  SimTime read = 5 * kSec;     // coordinator read_request_timeout_in_ms
  SimTime write = 2 * kSec;    // coordinator write_request_timeout_in_ms
  SimTime client = 12 * kSec;  // driver SocketOptions.readTimeoutMillis (per attempt)
  bool shed_expired = true;    // nodes drop work that would start after its request's timeout
  SimTime cas = kSec;          // cas_contention_timeout_in_ms: an LWT's Paxos rounds (then + write for commit)
  // native_transport_timeout (cassandra-5.0 only, CASSANDRA-19534): longest wait in the coordinator's
  // queue before the request is answered OverloadedException.
  SimTime native_transport = 12 * kSec;
};

// The driver's retry policy (retry.policy; configs/README.md "timeouts, retry, speculative").
// `Default` is lbsim's original rule, a simplification of the Java driver 3.x DefaultRetryPolicy:
// Unavailable -> next host, at most `unavailable_retries` times; client timeout or OVERLOADED ->
// next host (every statement but an LWT treated as idempotent), at most `error_retries` times;
// server read/write timeouts are not retried. The others are the drivers' own default policies,
// decided by retry_decision() (sim/engine/retry_policy.hpp, which cites each driver's source).
enum class RetryPolicyKind : std::uint8_t { Default, Never, Java3, Java4, Python, GocqlSimple, Rust, Nodejs };

struct RetrySpec {
  bool enabled = true;  // false: "policy": "never"
  RetryPolicyKind kind = RetryPolicyKind::Default;
  std::uint32_t unavailable_retries = 1;  // Default only
  std::uint32_t error_retries = 2;        // Default only
  // gocql-simple: SimpleRetryPolicy{NumRetries}; gocql's default is NumRetries 3 (scylladb/gocql
  // policies.go `defaultRetryPolicy`, commit 3703808c).
  std::uint32_t num_retries = 3;
  // Whether the statements are marked idempotent (the driver policies; Default treats every
  // non-LWT statement as idempotent). Every driver's default is false: Java 3.x
  // QueryOptions.DEFAULT_IDEMPOTENCE, Java 4.x basic.request.default-idempotence, Python
  // Statement.is_idempotent, gocql Query.idempotent, Rust Statement::is_idempotent, Node.js
  // ExecutionOptions isIdempotent (datastax/nodejs-driver lib/client-options.js).
  bool idempotent = false;
};

// `down`: the node stops answering without closing its sockets (power loss, a network partition:
// no TCP RST reaches the driver); what it was doing is lost and its requests time out on the
// client. `kill`: the process dies and its kernel closes the sockets (kill -9): the driver's
// connections drop at once, so the requests in flight on them fail at once and the driver marks
// the host down at once (every driver: a closed channel defuncts the connection, and a host with
// no connection left is down). Both end with `duration_s` or an `up` event.
// `restart`: the node's process restarts: like `kill` for `duration_s` (0: at once), and its cache
// (cluster.cache) comes back empty.
enum class FaultKind : std::uint8_t { Down, Up, Slow, Pause, Kill, Restart };

struct FaultEvent {
  SimTime at = 0;
  NodeId node = 0;
  FaultKind kind = FaultKind::Down;
  SimTime duration = 0;  // down, kill: 0 = stays down; slow, pause: required
  double factor = 1.0;   // slow: service time multiplier
  // slow: the one shard it applies to (per_shard discipline), or -1 for every shard of the node.
  // Shard-pinned background work (scylladb/scylladb#3156: gossip, batchlog replay) takes a share u
  // of one shard's CPU on every node; a slow fault with that shard and factor 1 / (1 - u) models it.
  std::int32_t shard = -1;
};

// When the driver and the coordinators notice that a node went down silently or came back. The
// driver's side is this fixed delay (faults.driver_detection "fixed", lbsim's original rule) unless
// a mechanism claims it (MechSpecs::claims: faults.driver_detection "driver", sim/mech/detect).
struct FaultSpec {
  SimTime driver_detection = kSec;  // until the driver marks a node down/up (policy on_down/on_up)
  SimTime server_detection = kSec;  // until coordinators (gossip) see it
  std::vector<FaultEvent> events;   // sorted by time
};

}  // namespace lbsim

namespace lbsim {

// Topology changes (issue 11; scylladb/scylladb docs/dev/topology-over-raft.md; scylladb/scylladb
// #19107 for the growth that skews NEUTRAL): nodes joining, decommissioned or removed at given
// times, which decide the cluster's membership over time. What a change moves and what that costs
// is the placement's (sim/mech/placement/placement_spec.hpp).
enum class ChangeKind : std::uint8_t { AddNode, Decommission, RemoveNode };

struct ChangeEvent {
  SimTime at = 0;
  ChangeKind kind = ChangeKind::AddNode;
  std::vector<NodeId> nodes;  // add_node: the joining nodes (appended to the topology); else one node
};

struct ChangeSpec {
  std::vector<ChangeEvent> events;  // sorted by time
  std::uint32_t initial_nodes = 0;  // nodes 0..initial_nodes-1 are members at t = 0
  bool any() const { return !events.empty(); }
};

}  // namespace lbsim
