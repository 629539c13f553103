// The outcome of one simulation run (one scenario, one policy, one seed): plain data filled by
// the engine and turned into text and JSON by sim/report. Only the `engine` member depends on the
// machine (wall time, memory); everything else is a pure function of scenario, policy and seed.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/time.hpp"
#include "sim/metrics/histogram.hpp"
#include "sim/metrics/timeline.hpp"

namespace lbsim {

// Lwt: a lightweight transaction (compare-and-set write through Paxos).
enum class OpKind : std::uint8_t { Read = 0, Write = 1, Lwt = 2 };
inline constexpr std::size_t kOpKinds = 3;
constexpr std::string_view op_name(OpKind k) {
  return k == OpKind::Read ? "read" : (k == OpKind::Write ? "write" : "lwt");
}

// Why an operation failed, as the application sees it (after retries).
enum class ErrorKind : std::uint8_t {
  Unavailable,      // too few live replicas for the CL (server-side view)
  ReadTimeout,      // coordinator read timeout (timeouts.read_ms)
  WriteTimeout,     // coordinator write timeout (timeouts.write_ms)
  ClientTimeout,    // no answer within timeouts.client_ms on the last attempt
  NoHostAvailable,  // the query plan ran out of hosts
  ClientBusy,       // open loop: more than client.max_in_flight operations outstanding
  Overloaded,       // the server shed the request unexecuted: ScyllaDB's OVERLOADED (admission limit),
                    // Cassandra 5.0's OverloadedException (native_transport_timeout)
};
inline constexpr std::size_t kErrorKinds = 7;
constexpr std::string_view error_name(ErrorKind k) {
  constexpr std::string_view names[] = {"unavailable",    "read_timeout",      "write_timeout",
                                        "client_timeout", "no_host_available", "client_busy",
                                        "overloaded"};
  return names[static_cast<std::size_t>(k)];
}

struct OpStats {
  std::uint64_t ops = 0;   // successful operations in the measurement window
  std::uint64_t rows = 0;  // rows written or read by them
  std::array<std::uint64_t, kErrorKinds> errors{};
  LatencyHistogram latency;  // successful operations only
  std::uint64_t error_total() const {
    std::uint64_t s = 0;
    for (auto e : errors) s += e;
    return s;
  }
};

// One shard of a node (per_shard discipline with more than one shard).
struct ShardResult {
  std::uint64_t coordinator_ops = 0;   // requests coordinated on this shard
  std::uint64_t replica_ops = 0;       // replica work items this shard owned and served
  std::uint64_t cross_shard_hops = 0;  // replica work that arrived here and was handed to its owner
  std::uint64_t requests = 0;          // requests the client sent over its connections to this shard
  std::uint64_t busy_rejections = 0;   // requests refused because the connection to this shard was full
  double utilization = 0;              // busy time inside the window / window
};

// The client's connections to one node (client.connections shard_aware or plain).
struct ConnectionStats {
  std::uint32_t count = 0;
  std::uint64_t requests = 0, requests_min = 0, requests_max = 0;  // sent in the window
  std::uint32_t peak_in_flight = 0;                                // over the run
};

// Tablet migrations' streaming on one node in the window (sim/mech/placement/streaming.cpp).
struct NodeStreaming {
  double seconds = 0;      // time with at least one stream sending from or receiving on the node
  double sent_mb = 0;      // MB the node sent (over the network)
  double received_mb = 0;  // MB the node received
};

// A node's cache in the window (cluster.cache, issue 37; sim/mech/cache/cache.cpp): replica reads
// (data and digest) that hit or missed, the disk reads of the misses and the disk's occupancy.
struct NodeCache {
  std::uint64_t hits = 0, misses = 0, disk_reads = 0;
  double hit_rate = 0;          // hits / (hits + misses); 0 without reads
  double misses_per_s = 0;
  double disk_utilization = 0;  // disk busy time / window (0 without cluster.disk)
};

// The caches of all nodes (cluster.cache; results/README.md "cache").
struct CacheSummary {
  double hit_rate = 0;         // all nodes' hits / lookups in the window
  double misses_per_s = 0;     // all nodes' misses per second of the window
  // The overcommit of misses across nodes: the busiest node's misses per second over the mean of
  // all nodes' (1: every disk gets the same share of the misses; 0 without misses).
  double miss_overcommit = 0;
  // At the end of the run: cached entries over distinct keys cached anywhere, the mean number of
  // nodes holding a cached key (1: each key cached once; RF: on every replica).
  double copies_per_key = 0;
  std::uint64_t keys_cached = 0;  // distinct keys cached anywhere at the end of the run
};

struct NodeResult {
  std::string id, dc, rack;
  std::uint64_t coordinator_ops = 0;  // attempts that reached the node as coordinator
  std::uint64_t replica_reads = 0;    // replica read work items served
  std::uint64_t replica_writes = 0;   // replica write work items served
  std::uint64_t cross_shard_hops = 0;  // replica work items that arrived on a shard not owning them
  std::uint64_t busy_rejections = 0;   // attempts the client skipped this host for: connection full
  std::optional<ConnectionStats> connections;
  std::vector<ShardResult> shards;     // per_shard with more than one shard
  std::uint64_t dropped_coordinator = 0;  // requests shed unexecuted by the coordinator (expired)
  std::uint64_t dropped_reads = 0;    // replica reads shed unexecuted (expired while queued)
  std::uint64_t dropped_writes = 0;   // replica writes shed unexecuted
  double utilization = 0;             // busy server time inside the window / (servers x window)
  double mean_queue = 0;              // time-average number of work items waiting or in service
  std::optional<NodeStreaming> streaming;  // tablet runs with migrations (see TabletResult)
  std::optional<NodeCache> cache;          // with cluster.cache only
};

struct ClientResult {
  // How the load was offered: an open loop (arrivals at `rate_ops_s`, or at a trace's own times
  // when that is 0) or `threads` closed-loop threads. Decides which cause a throughput difference
  // between policies has (sim/report/compare.hpp, comparability_warnings).
  bool open_loop = false;
  std::uint32_t threads = 0;
  double rate_ops_s = 0;
  double cpu_utilization = 0;      // busy core time inside the window / (cores x window); 0 with unlimited cores
  double shared_rng_s = 0;         // core time spent in (or spinning on) the shared generator
  double shared_rng_cpu_fraction = 0;
  std::uint64_t shared_draws = 0;
  std::uint64_t thread_local_draws = 0;
  std::uint64_t retries = 0;       // attempts after the first because of an error
  std::uint64_t speculative = 0;   // speculative executions started
  std::uint64_t stress_retries = 0;  // cassandra-stress re-executions of failed operations (client.stress_retries)
  // With speculative executions on: those sent to the host of the operation's first execution
  // (apache/cassandra-gocql-driver#1530); reported only then.
  std::optional<std::uint64_t> speculative_same_host;
  // With speculative.kind "percentile": the executions for which the tracker had no delay yet
  // (fewer than min_recorded values in its last interval, or none), so none was scheduled.
  std::optional<std::uint64_t> speculative_no_delay;
};

// A policy whose replica_source is a driver's own map (gocql, python-3.25, nodejs-4.10): how often
// that map's list repeats a host, and the retries the plans sent back to the host that had just
// failed. Present only then.
struct ReplicaMapResult {
  std::uint64_t ops = 0;       // routed operations started (whole run)
  std::uint64_t repeated = 0;  // of them, those whose driver list names a host twice
  std::uint64_t retries = 0;   // retries to the plan's next host (not same-host retry decisions)
  std::uint64_t retries_same_host = 0;  // of them, sent to the host of the attempt before
};

// Tablet keyspaces: the driver's routing against the tablet map, in the measurement window
// (tablets-routing-v1: scylladb/scylladb docs/dev/protocol-extensions.md and locator/tablets.cc
// check_locality), and the migrations of the whole run.
struct TabletResult {
  std::uint64_t tablets = 0;          // tablet count at the end of the run
  std::uint64_t count_start = 0;      // tablet count at the start of the run
  // The table's data (changes.migration.table_size_mb, MiB) and one tablet's at the start: the
  // count and size the release's rules (`server`, cluster.server) derive from it.
  double table_mb = 0, tablet_mb_start = 0;
  std::string server;
  std::uint64_t splits = 0, merges = 0;  // resizes finalized during the run (whole run)
  std::uint64_t fallback = 0;         // operations routed without a cached tablet (driver fallback)
  std::uint64_t non_replica = 0;      // attempts whose coordinator held no replica of the tablet
  std::uint64_t wrong_shard = 0;      // attempts reaching a replica on another shard than the tablet's
  std::uint64_t payloads = 0;         // answers carrying the tablet's replicas (misroutes)
  std::uint64_t cache_updates = 0;    // payloads merged into the driver's cache
  std::uint64_t migrations_started = 0, migrations_done = 0;  // whole run
  std::vector<std::uint32_t> node_replicas;  // tablet replicas per node at the end of the run
  // The map's balance at the end of the run (sim/cluster/tablet_balancer.hpp balance_stats: scylla
  // perf-load-balancing's overcommit, max load / ideal, and the best achievable).
  double overcommit_node = 0, overcommit_shard = 0, best_node = 0, best_shard = 0;
};

// A scenario event on the time axis: a fault or a topology change, at its scenario time (what the
// scenario's "at_s" says, not relative to the measurement window).
struct ScenarioEvent {
  SimTime at = 0;
  // down, up (a down node back: a restart), slow, slow_end, pause, pause_end, add_node,
  // decommission, remove_node
  std::string kind;
  std::vector<std::string> nodes;  // node ids
  double factor = 0;               // slow: the service-time multiplier
  int shard = -1;                  // slow: the one shard slowed, -1 the whole node
};

struct EngineResult {
  std::uint64_t events = 0;
  double wall_s = 0;
  double ops_per_wall_s = 0;
  double ns_per_op = 0;
  double peak_rss_mb = 0;
  bool draw_ahead = false;  // operations were drawn ahead to prefetch their lookups (large rings)
  bool hooked = true;       // the hooked copy of the request path ran (no mechanism: the bare one)
};

// cluster.speculative_retry, when not NONE: the coordinators' speculative reads over the whole run.
struct SpecRetryResult {
  std::string option;               // the table option as given
  std::uint64_t reads = 0;          // extra replica reads sent (ALWAYS: one per read that had a replica to spare)
  std::vector<double> threshold_ms; // percentile form: each coordinator's threshold at the end (NodeId order)
};

// faults.driver_detection "driver": when the driver marked each node down or up, and what told it
// (sim/mech/detect/detect.cpp), over the whole run, in time order.
struct DetectionEvent {
  double at_s = 0;
  std::string node;
  bool up = false;
  std::string by;  // down: "heartbeat", "event", "timeouts", "connection"; up: "reconnect", "event"
};
struct DetectionResult {
  std::string driver;  // whose defaults: java3, java4, python, go, rust, nodejs
  double interval_ms = 0, timeout_ms = 0;
  std::vector<DetectionEvent> events;
};

// One loader of a scenario with `clients` (issue 36): its share of the combined figures, in the
// measurement window. Its operations' counts and latencies sum (merge) to the run's; its
// coordinator_ops sum to nodes[].coordinator_ops.
struct LoaderResult {
  std::string name, dc, rack;
  std::string policy;  // the policy it ran: the one under comparison, a `policies` name, or "inline"
  bool open_loop = false;
  std::uint32_t threads = 0;
  double rate_ops_s = 0;
  std::array<OpStats, kOpKinds> by_op;
  LatencyHistogram latency;  // its successful operations
  std::vector<std::uint64_t> coordinator_ops;  // per node (NodeId order): its attempts that reached it
  double cpu_utilization = 0;
  std::uint64_t ops() const { return by_op[0].ops + by_op[1].ops + by_op[2].ops; }
  std::uint64_t errors() const { return by_op[0].error_total() + by_op[1].error_total() + by_op[2].error_total(); }
};

struct RunResult {
  std::string scenario;
  std::string scenario_hash;  // FNV-1a of the scenario document as run (after --set patches)
  std::string policy_name;
  std::int64_t policy_index = -1;  // position in the scenario's "policies" (-1: unknown)
  nlohmann::ordered_json policy_spec;
  std::uint64_t seed = 0;

