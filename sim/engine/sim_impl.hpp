// Private to sim/engine: the state of one Simulation and its event handlers, split over
// simulation.cpp (loop, operations, results), sim_client.cpp (driver side) and sim_server.cpp
// (coordinator, replicas, faults).
//
// Payload lifetimes (every event's id indexes a slab):
// - Op: one client operation; freed when done and no attempt of it is alive.
// - Attempt: one execution sent to one coordinator; alive until its answer or its client
//   timeout; timers reference it by (slot, gen).
// - CoordReq: the coordinator's side of an attempt, created at send time; events kAttemptArrive,
//   kCoordDone and kClientResponse carry its slot. Freed when done, with no event pending and no
//   replica job outstanding.
// - Job: replica work for a CoordReq; kReplicaArrive (remote, and again when a replica_service
//   strategy kept it, as the cache's disk does: sim/mech/cache) then kReplicaDone.
#pragma once
#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/cluster/coordination.hpp"
#include "sim/cluster/heat_load_balance.hpp"
#include "sim/core/check.hpp"
#include "sim/engine/core_records.hpp"
#include "sim/engine/hooks.hpp"
#include "sim/engine/latency_classes.hpp"
#include "sim/engine/mechanism.hpp"
#include "sim/engine/mech_events.hpp"
#include "sim/engine/simulation.hpp"

namespace lbsim {

struct Simulation::Impl {
  // The queue's event kinds (at most 16: event_queue.hpp): the core's, switched densely in
  // dispatch(), and kMech, whose id indexes mech_events_ (mech_events.hpp).
  enum Ev : std::uint32_t {
    kOpStart, kAttemptArrive, kCoordDone, kReplicaArrive, kReplicaDone, kClientResponse, kTimer, kFault, kDetect, kWindow,
    kDecoded, kHopDone, kArrival, kMech, kEvKinds
  };
  static_assert(kEvKinds <= 16, "the event queue encodes 16 kinds");
  // A kMech event's mechanism id: kMechListed + the mechanism's index in mechs_ (every mechanism
  // is one of sim/mech/mechanisms.inc's; issue 45).
  enum Mech : std::uint16_t { kMechListed };
  MechEvents mech_events_;
  void push_mech(SimTime at, std::uint16_t mech, std::uint16_t sub, std::uint32_t arg) {
    q_.push(at, kMech, mech_events_.add({mech, sub, arg}));
  }
  void on_mech(std::uint32_t id);
  // The mechanisms of sim/mech/mechanisms.inc that the scenario uses, in the list's order
  // (mechanism.hpp), and the hook points they subscribed to.
  Hooks hooks_;
  std::vector<std::unique_ptr<Mechanism>> mechs_;
  // mechanisms.cpp: those listed LBSIM_MECHANISM_BEFORE_POLICIES (before_policies), then the others.
  void make_mechanisms(bool before_policies);
  // The listed mechanism with event id `mech`, or null (one the scenario does not use).
  Mechanism* listed(std::uint16_t mech) const {
    const std::size_t i = std::size_t{mech} - kMechListed;
    return mech >= kMechListed && i < mechs_.size() ? mechs_[i].get() : nullptr;
  }
  // The mechanism of type T made so far, or null: for a mechanism that reads another's state (one
  // listed before it in mechanisms.inc).
  template <class T>
  T* find_mechanism() const {
    for (const auto& m : mechs_)
      if (auto* t = dynamic_cast<T*>(m.get())) return t;
    return nullptr;
  }
  static constexpr std::uint32_t kNoConn = core_records::kNoConn;
  static constexpr std::uint32_t kMaxStartDepth = 64;  // nested start_op calls (finish_op)
  std::uint32_t start_depth_ = 0;
  static constexpr std::uint32_t kNoAnswer = core_records::kNoAnswer;
  // The core's deadline FIFOs (kTimer's id): the mechanisms' timers are kMech events.
  enum TimerId : std::uint32_t { kClientTimeout, kReadTimeout, kWriteTimeout, kCasTimeout, kTimers };
  static constexpr std::uint32_t kNoThread = core_records::kNoThread;
  static constexpr std::uint32_t kOpenLoop = 0xfffffeu;  // start_op's thread for an open-loop arrival (kArrival)

