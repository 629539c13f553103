// The client (the load generator and its driver): where it sits, how it offers load, and what
// its CPU spends per operation. Plain data built by the scenario parser; every parameter and its
// default is documented in configs/README.md ("client").
#pragma once
#include <cstdint>
#include <string>

#include "sim/core/time.hpp"
#include "sim/workload/distribution.hpp"

namespace lbsim {

// Figures of scripts/calibrate/RngContention.java on the development machine (AMD EPYC, 2 vCPUs,
// OpenJDK 17.0.15, 2026-11-30; configs/README.md, "client"): nextInt(3) on one thread (2.85-2.98
// and 4.10 ns in three runs), and two threads drawing from one java.util.Random in a tight loop
// (line_transfer = per-draw time / 2 - shared draw: 15.95 and 18.53 ns in the two runs whose
// cache-line hand-off measured 35 ns, the vCPUs on nearby cores).
inline constexpr double kMeasuredThreadLocalDrawNs = 2.9;
inline constexpr double kMeasuredSharedDrawNs = 4.1;
inline constexpr double kMeasuredLineTransferNs = 17.2;

enum class LoadMode : std::uint8_t { Closed, Open };
// How requests reach a ScyllaDB shard (scylladb/scylladb docs/dev/protocol-extensions.md,
// "Intranode sharding": the shard-aware port maps source port mod nr_shards to the shard;
// transport/generic_server.cc: port 9042 gives a new connection the shard with the fewest
// connections).
// None: no connection model; a routed request's work lands on its token's shard (idealised).
// ShardAware: the shard-aware port, one connection per shard per host; a routed request goes to
// its token's shard, an unrouted one to a random shard. Plain: port 9042, `pool_size`
// connections per host, each on the shard that had the fewest connections when it was opened; a
// request goes to the least busy connection and runs on that connection's shard.
enum class Connections : std::uint8_t { None, ShardAware, Plain };
// A full connection: Java 3.x throws BusyPoolException and the plan moves to the next host;
// gocql's override takes the host's least busy connection (another shard) instead.
enum class OnBusy : std::uint8_t { NextHost, LeastBusy };
// A tablet-aware driver's route for a key whose tablet it does not know yet: the vnode token map
// (Java 3.x Metadata.getReplicas after TabletMap in scylladb/java-driver scylla-3.x; Java 4.x
// DefaultTabletMap then TokenMap in scylla-4.x; Python cassandra/policies.py; Go scylladb/gocql
// policies.go) or no token awareness at all (Rust: scylladb/scylla-rust-driver
// scylla/src/routing/locator/tablets.rs returns no replicas for an unknown tablet of a tablet
// table, so the plan is a random node and shard).
enum class TabletFallback : std::uint8_t { Ring, Random };
enum class Arrivals : std::uint8_t { Poisson, Constant };

struct ClientSpec {
  std::string dc;               // the client's datacenter (network locality, CL checks)
  std::string rack;             // optional; "" = no rack (same-DC latency to every local node)
  std::uint32_t dc_index = 0;
  std::int32_t rack_index = -1;  // index into Topology::racks, -1 when none

  LoadMode mode = LoadMode::Closed;
  std::uint32_t threads = 200;   // closed loop: concurrent client threads (cassandra-stress -rate threads=)
  double rate = 0;               // open loop: operations per second
  Arrivals arrivals = Arrivals::Poisson;
  Dist think = Dist::constant(0);  // closed loop: pause between an answer and the next operation
  std::uint32_t max_in_flight = 8192;  // open loop: more outstanding operations fail ClientBusy
  // cassandra-stress -errors retries=N: the load generator runs a failed operation again, through
  // the driver again, up to N more times (apache/cassandra tools/stress SettingsErrors.java:
  // tries = retries + 1, default retries=9; Operation.timeWithRetry). 0: lbsim's default, the
  // application sees the driver's failure.
  std::uint32_t stress_retries = 0;

  std::uint32_t cores = 8;        // client CPU cores; 0 = unlimited (no CPU model)
  Dist driver_cost = Dist::constant(20000);  // CPU per operation: encode, decode, futures (ns)
  double response_share = 0.5;    // part of driver_cost charged after the response arrives (decoding)
  double plan_ns = 200;           // CPU to create a query plan
  double plan_host_ns = 30;       // CPU per host taken from a plan
  // Random generators (sim/client/client_cpu.hpp). Defaults measured by `scripts/dev calibrate`;
  // provenance in configs/README.md ("client").
  double thread_local_draw_ns = kMeasuredThreadLocalDrawNs;  // ThreadLocalRandom.nextInt
  double shared_draw_ns = kMeasuredSharedDrawNs;             // java.util.Random.nextInt, line local
  double line_transfer_ns = kMeasuredLineTransferNs;         // moving the seed's cache line between cores

  // Connections (per_shard discipline only).
  Connections connections = Connections::None;
  std::uint32_t pool_size = 0;                 // plain: connections per host; 0 = one per shard
  std::uint32_t max_requests_local = 1024;     // in-flight cap per connection to a local-DC host
  std::uint32_t max_requests_remote = 256;     // ... to a remote-DC host (Java 3.x PoolingOptions)
  OnBusy on_busy = OnBusy::NextHost;
  // Tablet keyspaces: the driver's tablet cache starts full (warm) or empty (cold, learnt from
  // the tablets-routing-v1 payloads); learn_from "reads" models Java 4.x before 4.19.0.1, which
  // updated it from SELECT results only (scylladb/java-driver#498).
  bool tablet_cache_warm = true;
  bool tablet_learn_writes = true;
  TabletFallback tablet_fallback = TabletFallback::Ring;
};

}  // namespace lbsim
