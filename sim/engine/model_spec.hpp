// Parameters of the cluster model: nodes (shards, queueing discipline, service times, speed),
// network latencies, timeouts, the retry and speculative-execution policies and scheduled faults.
// Plain data built and validated by the scenario parser; documented in configs/README.md.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster/tablet_balancer.hpp"
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
  // Tablet balancer (sim/cluster/tablet_balancer.hpp names the scylladb/scylladb commits; the table
  // is configs/README.md "Tablet balancing by release"). What it equalizes: tablet count per shard
  // (6.0-2025.1), storage utilization with equal tablets (2025.2, commit c4714180cc), utilization
  // from the tablets' sizes with a 1 % stop rule (2026.1, commit 10eb364821). Which tablet moves:
  // the first of the shard's set (5.4, the base of 2024.1), random (6.0-6.1, commit 603abddca9),
  // scored per table (6.2 and later, PR #19779). Shard moves inside a node: since commit
  // db9d3f0128 (6.0; 5.4 has none). Unspecified: lbsim's earlier rules (count, random, shard moves).
  BalanceGoal tablet_goal = BalanceGoal::Count;
  CandidateRule tablet_candidates = CandidateRule::Random;
  bool tablet_intranode = true;
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
    // ScyllaDB: the request rules above are the same in these releases; the tablet balancer's differ.
    case ServerRelease::Scylla2024_1:
      s.name = "scylla-2024.1";
      s.tablet_candidates = CandidateRule::First;  // scylla-5.4.0 tablet_allocator.cc: candidates.begin()
      s.tablet_intranode = false;                   // no make_intranode_plan before db9d3f0128
      break;
    case ServerRelease::Scylla2025_1:
      s.name = "scylla-2025.1";
      s.tablet_candidates = CandidateRule::Scored;  // PR #19779 (99d0aaa7d2), in 6.2.0 and 2025.1.0
      break;
    case ServerRelease::Scylla2025_2:
      s.name = "scylla-2025.2";
      s.tablet_goal = BalanceGoal::Capacity;  // c4714180cc, in 2025.2.0 (and 2025.1.1+: backport 51ee15f02d)
      s.tablet_candidates = CandidateRule::Scored;
      break;
    case ServerRelease::Scylla2026_1:
      s.name = "scylla-2026.1";
      s.tablet_goal = BalanceGoal::Size;  // 10eb364821 / merge bbf9ce18ef, first in 2026.1.0
      s.tablet_candidates = CandidateRule::Scored;
      break;
  }
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

// Java driver 3.x DefaultRetryPolicy: Unavailable -> next host once; client timeout or
// connection error -> next host (idempotent statements), here at most `error_retries` times;
// server read/write timeouts are not retried.
struct RetrySpec {
  bool enabled = true;  // "policy": "default" | "never"
  std::uint32_t unavailable_retries = 1;
  std::uint32_t error_retries = 2;
};

// Java driver ConstantSpeculativeExecutionPolicy(delay, max): after `delay` without an answer
// another execution goes to the next host of the plan, at most `max_speculative` extra ones.
struct SpeculativeSpec {
  bool enabled = false;
  SimTime delay = 50 * kMs;
  std::uint32_t max_speculative = 1;
};

enum class FaultKind : std::uint8_t { Down, Up, Slow, Pause };

struct FaultEvent {
  SimTime at = 0;
  NodeId node = 0;
  FaultKind kind = FaultKind::Down;
  SimTime duration = 0;  // down: 0 = stays down; slow, pause: required
  double factor = 1.0;   // slow: service time multiplier
};

struct FaultSpec {
  SimTime driver_detection = kSec;  // until the driver marks a node down/up (policy on_down/on_up)
  SimTime server_detection = kSec;  // until coordinators (gossip) see it
  std::vector<FaultEvent> events;   // sorted by time
};

}  // namespace lbsim

namespace lbsim {

// Topology changes (issue 11; scylladb/scylladb docs/dev/topology-over-raft.md and
// service/tablet_allocator.cc for tablets; scylladb/scylladb#19107 for the growth that skews
// NEUTRAL): nodes joining, decommissioned or removed at given times, and the cost of moving a
// tablet.
enum class ChangeKind : std::uint8_t { AddNode, Decommission, RemoveNode };

struct ChangeEvent {
  SimTime at = 0;
  ChangeKind kind = ChangeKind::AddNode;
  std::vector<NodeId> nodes;  // add_node: the joining nodes (appended to the topology); else one node
};

struct ChangeSpec {
  std::vector<ChangeEvent> events;  // sorted by time
  std::uint32_t initial_nodes = 0;  // nodes 0..initial_nodes-1 are members at t = 0
  // A tablet migration: a fixed latency (group0 transitions and barriers, which dominate for small
  // tablets: scylladb/scylladb commit 2463e524ed) plus the tablet's size over the streaming
  // bandwidth. Writes go to old and new replica from the start, reads switch to the new one after streaming
  // (write_both_read_old -> streaming -> write_both_read_new -> use_new).
  SimTime migration_latency = kSec;
  double tablet_size_mb = 0;       // 0: only the fixed latency
  double stream_mb_s = 100;
  // scylladb/scylladb db/config.cc:
  std::uint32_t max_in_per_shard = 2;   // tablet_streaming_write_concurrency_per_shard
  std::uint32_t max_out_per_shard = 2;  // tablet_streaming_read_concurrency_per_shard
  // Vnode keyspaces: how long one ring change streams before ownership switches.
  SimTime streaming = 0;
  bool any() const { return !events.empty(); }
};

}  // namespace lbsim