  // The slabs' records (core_records.hpp).
  using OpExtra = core_records::OpExtra;
  using Op = core_records::Op;
  using Attempt = core_records::Attempt;
  using CoordReq = core_records::CoordReq;
  using Job = core_records::Job;
  using Conn = core_records::Conn;
  using ShardCounts = core_records::ShardCounts;
  using Detection = core_records::Detection;

  Impl(const Scenario& sc, const PolicyEntry& entry, std::unique_ptr<policy::Policy> pol, std::uint64_t seed);

  // simulation.cpp
  RunResult run(const RunOptions& options);
  // The request path is compiled twice (issue 45): H false, the bare copy, with no hook point and no
  // mechanism's test, chosen at construction (hooked_) when the scenario uses no mechanism; H true,
  // the hooked copy, which tests each hook point's list. The templates below default to the hooked
  // copy, which is right for every scenario: the paths off the hot one (retries, timers, faults,
  // the mechanisms' calls into the core) use it.
  bool hooked_ = true;
  void choose_request_path();  // mechanisms.cpp
  template <bool kDigest, bool H>
  std::uint64_t event_loop(const RunOptions& options, std::chrono::steady_clock::time_point wall0);
  // Inlined into both copies of the event loop, as into the one loop before the digest's copy.
  template <bool H>
  [[gnu::always_inline]] inline void dispatch(const EventQueue::Event& e);
  template <bool H = true> void start_op(std::uint32_t thread, std::uint32_t loader = 0);  // loader: an open-loop arrival's
  // The workload's next operation (OpGenerator::next) and, with draws ahead, its range.
  bool next_draw(OpDraw& d, std::uint32_t& range);
  template <bool H = true> void finish_op(std::uint32_t op, bool success, ErrorKind error);
  // Inline: its callers are in two files, which a unity build may compile apart.
  void maybe_free_op(std::uint32_t id) {
    if (ops_[id].done && ops_[id].alive == 0) ops_.release(id);
  }
  void open_window();
  void close_window();
  bool may_issue() const;
  void schedule_next_arrival(std::uint32_t loader = 0);
  RunResult collect();
  // sim_digest.cpp: the event digest's view of an event (its logical kind and slot) and of the
  // named streams (RunOptions::digest).
  EventDigest::Entry digest_entry(const EventQueue::Event& e) const;
  void digest_draws(EventDigest& d) const;
  // Debug builds (LBSIM_DEBUG_CHECKS): the model's invariants after an event; `full` adds the
  // scans over the slabs and hosts. Release builds compile the calls out.
  void check_invariants(bool full) const;

  // sim_client.cpp
  // false: the plan is exhausted. `same`: a retry on that host first (a driver's RETRY_SAME).
  // `speculative`: a speculative execution, whose hosts come from the extra_host strategy when a
  // mechanism claims it (hooks.hpp).
  template <bool H = true> bool send_attempt(std::uint32_t op, bool first, policy::HostId same = policy::kNoHost, bool speculative = false);
  policy::HostId next_host(std::uint32_t id, bool speculative) {
    if (speculative && hooks_.extra_host) [[unlikely]] return hooks_.extra_host(id);
    return ops_[id].plan->next();
  }
  template <bool H = true> void on_client_response(std::uint32_t cr);
  void on_timer(std::uint32_t which);
  // `linger`: a client timeout under Loader::lingers: the attempt ends for its operation and the
  // policy, but stays in its host's and connection's in-flight counts (release_lingering).
  template <bool H = true> void end_attempt(std::uint32_t a, policy::ResponseKind kind, bool linger = false);
  // A lingering attempt's late answer came, or its connection closed: it leaves the in-flight
  // counts and its slot is freed.
  void release_lingering(std::uint32_t a);
  // Every lingering attempt of loader `loader`'s driver to host n (its connections closed or the
  // driver gave up on them); every loader's when loader is kAllLoaders.
  static constexpr std::size_t kAllLoaders = ~std::size_t{0};
  void release_lingering_on(NodeId n, std::size_t loader);
  std::uint64_t lingering_ = 0;  // attempts lingering now (0: nothing to scan)
  void after_failure(std::uint32_t op, ErrorKind error, bool retryable, bool unavailable);
  void fail_or_restart(std::uint32_t op, ErrorKind error);  // cassandra-stress -errors retries=N
  void restart_op(std::uint32_t op);
  void note_host(std::uint32_t op, NodeId host) {  // the host of a failed attempt (driver retry policies)
    last_host_[op] = host;
  }
  void arm(std::uint32_t which);
  bool timer_live(std::uint32_t which, const DeadlineFifo::Entry& e) const;
  template <bool H = true> void on_decoded(std::uint32_t op);
  void mark_sent(NodeId host, std::uint32_t shard, std::uint32_t loader);
  void drain_sends();  // attempts whose send time has come count as in flight