  std::uint64_t issued = 0;     // operations started (warm-up included)
  std::uint64_t completed = 0;  // finished successfully (warm-up included)
  std::uint64_t failed = 0;     // finished with an error (warm-up included)
  std::uint64_t warmup_ops = 0; // operations that finished during the warm-up
  SimTime window_start = 0;     // simulated time the measurement window opened
  SimTime window = 0;           // length of the measurement window
  SimTime end = 0;              // simulated time of the last event

  std::array<OpStats, kOpKinds> by_op;
  LatencyHistogram latency;     // all successful measured operations
  std::vector<NodeResult> nodes;
  std::uint64_t coordinator_total = 0;  // sum of nodes[].coordinator_ops
  ClientResult client;
  Timeline timeline;
  std::vector<ScenarioEvent> events;  // in time order; those at or before `end`
  std::optional<TabletResult> tablets;
  std::optional<CacheSummary> cache;  // with cluster.cache only
  std::optional<SpecRetryResult> speculative_retry;
  std::optional<ReplicaMapResult> replica_map;
  std::optional<DetectionResult> detection;  // faults.driver_detection "driver" only
  // Report sections that a mechanism writes itself (Mechanism::collect), without a typed field
  // here: each becomes the report's key `key` (after "cache", in the order of
  // sim/mech/mechanisms.inc) and its text lines follow the text report's cache block. A new
  // mechanism's section needs no shared file.
  struct Section {
    std::string key;
    nlohmann::ordered_json json;
    std::vector<std::string> text;
  };
  std::vector<Section> mechanism_sections;
  std::vector<LoaderResult> loaders;  // `clients` only; empty with one client
  EngineResult engine;
  std::vector<std::string> warnings;

  std::uint64_t measured_ops() const { return by_op[0].ops + by_op[1].ops + by_op[2].ops; }
  std::uint64_t measured_errors() const {
    return by_op[0].error_total() + by_op[1].error_total() + by_op[2].error_total();
  }
  double throughput() const {
    return window > 0 ? static_cast<double>(measured_ops()) / to_sec(window) : 0.0;
  }
};

}  // namespace lbsim
