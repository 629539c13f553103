// The load-balancing policy interface: a request in, a lazy query plan out.
//
// Contract (modelled on Java driver 3.x LoadBalancingPolicy):
// - A policy sees the cluster only through a read-only ClusterView (hosts with DC, rack, the
//   driver's up/down view and the client's in-flight count per host). It keeps any other state
//   itself, fed by explicit calls: on_up/on_down, on_request_sent, on_response.
// - new_plan() returns a lazy Plan built in the caller's PlanArena. Work that the driver does
//   lazily (TokenAwarePolicy building its child plan only when the replicas run out) is lazy here
//   too, so round-robin indexes advance exactly as in the driver.
// - Randomness comes only from the PlanRandom passed in, which counts draws by the generator they
//   model (a shared java.util.Random or a thread-local one) so the client model can charge them.
// - new_plan() and Plan::next() do not allocate in steady state (the arena reuses its memory).
//   The PlanRandom and PlanArena given to new_plan() must outlive the plan: a lazily built child
//   plan is made in the same arena and its draws are counted in the same PlanRandom.
// - distance() changes only inside init(), on_up(), on_down() and restore_state(), so a wrapper
//   may cache its child's distances after forwarding one of those calls.
// - Policies compose as decorators: a wrapper holds its child as a std::unique_ptr<Policy> and
//   forwards every event (including restore_state) to it.
#pragma once
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <array>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/cluster/consistency.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/cluster/shard.hpp"
#include "sim/cluster/topology.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/time.hpp"

namespace lbsim::policy {

using HostId = NodeId;
inline constexpr HostId kNoHost = kNoNode;

// Java driver HostDistance; the order matters (LOCAL < REMOTE < IGNORED).
enum class Distance : std::uint8_t { Local, Remote, Ignored };

// What the driver currently believes about each host. Owned by the simulator (or `lbsim plan`);
// policies hold a const pointer to it.
// A host is known while it is a member of the driver's metadata (the control connection's
// system.peers and its topology events): a node of the topology that has not joined yet (a
// `changes` add_node) is unknown until the driver detects it, and a decommissioned or removed one
// becomes unknown when the driver learns of its removal. An unknown host is also down. The
// topology lists every node, future ones included, so a policy that lists hosts from it, or that
// hands out down hosts, skips the unknown ones: no driver plans a host it has never heard of.
class ClusterView {
 public:
  explicit ClusterView(const Topology& topo)
      : topo_(&topo), up_(topo.size(), 1), known_(topo.size(), 1), in_flight_(topo.size(), 0) {}
  const Topology& topology() const { return *topo_; }
  std::size_t size() const { return topo_->size(); }
  std::uint32_t dc(HostId h) const { return topo_->node_dc[h]; }
  std::uint32_t rack(HostId h) const { return topo_->node_rack[h]; }
  bool is_up(HostId h) const { return up_[h] != 0; }
  bool is_known(HostId h) const { return known_[h] != 0; }
  // Counts set_known() changes: a policy that keeps lists of the known hosts rebuilds them when it
  // moves.
  std::uint64_t members_version() const { return members_version_; }
  std::int32_t in_flight(HostId h) const { return in_flight_[h]; }
  // ScyllaDB sharding as the driver learns it from the SUPPORTED frame (1 shard for Cassandra),
  // and the in-flight requests on each (host, shard): the Scylla Java driver's
  // Metrics.getPerShardInflightRequestInfo().
  Sharding sharding() const { return sharding_; }
  std::int32_t in_flight_on_shard(HostId h, std::uint32_t shard) const {
    return shard < sharding_.nr_shards ? shard_in_flight_[h * sharding_.nr_shards + shard] : 0;
  }