  // The placement's questions (hooks.hpp: a mechanism's strategies, else the core's fixed vnode
  // ring): the replicas a routed operation's driver knows, the shard it sends to on `host`, the
  // replicas coordinator request cr uses (the `pending` ones last; an LWT's round asks again) and
  // the shard of `r` owning the work. The bare request path (H false) asks no strategy.
  template <bool H = true>
  std::span<const NodeId> driver_replicas(const Op& op) {
    if (H && hooks_.driver_replicas) [[unlikely]] return hooks_.driver_replicas(op.range, op.token);
    return ring_.replicas_at(op.range, ReplicaOrder::Driver);
  }
  template <bool H = true>
  std::uint32_t driver_shard(const Op& op, NodeId host);  // sim_client.cpp
  template <bool H = true>
  std::span<const NodeId> coordinator_replicas(std::uint32_t cr, bool read, std::array<NodeId, 64>& buf,
                                               std::uint32_t& pending) {
    if (H && hooks_.coordinator_replicas) [[unlikely]] return hooks_.coordinator_replicas(cr, read, buf, pending);
    pending = 0;
    return ring_.replicas_at(crs_[cr].range, ReplicaOrder::Server);
  }
  template <bool H = true>
  std::uint32_t replica_shard(std::uint32_t range, Token t, NodeId r) const {
    if (H && hooks_.replica_shard) [[unlikely]] return hooks_.replica_shard(range, t, r);
    return shard_of_token(t);
  }
  // What the policy sees of an operation.
  template <bool H = true>
  policy::Request request_of(Op& op) {
    policy::Request req;
    req.routed = op.routed;
    req.token = op.token;
    if (op.routed) req.replicas = driver_replicas<H>(op);
    req.cl = op.cl;
    req.lwt = op.kind == OpKind::Lwt;
    req.now = now_;
    return req;
  }
  // sim_server.cpp: nodes that leave the cluster (the placement's topology changes) and the
  // detections and faults a mechanism schedules.
  void node_leaves(NodeId n);   // a decommissioned node leaves: down, its client connections closed
  void node_removed(NodeId n);  // removenode: the node is dead and seen down by gossip and driver
  // The node's detection by the drivers and by gossip after their delays from now (`ring`: the
  // drivers' token map from then on; `member`: Detection::member), or by the drivers only.
  void schedule_detection(NodeId n, bool up, const TokenRing* ring = nullptr, std::int8_t member = 0);
  void schedule_driver_detection(NodeId n, bool up, const TokenRing* ring, std::int8_t member);
  void schedule_fault(const FaultEvent& f);  // a down, kill or up action at f.at
  void warn_late_hung();  // sim_client.cpp: the report's warning for hung operations ended after the window



  // A read's targets: a mechanism's read_order strategy (hooks.hpp), else the core's default.
  template <bool H, class Up>
  std::size_t order_reads(const ClNeed& need, NodeId node, std::span<const NodeId> replicas, Up& up,
                          std::span<NodeId> out) {
    if (H && hooks_.read_order) return hooks_.read_order(need, node, replicas, out);
    return read_targets(need, topo_, node, replicas, up, out, read_shuffle_);
  }

