// Parameters of the cluster model: nodes (shards, queueing discipline, service times, speed),
// network latencies, timeouts, the retry and speculative-execution policies and scheduled faults.
// Plain data built and validated by the scenario parser; documented in configs/README.md.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster/tablet_balancer.hpp"
#include "sim/cluster/tablets.hpp"
#include "sim/cluster/topology.hpp"
#include "sim/core/time.hpp"
#include "sim/engine/mech_specs.hpp"
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
// How a coordinator keeps the percentile threshold of speculative_retry (ServerRules::spec_threshold).
enum class SpecThreshold : std::uint8_t { ScyllaLazy, CassandraPeriodic };

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
  // Tablet migrations (sim/mech/placement/migrations.cpp). ScyllaDB's stage sequence:
  // allow_write_both_read_old (writes and reads old), write_both_read_old, streaming (writes both, reads old),
  // write_both_read_new, use_new (writes and reads new), cleanup, end_migration
  // (scylladb/scylladb locator/tablets.cc get_selector_for_writes / get_selector_for_reads, read
  // at f4a4091ca2); a migration holds its shards' streaming slots only until streaming ends
  // (service/tablet_allocator.cc is_streaming: false from write_both_read_new on). lbsim's
  // unspecified rule: write both and read old, then read new, slots held to the end.
  bool tablet_stages = false;
  // removenode rebuilds a dead replica by repair (tablet_transition_kind::rebuild_v2, stage
  // rebuild_repair): every live replica reads its whole copy and the new replica receives the
  // tablet once (locator/tablets.cc get_migration_streaming_info; feature repair_based_tablet_rebuild,
  // scylladb/scylladb commits ed7b8bb787 and acd32b24d3, first released in 2025.2.0). Before: the
  // plain rebuild streams the whole tablet from every live replica (service/storage_service.cc
  // stream_tablet at scylla-2025.1.0: one range_streamer source per read_from replica).
  bool rebuild_repair = false;
  // Tablets: the count of a new table and its resizing (configs/README.md "Tablet count, split and
  // merge by release"; SS = scylladb/scylladb). The count rule: 2025.2 and later SS
  // service/tablet_allocator.cc make_sizing_plan (commit 94b5165ac7; the goal cap f1bda8d4c1, the
  // table options c5668d99c9); 6.0-2025.1 locator/network_topology_strategy.cc
  // calculate_initial_tablets_from_topology times the scale factor (4c4a9679d8, eb3b237e05); 2024.1
  // (5.4 base) the keyspace's initial_tablets only (5.4 allocate_tablets_for_new_table). lbsim's
  // unspecified rule: the 2025.2 count, no resizing.
  TabletCountRule tablet_count_rule = TabletCountRule::Target;
  // tablets_initial_scale_factor's default (SS db/config.cc): 10 since 2025.2.0 (commits f043c83ba5
  // and 2463e524ed, 2024-12), 1 in 6.0-2025.1.
  double tablet_scale_factor = 10;
  // The balancer splits and merges tables on their average tablet size: split above 2 x
  // target_tablet_size_in_bytes (5 GiB), merge below 1/2 x (SS tablet_allocator.cc
  // make_resize_plan; commit 7ed5b44d52, 6.0.0).
  bool tablet_resize_by_size = false;
  // The resize target also holds the count rule's minimums for the current topology: a table
  // splits when nodes join and never merges below them (commit 20c6ca2813, 2025.2.0).
  bool tablet_split_on_growth = false;
  // Nodes being drained still count in a DC's shards for that target (2025.2: normal token
  // owners); 2026.1 leaves them out (make_sizing_plan's !n.is_draining(), commit a009644c7d).
  bool tablet_target_counts_draining = true;
  // Coordinator: read replicas at equal distance (same rack, same DC, other DCs) are shuffled by
  // a pass over the proximity sort, so a read at 1 < CL < RF spreads over them; before, ties kept
  // the replica order (scylladb/scylladb commit d1490bb7bf, PR #21958, merged 2024-12-24 as
  // f9c3ab03a3, first in 2025.1.0; locator/topology.cc do_sort_by_proximity; sim/cluster/
  // coordination.hpp read_targets). Cassandra orders by its dynamic snitch (dynamic_snitch
  // below); with it off, ties keep the replica order there too.
  bool shuffle_equal_distance_reads = false;
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
  // speculative_retry = 'XXpercentile': how the coordinator keeps its threshold
  // (sim/mech/spec_retry/spec_retry.cpp).
  // ScyllaDB: table::get_coordinator_read_latency_percentile (scylladb/scylladb replica/table.cc,
  // database.cc in older trees) recomputes it on use when more than 1 s has passed, from the
  // table's estimated_coordinator_read histogram (microseconds), truncated to whole ms with a 1 ms
  // floor, then multiplies the histogram's counts by 0.9. Cassandra: the SPECULATION_THRESHOLD_UPDATER
  // task (apache/cassandra CassandraDaemon.java, scheduleWithFixedDelay every read_request_timeout)
  // calls ColumnFamilyStore.updateSpeculationThreshold on the coordinatorReadLatency histogram, a
  // DecayingEstimatedHistogramReservoir (forward decay, HALF_TIME_IN_S = 60); the threshold starts
  // at read_request_timeout / 2 (ColumnFamilyStore constructor) and keeps its value while the
  // histogram is empty. Unspecified: ScyllaDB's.
  SpecThreshold spec_threshold = SpecThreshold::ScyllaLazy;
  // (The dynamic snitch's and heat-weighted load balancing's defaults per release are in their
  // folders: sim/mech/snitch/snitch_config.cpp, sim/mech/hwlb/hwlb_config.cpp.)
};