  void set_up(HostId h, bool up) { up_[h] = up ? 1 : 0; }
  // A host joins (true) or leaves (false) the driver's metadata; it is marked down separately.
  void set_known(HostId h, bool known) {
    if ((known_[h] != 0) == known) return;
    known_[h] = known ? 1 : 0;
    ++members_version_;
  }
  void set_in_flight(HostId h, std::int32_t n) { in_flight_[h] = n; }
  void add_in_flight(HostId h, std::int32_t delta) { in_flight_[h] += delta; }
  void set_sharding(Sharding s) {
    sharding_ = s;
    shard_in_flight_.assign(topo_->size() * s.nr_shards, 0);
  }
  void set_in_flight_on_shard(HostId h, std::uint32_t shard, std::int32_t n) {
    if (shard < sharding_.nr_shards) shard_in_flight_[h * sharding_.nr_shards + shard] = n;
  }
  // One request to (h, shard) starts (+1) or ends (-1).
  void add_in_flight(HostId h, std::uint32_t shard, std::int32_t delta) {
    in_flight_[h] += delta;
    if (shard < sharding_.nr_shards) shard_in_flight_[h * sharding_.nr_shards + shard] += delta;
  }

 private:
  const Topology* topo_;
  std::vector<std::uint8_t> up_;
  std::vector<std::uint8_t> known_;
  std::uint64_t members_version_ = 0;
  std::vector<std::int32_t> in_flight_;
  Sharding sharding_{1, 12};
  std::vector<std::int32_t> shard_in_flight_ = std::vector<std::int32_t>(topo_->size(), 0);
};

struct Request {
  // (Fields ordered by size: a plan keeps a copy of its request.)
  Token token = 0;
  // The keyspace's replicas for the token, in driver order (Java 3.x Metadata.getReplicas).
  std::span<const HostId> replicas;
  SimTime now = 0;
  // False when the statement has no routing key or no keyspace: token-aware policies then return
  // the child plan unchanged.
  bool routed = false;
  ConsistencyLevel cl = ConsistencyLevel::LocalOne;
  // A lightweight transaction (or a serial read): Scylla drivers route it to the replicas in
  // replica order, unshuffled and without rack preference (PRESERVE_REPLICA_ORDER, java-driver#850).
  bool lwt = false;
};

// Which generator a random draw models (TokenAware "shuffle_rng").
enum class RngModel : std::uint8_t { Shared, ThreadLocal };

class PlanRandom {
 public:
  explicit PlanRandom(Rng& rng) : rng_(&rng) {}
  // Uniform in [0, n), n > 0; counted as one draw of generator `model` (one nextInt call).
  std::uint32_t below(std::uint32_t n, RngModel model) {
    ++(model == RngModel::Shared ? shared_draws : thread_local_draws);
    return static_cast<std::uint32_t>(rng_->below(n));
  }
  Rng& raw() { return *rng_; }
  void rebind(Rng& rng) { rng_ = &rng; }  // another stream (a scenario's several loaders)
  std::uint32_t shared_draws = 0;
  std::uint32_t thread_local_draws = 0;

 private:
  Rng* rng_;
};

struct RotationView;

// A lazy query plan. Plans live in a PlanArena and must be trivially destructible.
class Plan {
 public:
  // The next host to try, or kNoHost when the plan is exhausted (and forever after).
  virtual HostId next() = 0;
  // Round-robin plans whose leading hosts are rotations of host lists describe them here, before
  // their first next(), so a wrapper finds a host's place in O(1) instead of walking the plan
  // (TokenAware NEUTRAL, issue 14). False: no such description.
  virtual bool rotation(RotationView&) const { return false; }
  // Consumes the described positions as if next() had returned each of them.
  virtual void skip_rotation() {}
  // A plan that describes its child's rotation but defers some of the child's hosts to its own end
  // (LatencyAware's plan; RotationView::deferring) answers these for the wrapper jumping through
  // the rotation (TokenAware NEUTRAL), so that the wrapper's plan stays the walk's:
  // - deferred(h): whether the plan defers h when its walk reaches h now;
  // - pass(v, from, to): the wrapper went past positions [from, to) of v without next(): the plan
  //   queues the hosts it defers among them, in position order, as its walk would have;
  // - passed_deferred(h): asked for the passed positions in ascending order once the plan is
  //   exhausted: whether h, at the next of them, was queued by pass() (and came out of next()).
  virtual bool deferred(HostId) const { return false; }
  virtual void pass(const RotationView&, std::size_t, std::size_t) {}
  virtual bool passed_deferred(HostId) { return false; }