  // sim_server.cpp
  template <bool H = true> void on_attempt_arrive(std::uint32_t cr);
  template <bool H = true> void on_coord_done(std::uint32_t cr);
  template <bool H = true> void on_replica_arrive(std::uint32_t job);
  template <bool H = true> void on_replica_done(std::uint32_t job);
  template <bool H = true> void respond(std::uint32_t cr, bool success, ErrorKind error);
  void release_cr_if_idle(std::uint32_t cr);
  template <bool H = true> void enqueue_replica(std::uint32_t cr, NodeId replica, SimTime now);
  // hooks_.replica_service's call (out of line: sim_server.cpp says why).
  [[gnu::noinline]] double replica_service(std::uint32_t job, NodeId r, bool read, SimTime now);
  template <bool H = true> void on_hop_done(std::uint32_t job);
  template <bool H = true> void send_to_replicas(std::uint32_t cr, std::span<const NodeId> targets, std::size_t data_targets = 1);
  template <bool H = true> void send_phase(std::uint32_t cr);  // LWT: one Paxos round to the serial DC set
  void drop_job(std::uint32_t job);
  // False when replica `r`'s answer, arriving at `at`, cannot change anything: earlier answers
  // already scheduled will have met the CL (or the request ended) by then. Needed answers are
  // recorded. Only without faults and topology changes (answers_fixed_), where a scheduled answer
  // always arrives on time and counts.
  bool answer_needed(CoordReq& c, NodeId r, SimTime at);
  void add_pending_to_need(ClNeed& need, NodeId coordinator, std::span<const NodeId> replicas, std::uint32_t pending);
  // Keeps request cr's consistency-level need (its per-DC counts in cr_per_dc_ for EACH_QUORUM).
  void store_need(std::uint32_t cr, const ClNeed& need);
  // The connection (and shard) for an attempt to `host`, or false when the chosen connection is
  // full and the driver gives up on the host (BusyPoolException).
  template <bool H = true>
  bool pick_connection(std::uint32_t id, NodeId host, std::uint32_t& conn, std::uint32_t& shard);
  void on_fault(std::uint32_t idx);
  void on_detect(std::uint32_t idx);

  static constexpr SimTime kNever = std::numeric_limits<SimTime>::max();
  // sim_client.cpp: loader 0's driver marks a host down (`by`: what told it; the driver_down hook),
  // and a kill or a node leaving closes every loader's connections to the node.
  void driver_mark_down(NodeId n, const char* by);
  void close_connections(NodeId n);
  SimTime net(NodeId a, NodeId b) { return a == b ? 0 : lat_[lat_class_.between(a, b)].sample(net_rng_); }
  SimTime net_client(NodeId n) { return lat_[client_lat_[n]].sample(net_rng_); }
  // The network between node n and the loader of coordinator request cr (client_lat_ is
  // loader-major: n_ entries per loader).
  SimTime net_client_cr(NodeId n, std::uint32_t cr) {
    return lat_[client_lat_[std::size_t{cr_loader_[cr]} * n_ + n]].sample(net_rng_);
  }
  std::uint32_t shard_of_token(Token t) const;
  // The event-queue lane of (node, shard)'s completions (EventQueue::push_lane): the per_shard
  // servers finish their work in FIFO order.
  std::uint32_t lane(NodeId node, std::uint32_t shard) const {
    return node * shards_ + (shard < shards_ ? shard : shard % shards_);  // as NodeModel::enqueue's server
  }
  // The lane of (node, shard)'s answers to remote coordinators (after all the servers' lanes).
  std::uint32_t answer_lane(NodeId node, std::uint32_t shard) const {
    return static_cast<std::uint32_t>(n_ * shards_) + lane(node, shard);
  }
  // By table: reads and writes alternate at random, so a branch on the kind mispredicts often.
  SimTime request_timeout(OpKind k) const { return timeout_by_kind_[static_cast<std::size_t>(k)]; }
  std::array<SimTime, kOpKinds> timeout_by_kind_{};  // read, write, LWT (cas + write for the commit)
  static ErrorKind timeout_error(OpKind k) { return k == OpKind::Read ? ErrorKind::ReadTimeout : ErrorKind::WriteTimeout; }
  // The deadline and abort rules of cluster.server (model_spec.hpp); shedding off
  // (timeouts.shed_expired false) turns the expiry-based drops and aborts off.
  ServerRules rules_;
  bool shed_ = true;
  bool deadline_at_arrival_ = true;  // rules_.coordinator_clock == Arrival
  bool read_abort_ = false;          // rules_.read_abort with shedding on
  // rules_.shuffle_equal_distance_reads: the stream the shuffle of equal-distance read replicas
  // draws from (forked by name, so it costs the other streams nothing), else null.
  Rng read_replica_rng_;
  Rng* read_shuffle_ = nullptr;
  // The coordinator's timer is armed when the request arrives (deadline at arrival, coordinator
  // work queued), else when the coordinator's work ends.
  bool timer_at_arrival_ = false;
  static TimerId timer_of(OpKind k) {
    static constexpr std::array<TimerId, kOpKinds> kTimerOf{kReadTimeout, kWriteTimeout, kCasTimeout};
    return kTimerOf[static_cast<std::size_t>(k)];
  }
  // Per operation kind: the longest coordinator queue wait before the work is dropped (the
  // timeout with unspecified rules and shedding, native_transport_ms on cassandra-5.0), else
  // kNoDeadline.
  std::array<SimTime, kOpKinds> coord_max_wait_{};
  // Per (node, shard) lane: requests admitted and not yet answered, with an admission limit only.
  std::vector<std::uint32_t> admitted_;