// The rules of `r`, one row per release.
constexpr ServerRules server_rules(ServerRelease r) {
  ServerRules s;  // unspecified: the member defaults
  if (r == ServerRelease::Unspecified) return s;
  // Every real release starts the coordinator's clock at dequeue and never drops expired work there.
  s.coordinator_clock = CoordinatorClock::Dequeue;
  s.coordinator_drops_expired = false;
  s.scylla = r >= ServerRelease::Scylla2024_1;
  s.tablet_stages = s.scylla;  // the stages of 6.0 and later (tablets' first release) up to f4a4091ca2
  if (!s.scylla) {  // Cassandra
    s.admission_limit = false;
    s.replica_clock = ReplicaClock::Sent;  // conf/cassandra.yaml 4.1, 5.0: internode_timeout: true
    s.read_abort = true;                   // ReadCommandVerbHandler, since 3.10
    s.spec_threshold = SpecThreshold::CassandraPeriodic;  // CassandraDaemon SPECULATION_THRESHOLD_UPDATER
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
    // ScyllaDB: the request rules above are the same in these releases; the tablet rules differ.
    case ServerRelease::Scylla2024_1:
      s.name = "scylla-2024.1";
      s.tablet_count_rule = TabletCountRule::Initial;  // 5.4: initial_tablets only, no resizing
      s.tablet_candidates = CandidateRule::First;  // scylla-5.4.0 tablet_allocator.cc: candidates.begin()
      s.tablet_intranode = false;                   // no make_intranode_plan before db9d3f0128
      break;
    case ServerRelease::Scylla2025_1:
      s.name = "scylla-2025.1";
      s.tablet_count_rule = TabletCountRule::ShardsOverRf;
      s.tablet_scale_factor = 1;
      s.tablet_resize_by_size = true;
      s.tablet_candidates = CandidateRule::Scored;  // PR #19779 (99d0aaa7d2), in 6.2.0 and 2025.1.0
      break;
    case ServerRelease::Scylla2025_2:
      s.name = "scylla-2025.2";
      s.rebuild_repair = true;  // rebuild_v2 (acd32b24d3), first in 2025.2.0
      s.tablet_resize_by_size = true;
      s.tablet_split_on_growth = true;
      s.tablet_goal = BalanceGoal::Capacity;  // c4714180cc, in 2025.2.0 (and 2025.1.1+: backport 51ee15f02d)
      s.tablet_candidates = CandidateRule::Scored;
      break;
    case ServerRelease::Scylla2026_1:
      s.name = "scylla-2026.1";
      s.rebuild_repair = true;
      s.tablet_resize_by_size = true;
      s.tablet_split_on_growth = true;
      s.tablet_target_counts_draining = false;
      s.tablet_goal = BalanceGoal::Size;  // 10eb364821 / merge bbf9ce18ef, first in 2026.1.0
      s.tablet_candidates = CandidateRule::Scored;
      break;
  }
  s.shuffle_equal_distance_reads = r >= ServerRelease::Scylla2025_1;  // PR #21958, 2025.1.0
  return s;
}

// The tablet rules of a release, for sim/cluster/tablets.hpp.
constexpr TabletRules tablet_rules(const ServerRules& s) {
  TabletRules t;
  t.count = s.tablet_count_rule;
  t.scale_factor = s.tablet_scale_factor;
  t.resize_by_size = s.tablet_resize_by_size;
  t.topology_target = s.tablet_split_on_growth;
  t.draining_counts = s.tablet_target_counts_draining;
  return t;
}