 protected:
  ~Plan() = default;
};

// Bump allocator for one request's plan objects. reset() makes the memory reusable; overflow
// chunks are kept, so steady-state planning never allocates. The first 96 bytes are inline, so a
// typical plan touches only the arena itself (one arena per operation in flight: a separate first
// chunk cost a cache miss per operation at 10,000 in flight, issue 14); with the header and the
// operation's draw counts that is two cache lines (sim/engine/sim_impl.hpp OpExtra), and the Java
// 3.x default plans (TokenAware RANDOM or TOPOLOGICAL, DCAware) are sized to fit it. Not movable:
// plans point into it.
class PlanArena {
 public:
  PlanArena() = default;
  PlanArena(const PlanArena&) = delete;
  PlanArena& operator=(const PlanArena&) = delete;

  template <class T, class... Args>
  T* make(Args&&... args) {
    static_assert(std::is_trivially_destructible_v<T>, "plans in an arena are never destroyed");
    return ::new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }
  // Uninitialized storage for n hosts.
  std::span<HostId> hosts(std::size_t n) {
    return {static_cast<HostId*>(allocate(n * sizeof(HostId), alignof(HostId))), n};
  }
  void reset() {
    chunk_ = 0;
    used_ = 0;
  }
  // Chunks in use, the inline one included: constant in steady state (benchmarks check that plans
  // do not allocate; 1 means the inline chunk was always enough).
  std::size_t chunk_count() const { return 1 + (chunks_ ? chunks_->size() : 0); }

 private:
  static constexpr std::size_t kInline = 96, kFirstChunk = 256, kMaxChunk = 64 * 1024;
  void* allocate(std::size_t size, std::size_t align) {
    for (;;) {
      std::byte* base = nullptr;
      std::size_t cap = 0;
      if (chunk_ == 0) {
        base = inline_;
        cap = kInline;
      } else if (chunks_ && chunk_ <= chunks_->size()) {
        base = (*chunks_)[chunk_ - 1].data.get();
        cap = (*chunks_)[chunk_ - 1].size;
      } else {
        // Overflow chunks double (a plan over a large DC may need kilobytes).
        if (!chunks_) chunks_ = std::make_unique<std::vector<Chunk>>();
        const std::size_t grow = chunks_->empty() ? kFirstChunk : std::min(chunks_->back().size * 2, kMaxChunk);
        const std::size_t sz = std::max(size + align, grow);
        chunks_->push_back({std::make_unique<std::byte[]>(sz), sz});
        continue;
      }
      const std::size_t at = (used_ + align - 1) & ~(align - 1);
      if (at + size <= cap) {
        used_ = static_cast<std::uint32_t>(at + size);
        return base + at;
      }
      ++chunk_;
      used_ = 0;
    }
  }
  struct Chunk {
    std::unique_ptr<std::byte[]> data;
    std::size_t size;
  };
  std::uint32_t chunk_ = 0;  // 0: the inline chunk; k: chunks_[k - 1]
  std::uint32_t used_ = 0;   // bytes used in that chunk (chunks are at most 64 KiB or one plan)
  std::unique_ptr<std::vector<Chunk>> chunks_;  // overflow chunks, made on the first overflow
  alignas(std::max_align_t) std::byte inline_[kInline];
};

// Outcome of one attempt, as a driver's RequestTracker / LatencyTracker sees it.
enum class ResponseKind : std::uint8_t {
  Success,
  Timeout,        // server read/write timeout: counted by LatencyAware and by Default4x
  ClientTimeout,  // driver-side timeout (DriverTimeoutException / OperationTimedOutException):
                  // counted by LatencyAware, not by Default4x (4.x onNodeError skips it)
                  // nor by RustDefault's latency awareness (the request future is dropped);
                  // the engine's client timeouts (timeouts.client_ms) end attempts with it
  Unavailable,    // not counted by LatencyAware (Java 3.x LatencyAwarePolicy.EXCLUDED_EXCEPTIONS)
  Overloaded,     // not counted
  OtherError      // counted
};

// Per-host feedback state, to reproduce a situation (`lbsim plan --state`, tests). In-flight
// counts are not here: they live in the ClusterView.
struct HostState {
  // 4.x DefaultLoadBalancingPolicy responseTimes: the last (at most two) response timestamps,
  // oldest first. response_count 0 means no entry.
  int response_count = 0;
  std::array<SimTime, 2> response_times{0, 0};
  // 3.x LatencyAwarePolicy TimestampedAverage. has_latency false means no tracker data.
  bool has_latency = false;
  std::int64_t latency_samples = 0;  // nbMeasure
  SimTime latency_average = -1;      // ns; -1 while warm-up samples are being discarded
  SimTime latency_updated = 0;       // timestamp of the last sample
  // 4.x upTimes entry. OSS 4.x never writes it (only its tests do), so only this sets it.
  std::optional<SimTime> up_time;
};

class Policy {
 public:
  virtual ~Policy() = default;