  const Scenario& sc_;
  // The vnode ring: the placement of every token unless a mechanism's strategies say otherwise
  // (hooks.hpp; sim/mech/placement: tablets, a ring that changes).
  const TokenRing& ring_;
  const Topology& topo_;
  PolicyEntry entry_;
  std::unique_ptr<policy::Policy> policy_;
  std::uint64_t seed_;
  std::size_t n_;

  Rng root_, workload_rng_, arrival_rng_, think_rng_, service_rng_, net_rng_, shard_rng_, policy_rng_,
      plan_rng_, cost_rng_;
  OpGenerator gen_;
  policy::ClusterView view_;
  NodeModel nodes_;
  ClientCpu cpu_;
  EventQueue q_;
  SimTime now_ = 0;

  Slab<Op> ops_;
  StableChunks<OpExtra> op_extra_;  // stable addresses: live plans point into the arenas
  Slab<Attempt> attempts_;
  Slab<CoordReq> crs_;
  Slab<Job> jobs_;
  std::array<DeadlineFifo, kTimers> timers_;
  // Per attempt and per coordinator request slot: its gen while it is alive (the attempt awaits
  // its answer; the request is not done), else kDeadTag. arm() tests the oldest timer entries
  // against these dense arrays (4 bytes a slot, cache-resident) instead of the slabs' entries,
  // which at 10,000 requests in flight are cold (issue 14: two cache misses per operation).
  static constexpr std::uint32_t kDeadTag = 0xffffffffu;
  // Columns of attempts_ and crs_ (slab.hpp), registered in the constructor with fill kDeadTag.
  Column<std::uint32_t> attempt_live_, cr_live_;
  // Per request slot: EACH_QUORUM's counts, written before they are read. Registered in every
  // scenario (16 bytes a request slot, grown only with crs_; nothing per request).
  Column<std::array<std::uint8_t, kMaxDcs>> cr_per_dc_;
  void mark_cr_done(CoordReq& c, std::uint32_t cr) {
    c.done = true;
    cr_live_[cr] = kDeadTag;
    if (c.admitted) [[unlikely]] {  // it leaves its shard's admission count
      c.admitted = false;
      --admitted_[lane(c.node, c.shard)];
    }
  }
  // Attempts that the client CPU has not yet written to the connection, by send time.
  struct PendingSend {
    SimTime at;
    std::uint32_t attempt, gen;
    bool operator>(const PendingSend& o) const { return at != o.at ? at > o.at : attempt > o.attempt; }
  };
  std::priority_queue<PendingSend, std::vector<PendingSend>, std::greater<PendingSend>> pending_sends_;
  // The earliest pending send's time (the largest SimTime when there is none): every event
  // compares the clock with it.
  SimTime next_send_ = std::numeric_limits<SimTime>::max();
  bool exact_in_flight_ = false;  // the policy reads in-flight counts (Policy::reads_in_flight)
  // No faults and no topology changes: every replica answer scheduled arrives when scheduled and
  // counts (nothing can lose, delay or invalidate it), so useless ones need no event.
  bool answers_fixed_ = false;

  // Connections and cross-shard hops (issue 10).
  std::uint32_t shards_ = 1;            // servers per node when per_shard, else 1
  std::uint32_t conns_per_host_ = 0;    // 0 = no connection model
  std::vector<Conn> conns_;             // host-major
  std::vector<std::uint64_t> busy_rejections_;  // per host
  std::vector<ShardCounts> shard_counts_;       // node-major, per_shard only
  std::vector<std::uint64_t> node_hops_;        // hopped replica work items per node
  std::vector<std::uint64_t> conn_requests_start_;
  std::vector<ShardCounts> shard_counts_start_;
  std::vector<std::uint64_t> busy_rejections_start_, node_hops_start_;

