// The core's records (sim/engine/sim_impl.hpp names them Simulation::Impl::Op and so on): the
// payloads of the event slabs, one per operation, attempt, coordinator request and replica job in
// flight, and the small per-connection and per-detection records. Sized and aligned for the
// cache (issue 14): their layouts are part of the engine's speed, asserted below.
#pragma once
#include <array>
#include <cstdint>

#include "policies/policy.hpp"
#include "sim/cluster/ring.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/time.hpp"
#include "sim/metrics/run_result.hpp"

namespace lbsim::core_records {

inline constexpr std::uint32_t kNoConn = 0xffffffffu;
inline constexpr std::uint32_t kNoAnswer = 0xffffffffu;
inline constexpr std::uint32_t kNoThread = 0xffffffffu;

// Two cache lines, 128-byte aligned (one aligned pair, which adjacent-line prefetchers fetch
// together): the arena's header, its 96-byte inline chunk and the draw counts. Was three lines (a
// 128-byte chunk). Measured at 10,000 client threads (issue 14): cachegrind with a 512 KiB last
// level counts 8% fewer last-level misses, 1.1 per operation; the wall clock showed no change on
// a loaded machine; 62 bytes less per operation in flight.
struct alignas(128) OpExtra {
  explicit OpExtra(Rng& r) : rnd(r) {}
  policy::PlanArena arena;
  policy::PlanRandom rnd;
};
static_assert(sizeof(OpExtra) == 128);
// One aligned cache line, as CoordReq (issue 14): read cold when an answer reaches the client.
struct alignas(64) Op {  // fields ordered by size (one per operation in flight)
  SimTime start = 0;
  Token token = 0;
  SimTime decode_ns = 0;        // the response side of this operation's driver cost
  policy::Plan* plan = nullptr;
  std::uint32_t gen = 0;
  std::uint32_t range = 0;
  std::uint32_t thread = kNoThread;
  std::uint32_t rows = 1;
  std::uint32_t shared_charged = 0, tl_charged = 0;
  OpKind kind = OpKind::Read;
  ConsistencyLevel cl = ConsistencyLevel::LocalOne;
  ErrorKind answer_error = ErrorKind::Unavailable;
  std::uint8_t alive = 0;       // attempts alive
  std::uint8_t executions = 0;  // attempts started
  std::uint8_t unavailable_retries = 0;
  std::uint8_t error_retries = 0;
  bool routed : 1 = true;
  bool done : 1 = false;
  bool decoding : 1 = false;        // an answer is being decoded on the client CPU (kDecoded pending)
  bool answer_success : 1 = false;  // that answer
  // That answer is a ReadTimeout with enough replicas answered but not the data one (the
  // server's received >= blockFor && !data_present; only with a driver retry policy).
  bool answer_no_data : 1 = false;
};
static_assert(sizeof(Op) == 64);
// 32 bytes, aligned: read cold when its answer arrives.
struct alignas(32) Attempt {
  SimTime sent = 0;
  std::uint32_t gen = 0;
  std::uint32_t op = 0, op_gen = 0;
  NodeId host = 0;
  std::uint32_t conn = kNoConn;  // index into conns_ (kNoConn without a connection model)
  std::uint16_t shard = 0;       // the shard the request is sent to (its connection's)
  bool alive = false;
  // Ended by its client timeout, yet still in flight on its host and connection until its late
  // answer or its connection's close (Loader::lingers); its slot is held until then, and `op`
  // then holds its loader's index (the operation may have ended and its slot been reused).
  bool lingering = false;
};
static_assert(sizeof(Attempt) == 32);
// One cache line, aligned (issue 14): at 10,000 client threads a request is read cold when its
// coordinator work ends, when each replica answers and when its answer reaches the client; at
// 96 bytes each of those cost two lines. EACH_QUORUM's per-DC counts live in cr_per_dc_.
struct alignas(64) CoordReq {  // fields ordered by size (one per request in flight)
  Token token = 0;
  SimTime deadline = 0;   // the coordinator's read/write timeout instant, fixed once (ServerRules)
  std::uint32_t gen = 0;
  std::uint32_t attempt = 0, attempt_gen = 0;
  NodeId node = 0;
  std::uint32_t epoch = 0;
  std::uint32_t range = 0;
  std::uint32_t rows = 1;
  // The two earliest answer times scheduled so far that will count toward the CL, as ns after
  // the replicas were sent to (kNoAnswer: none); see answer_needed().
  std::array<std::uint32_t, 2> answers{kNoAnswer, kNoAnswer};
  std::uint16_t shard = 0;       // shards <= 1024
  // What the consistency level asks for (ClNeed, sim/cluster/coordination.hpp, without per_dc).
  std::uint16_t need_total = 1;
  std::uint8_t got = 0;          // responses counted toward the CL (at most 64 targets)
  std::uint8_t pending = 0;      // events carrying this slot
  std::uint8_t outstanding = 0;  // replica jobs not yet accounted
  OpKind kind = OpKind::Read;
  ConsistencyLevel cl = ConsistencyLevel::LocalOne;
  ErrorKind error = ErrorKind::Unavailable;
  // LWT: the Paxos round in progress (0 prepare .. 3 commit). Reads: 1 once the data replica has
  // answered (a read completes with enough answers and the data: Cassandra ReadCallback, ScyllaDB
  // digest_read_resolver).
  std::uint8_t phase = 0;
  bool done : 1 = false;         // answered or abandoned
  bool success : 1 = false;      // the answer being delivered
  bool shed : 1 = false;         // the coordinator dropped it unexecuted (expired in its queue)
  bool routed : 1 = true;        // the statement has a routing key
  bool payload : 1 = false;      // tablets: the answer carries tablets-routing-v1 (misrouted)
  bool need_local_only : 1 = false;
  bool need_each : 1 = false;
  bool admitted : 1 = false;     // counted in admitted_ (cluster.max_concurrent_requests_per_shard)
};
static_assert(sizeof(CoordReq) == 64);
// 32 bytes, aligned: a replica job is read cold when its answer arrives (10,000 client
// threads), and then costs one cache line, not two (issue 14).
struct alignas(32) Job {
  std::uint32_t gen = 0;
  std::uint32_t cr = 0;
  NodeId node = 0;
  std::uint32_t epoch = 0;
  SimTime end = 0;            // until its service is scheduled: the work's expiry (enqueue_replica)
  std::uint16_t owner = 0;    // the shard owning the token on this node (shards <= 1024)
  std::uint16_t arrival = 0;  // the shard the work arrives on
  std::uint8_t phase = 0;     // LWT: the Paxos round it belongs to
  bool hopped : 1 = false;       // the arrival shard's half of a hop is done
  bool answer_lane : 1 = false;  // its answer went to answer_lane(node, owner)
  bool data : 1 = false;         // a read's data request (the first target); the others are digests
  // A job that a replica_service strategy kept (hooks.hpp) and sent back (kReplicaArrive) for its
  // CPU part: the cache's missed read whose disk reads are done (sim/mech/cache).
  bool parked_done : 1 = false;
};
static_assert(sizeof(Job) == 32);
// One driver connection to (host, shard): requests in flight and served (per_shard only).
struct Conn {
  std::uint32_t shard = 0;
  std::int32_t in_flight = 0;
  std::int32_t peak = 0;
  std::uint64_t requests = 0;
};
// Per (node, shard) counts for the per-shard report.
struct ShardCounts {
  std::uint64_t coordinator = 0, replica = 0, hops = 0;
  std::uint64_t requests = 0, busy = 0;  // sent over, or refused by, a connection to this shard
};
struct Detection {
  SimTime at;
  NodeId node;
  bool up;
  bool driver;  // false: server (gossip) view
  const TokenRing* ring = nullptr;  // vnode changes: the driver's token map from then on
  // Driver detections of topology changes: +1 the node joins the driver's metadata (known), -1
  // it leaves it (ClusterView::is_known); 0 a state change only.
  std::int8_t member = 0;
};

}  // namespace lbsim::core_records