// The table option speculative_retry (CQL WITH speculative_retry = '...'), on the coordinator:
// for a read, after `threshold` without the answers the CL needs, one extra data read goes to the
// next replica of its proximity-sorted list (scylladb/scylladb service/storage_proxy.cc
// speculating_read_executor; apache/cassandra service/reads/AbstractReadExecutor.java
// SpeculatingReadExecutor). ALWAYS sends it at once (always_speculating_read_executor /
// AlwaysSpeculatingReadExecutor). Defaults of the servers: ScyllaDB '99.0PERCENTILE'
// (schema/schema.hh: PERCENTILE 0.99), Cassandra '99p' (schema/TableParams.java); lbsim's default is NONE.
enum class SpecRetryMode : std::uint8_t { None, Always, Fixed, Percentile };
struct SpecRetrySpec {
  SpecRetryMode mode = SpecRetryMode::None;
  SimTime fixed = 0;        // Fixed: the threshold
  double percentile = 99;   // Percentile: 0 < p < 100
  std::string option = "NONE";  // as the scenario gives it (reports)
};

// cluster.cache (issue 37): a read cache per node, split into equal per-shard caches under the
// per_shard discipline (a key lives in its owning shard's cache: ScyllaDB's row cache is per shard,
// scylladb/scylladb row_cache.hh). Absent (enabled false): reads cost NodeModelSpec::read and
// nothing below runs. The parser (sim/config/scenario_model.cpp) documents each field's source in
// configs/README.md "cluster.cache".
enum class CacheWriteRule : std::uint8_t {
  Update,      // a write to a cached partition updates the entry in place (it stays cached)
  Invalidate,  // a write drops the partition's entry (the next read misses)
};
enum class CacheInitial : std::uint8_t {
  Warm,  // at t = 0 each cache holds the keys its node replicates, most popular last (as after a
         // CL ALL warm-up that read every key), up to its capacity
  Cold,  // empty
};
struct CacheSpec {
  bool enabled = false;
  double capacity_bytes = 0;                      // per node (per_shard: capacity / shards per shard)
  Dist partition_size = Dist::constant(1024);     // bytes per cached partition, one draw per key
  Dist hit = Dist::lognormal(200000, 1000000);    // replica read CPU on a cache hit
  Dist miss = Dist::lognormal(200000, 1000000);   // replica read CPU on a miss (the disk reads add to it)
  std::uint32_t sstables_per_read = 1;            // A: disk reads per miss
  CacheWriteRule writes = CacheWriteRule::Update;
  CacheInitial initial = CacheInitial::Warm;
};

// cluster.disk (issue 37): one disk per node that queues the cache misses' reads (FIFO, in arrival
// order). Each read occupies it for 1/read_iops + bytes/read_bandwidth (the two capacities of
// ScyllaDB's I/O scheduler, measured by iotune: io_properties.yaml read_iops, read_bandwidth) and
// then takes the device latency outside the queue. Enabled by cluster.cache.
struct DiskSpec {
  bool enabled = false;
  double read_iops = 0;       // reads per second; 0: no IOPS bound
  double read_bandwidth = 0;  // bytes per second; 0: no bandwidth bound
  Dist latency = Dist::constant(0);
};

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
  // cluster.speculative_retry (the table option; default NONE: no extra read, no event, no draw).
  SpecRetrySpec speculative_retry;
  CacheSpec cache;     // cluster.cache
  DiskSpec disk;       // cluster.disk
  // The specs of the mechanisms that keep theirs in their folders (sim/mech/specs.inc).
  MechSpecs mech;
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