  std::vector<Dist> lat_;                 // 0: zero, then locality classes and DC pairs
  LatencyClasses lat_class_;              // index into lat_ of a pair of nodes
  std::vector<std::uint8_t> client_lat_;  // per node
  std::vector<std::uint8_t> server_up_;   // coordinators' (gossip) view
  std::vector<std::uint32_t> total_quorum_dc_;  // per DC: rf/2+1 (0 when rf = 0)
  RfTable rf_;  // configured replication factors, as the CL arithmetic uses them
  std::vector<Detection> detections_;
  std::uint32_t fault_detections_ = 0;  // detections_[0, this) follow faults_ (the rest: topology changes)
  std::vector<FaultEvent> faults_;         // down/up actions in time order

  // Progress of the workload.
  std::uint64_t issued_ = 0, finished_ = 0, completed_ = 0, failed_ = 0, in_flight_ = 0;
  // From this many operations in flight their records (about 450 bytes each, 900 KB) outgrow a
  // core's 512 KiB L2 cache, and the handlers prefetch the records that later events will read
  // cold; below it the prefetches would only cost instructions.
  static constexpr std::uint64_t kColdInFlight = 2048;
  // The slots prefetched last (kNone: none yet); stale ones are harmless, prefetches never fault.
  static constexpr std::uint32_t kNone = 0xffffffffu;
  std::uint32_t prefetched_job_ = kNone, prefetched_attempt_ = kNone;
  // Draws ahead (issue 14). On a ring whose lookup tables outgrow the caches (3,000 nodes x 256
  // tokens: 29 MB) an operation's token lookup and replica rows are three dependent cache misses,
  // and its replicas' queue state three more. A generated workload's draws do not depend on the
  // simulation, so the engine draws kAhead operations ahead, in the generator's order (the k-th
  // operation started still gets the k-th draw), and each start prefetches one step further for
  // each draw waiting: its bucket, its tokens, its range's replica rows, its replicas' queues.
  // Only for generated workloads on a fixed vnode ring (no tablets, no topology changes), where
  // the range found ahead is the one found at the start.
  struct Ahead {
    OpDraw d;
    std::uint32_t range = 0;
  };
  static constexpr std::size_t kAhead = 4;       // draws waiting after a start
  static constexpr std::size_t kAheadSlots = 8;  // a power of two above kAhead
  std::array<Ahead, kAheadSlots> ahead_{};
  std::size_t ahead_head_ = 0, ahead_count_ = 0;
  bool lookahead_ = false;
  std::uint64_t target_ = 0;  // total operations (ops mode), 0 in duration mode
  std::uint64_t measured_ = 0;  // operations ended inside the window (succeeded or failed)
  // Operations started inside the window that ended after it, having taken at least the client
  // timeout: in neither the latency nor the errors (warn_late_hung).
  std::uint64_t late_hung_ = 0;
  SimTime late_hung_max_ = 0;
  std::uint64_t warmup_done_ = 0;
  bool window_open_ = false, window_closed_ = false, stop_issuing_ = false, finished_all_ = false;
  SimTime window_start_ = 0, window_end_ = 0;
  bool trace_exhausted_ = false;
  OpDraw next_trace_{};
  bool have_next_trace_ = false;

  // Snapshots at window start and end.
  std::vector<NodeSnapshot> snap_start_, snap_end_;
  SimTime cpu_busy_start_ = 0, cpu_busy_end_ = 0, rng_start_ = 0, rng_end_ = 0;
  std::uint64_t shared_draws_ = 0, tl_draws_ = 0, retries_ = 0;
  // A driver retry policy (retry.policy other than default/never): the host each operation's last
  // failed attempt went to, for a same-host retry. cassandra-stress retries: each operation's
  // re-executions so far. Columns of ops_ registered only when used (else empty).
  bool driver_retry_ = false;
  Column<NodeId> last_host_;
  Column<std::uint8_t> stress_tries_;
  std::uint64_t stress_retries_ = 0;
  std::uint64_t shared_draws_start_ = 0, tl_draws_start_ = 0;