  // Called once before any plan. `rng` is the policy's own stream (random start indexes).
  virtual void init(const ClusterView& view, Rng& rng) = 0;
  virtual Distance distance(HostId host) const = 0;
  // The distance with the local rack told apart, as the Python driver's HostDistance
  // (LOCAL_RACK 0, LOCAL 1, REMOTE 2, IGNORED -1) and rack-aware policies of other drivers use it.
  // The default maps distance(): LOCAL 1, REMOTE 2, IGNORED -1; rack-aware policies that have a
  // local rack return 0 for its hosts.
  virtual int distance_tier(HostId host) const {
    const Distance d = distance(host);
    return d == Distance::Local ? 1 : (d == Distance::Remote ? 2 : -1);
  }
  virtual Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) = 0;

  // Host state changes as the driver learns them (after the detection delay).
  virtual void on_up(HostId) {}
  virtual void on_down(HostId) {}
  // Feedback on every attempt: sent to `host` at `now`; a response after `latency`.
  virtual void on_request_sent(HostId, SimTime /*now*/) {}
  virtual void on_response(HostId, SimTime /*now*/, SimTime /*latency*/, ResponseKind) {}
  // Overwrites the feedback state a policy keeps for `host` (no-op for policies without any).
  // Wrappers forward it to their child.
  virtual void restore_state(HostId, const HostState&) {}

  // True for policies whose choices depend on feedback (LatencyAware, Default4x): the analytic
  // load model marks them "not modelled".
  virtual bool adaptive() const { return false; }
  // True when plans read ClusterView::in_flight (Default4x's busy-replica checks). The simulator
  // then keeps the count exact in time (from the write to the connection to the answer); for the
  // other policies it may count an attempt from the moment it is planned.
  virtual bool reads_in_flight() const { return false; }
  // Policies whose "replica_source" names a driver's own map (gocql, python-3.25, nodejs-4.10):
  // that map's list for `token`, duplicates included; the simulator reports how often it repeats
  // a host (report `replica_map`). Empty, and has_driver_replicas() false, for the correct source.
  virtual bool has_driver_replicas() const { return false; }
  virtual std::span<const HostId> driver_replicas(Token /*token*/) const { return {}; }
};

}  // namespace lbsim::policy
