// Parameters of the cluster model: nodes (shards, queueing discipline, service times, speed),
// network latencies, timeouts, the retry and speculative-execution policies and scheduled faults.
// Plain data built and validated by the scenario parser; documented in configs/README.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster/topology.hpp"
#include "sim/core/time.hpp"
#include "sim/workload/distribution.hpp"

namespace lbsim {

// per_shard (ScyllaDB): one FIFO queue per shard, a request goes to the shard owning its token.
// shared (Cassandra): one FIFO queue per node served by `shards` threads.
enum class Discipline : std::uint8_t { PerShard, Shared };

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