  // The loaders (issue 36): the scenario's `clients`, or its one `client` as loader 0, so that
  // the single-client case is data, not a branch (issue 45). Loader 0 uses the members above
  // (policy_, view_, cpu_, plan_rng_, arrival_rng_, think_rng_, cost_rng_, client_lat_'s first n_
  // entries) unless it runs a policy of its own; loader l > 0 owns its instances and streams,
  // forked from the seed by name and index.
  struct Loader {
    const ClientSpec* spec = nullptr;
    std::string name, policy_name;
    policy::Policy* policy = nullptr;
    policy::ClusterView* view = nullptr;
    ClientCpu* cpu = nullptr;
    Rng* plan_rng = nullptr;
    Rng* arrival_rng = nullptr;
    Rng* think_rng = nullptr;
    Rng* cost_rng = nullptr;
    std::unique_ptr<policy::Policy> own_policy;
    std::unique_ptr<policy::ClusterView> own_view;
    std::unique_ptr<ClientCpu> own_cpu;
    Rng own_policy_rng, own_plan_rng, own_arrival_rng, own_think_rng, own_cost_rng;
    bool open = false;               // open loop (a rate, or the one client's open-loop trace)
    // Its driver keeps a timed-out request in flight until an answer frees its stream id, and its
    // policy reads in-flight counts: Node.js (datastax/nodejs-driver lib/connection.js:
    // getInFlight() is _streamIds.inUse, and a stream id is freed only by a response or the
    // connection's close; lib/policies/load-balancing.js _getInFlight reads it). Measured against
    // cassandra-driver 4.10 through lbsim serve (docs/fidelity.md).
    bool lingers = false;
    std::uint32_t first_thread = 0;  // closed loop: threads [first_thread, first_thread + spec->threads)
    std::uint64_t in_flight = 0;     // its operations outstanding (open loop: max_in_flight)
    // The measurement window's figures of this loader; the run's by_op is their sum (close_window).
    std::array<OpStats, kOpKinds> by_op;
    std::vector<std::uint64_t> coordinator;  // per node: its attempts that reached the node as coordinator
    SimTime cpu_busy_start = 0, cpu_busy_end = 0, rng_start = 0, rng_end = 0;
  };
  std::vector<std::unique_ptr<Loader>> loaders_;  // at least one
  Column<std::uint8_t> op_loader_;           // per operation slot (a column of ops_)
  Column<std::uint8_t> cr_loader_;           // per coordinator request slot (of crs_)
  std::vector<std::uint8_t> thread_loader_;  // per closed-loop thread
  // Open-loop arrivals of loader l travel as kArrival with id l.
  std::uint32_t op_loader(std::uint32_t op) const { return op_loader_[op]; }
  Loader& loader_of(std::uint32_t op) const { return *loaders_[op_loader_[op]]; }
  // A new operation of loader `loader` (L) in slot id: its plan arena and draw counts start over,
  // the slot names its loader, the loader counts it in flight and its draws take the loader's plan
  // stream (start_op; external_submit).
  OpExtra& begin_op_extra(std::uint32_t id, std::uint32_t loader, Loader& L) {
    OpExtra& x = op_extra_[id];
    x.arena.reset();
    x.rnd.shared_draws = 0;
    x.rnd.thread_local_draws = 0;
    op_loader_[id] = static_cast<std::uint8_t>(loader);
    ++L.in_flight;
    x.rnd.rebind(*L.plan_rng);
    return x;
  }
  policy::Policy& policy_of(std::uint32_t op) const { return *loader_of(op).policy; }
  const ClientSpec& client_of(std::uint32_t op) const { return *loader_of(op).spec; }
  void init_loaders();
  void start_loader_arrivals(std::uint32_t l);
  void collect_loaders(RunResult& r);

  // Simulation::external_* (sim_external.cpp): operations submitted from outside (lbsim serve).
  Simulation::ExternalDone external_done_;
  Simulation::ExternalTopology external_topology_;
  Column<std::uint64_t> op_tag_;  // per operation slot, registered by external_begin only
  // Per operation slot (external_begin only): its coordinator's answer's counted responses, and
  // 1 when a read's data replica was among them (ExternalEnd::received, data_present).
  Column<std::uint8_t> op_received_, op_data_;
  std::unordered_map<std::uint32_t, std::shared_ptr<const RoutingHint>> op_hint_;  // per operation slot, rare
  bool external_shards_ = false;    // external_begin's connection_shards
  Column<std::int32_t> op_shard_;   // ExternalOp::shard, registered with external_shards_ only
  void external_begin(Simulation::ExternalDone done, bool connection_shards);
  std::uint64_t external_advance(SimTime until);
  void external_submit(const ExternalOp& e);
  RunResult external_end();
  RunResult finish_result(std::uint64_t events, double wall_s, bool hooked);  // simulation.cpp

  RunResult result_;
};

}  // namespace lbsim