// Java driver ConstantSpeculativeExecutionPolicy(delay, max): after `delay` without an answer
// another execution goes to the next host of the plan, at most `max_speculative` extra ones.
// Where a speculative execution takes its host. Plan: the next host of the operation's query plan
// (Java 3.x RequestHandler and 4.x CqlRequestHandler share one plan between executions; gocql since
// apache/cassandra-gocql-driver PR #1531, the fix of issue #1530, 2021). NewPlan: gocql before that
// fix: each speculative execution iterated a host iterator of its own from the policy's Pick, so with
// token awareness it usually started on the same host as the first execution (issue #1530). lbsim
// takes the first usable host of a fresh plan; that execution's own retries go on in the shared plan.
enum class SpecHostSource : std::uint8_t { Plan, NewPlan };
// Constant: ConstantSpeculativeExecutionPolicy (Java 3.x and 4.x, gocql SimpleSpeculativeExecution).
// Percentile: Java 3.x PercentileSpeculativeExecutionPolicy(tracker, percentile, max): the delay is
// the tracker's latency at the percentile for the host the execution queries (per host) or for the
// cluster, -1 (no speculation) until the tracker has an interval of at least `min_recorded` values
// (sim/client/percentile_tracker.hpp cites the source). Java 4.x has no percentile policy in the
// driver core (apache/cassandra-java-driver internal/core/specex: Constant and No only).
enum class SpecKind : std::uint8_t { Constant, Percentile };
struct SpeculativeSpec {
  bool enabled = false;
  SpecKind kind = SpecKind::Constant;
  SimTime delay = 50 * kMs;
  std::uint32_t max_speculative = 1;
  SpecHostSource host = SpecHostSource::Plan;
  // Percentile only (PercentileTracker.Builder defaults: minRecordedValues 1000, interval 5 min;
  // highestTrackableLatencyMillis has no default, see configs/README.md).
  double percentile = 99.0;
  bool per_host = true;  // PerHostPercentileTracker; false: ClusterWidePercentileTracker
  std::uint32_t min_recorded = 1000;
  SimTime interval = 300 * kSec;
  std::int64_t highest_trackable_ms = 15000;
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

// How the driver notices that a node went down silently or came back (faults.driver_detection):
// `Fixed` after faults.driver_detection_ms (lbsim's original rule); `Driver` by the driver's own
// mechanisms (sim/mech/detect/detect.cpp): idle heartbeats and their timeouts, the cluster's DOWN
// events where the driver heeds them, Node.js's timed-out-request threshold, and the reconnection
// schedule.
enum class DetectionMode : std::uint8_t { Fixed, Driver };
// Whose defaults: Auto takes the driver of the policy being run (policies/registry.hpp).
enum class DetectDriver : std::uint8_t { Auto, Java3, Java4, Python, Go, Rust, Nodejs };

// faults.heartbeat: overrides of the driver's defaults (0 = the driver's default).
struct HeartbeatSpec {
  DetectDriver driver = DetectDriver::Auto;
  SimTime interval = 0;        // heartbeat / keepalive interval
  SimTime timeout = 0;         // how long a heartbeat waits for its answer
  SimTime reconnect_base = 0;  // the reconnection policy's first delay
  SimTime reconnect_max = 0;   // its cap
};

struct FaultSpec {
  SimTime driver_detection = kSec;  // Fixed: until the driver marks a node down/up (policy on_down/on_up)
  SimTime server_detection = kSec;  // until coordinators (gossip) see it
  DetectionMode detection = DetectionMode::Fixed;
  HeartbeatSpec heartbeat;          // Driver only
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
  // The tablet table's data in MiB (changes.migration.table_size_mb), one replica's worth: each
  // tablet holds it over the release's current count. 0: only the fixed latency.
  double table_size_mb = 0;
  // The refused changes.migration.tablet_size_mb, kept until the count it needs is known (then
  // ConfigError at legacy_tablet_size_path, naming the table_size_mb that replaces it); < 0: absent.
  double legacy_tablet_size_mb = -1;
  std::string legacy_tablet_size_path;
  double stream_mb_s = 100;        // one stream's own bound (a sender -> receiver pair)
  // Streaming cost (sim/mech/placement/streaming.cpp); all 0 by default: a stream then takes
  // size / stream_mb_s and costs nothing else (the earlier model).
  // Per-node streaming bandwidth, shared max-min fairly by the node's streams, sent and received
  // together: ScyllaDB's stream_io_throughput_mb_per_sec (db/config.cc, MiB/s, 0 = unthrottled,
  // the default). 0: no node bound.
  double node_stream_mb_s = 0;
  // CPU per MB streamed, on the sending and on the receiving replica's tablet shard, as work in
  // the shard's queue that competes with requests. No default from a measurement: see
  // configs/README.md (scylladb/scylladb#20921 gives an upper bound for the sender).
  double cpu_send_us_per_mb = 0;
  double cpu_receive_us_per_mb = 0;
  bool stream_cost() const { return node_stream_mb_s > 0 || cpu_send_us_per_mb > 0 || cpu_receive_us_per_mb > 0; }
  // scylladb/scylladb db/config.cc:
  std::uint32_t max_in_per_shard = 2;   // tablet_streaming_write_concurrency_per_shard
  std::uint32_t max_out_per_shard = 2;  // tablet_streaming_read_concurrency_per_shard
  // Vnode keyspaces: how long one ring change streams before ownership switches.
  SimTime streaming = 0;
  bool any() const { return !events.empty(); }
};

}  // namespace lbsim
