#include "sim/engine/simulation.hpp"

#include <algorithm>
#include <chrono>

#include <sys/resource.h>

#include "policies/registry.hpp"
#include "sim/core/exit_cleanup.hpp"
#include "sim/engine/sim_impl.hpp"

namespace lbsim {

namespace {
double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: KiB
}
}  // namespace

Simulation::Impl::Impl(const Scenario& sc, const PolicyEntry& entry, std::unique_ptr<policy::Policy> pol,
                       std::uint64_t seed)
    : sc_(sc), ring_(*sc.ring), topo_(sc.topology()), entry_(entry), policy_(std::move(pol)), seed_(seed),
      n_(topo_.size()), root_(seed), workload_rng_(root_.fork("workload")), arrival_rng_(root_.fork("arrivals")),
      think_rng_(root_.fork("think")), service_rng_(root_.fork("service")), net_rng_(root_.fork("network")),
      shard_rng_(root_.fork("shard")), policy_rng_(root_.fork("policy")), plan_rng_(root_.fork("plan")),
      cost_rng_(root_.fork("driver_cost")), gen_(sc.workload, workload_rng_), view_(topo_),
      nodes_(sc.nodes, topo_.size(), sc.faults), cpu_(sc.client), server_up_(topo_.size(), 1),
      result_() {
  timeout_by_kind_ = {sc.timeouts.read, sc.timeouts.write, sc.timeouts.cas + sc.timeouts.write};
  rules_ = server_rules(sc.nodes.server);
  shed_ = sc.timeouts.shed_expired;
  deadline_at_arrival_ = rules_.coordinator_clock == CoordinatorClock::Arrival;
  read_abort_ = rules_.read_abort && shed_;
  driver_retry_ = sc.retry.kind != RetryPolicyKind::Default && sc.retry.kind != RetryPolicyKind::Never;
  // Per-slot columns of the slabs (slab.hpp), each grown with its slab; those of a feature only
  // when it is on (an unregistered column stays empty).
  attempts_.add_column(attempt_live_, kDeadTag);
  crs_.add_column(cr_live_, kDeadTag);
  crs_.add_column(cr_per_dc_, std::array<std::uint8_t, kMaxDcs>{});
  if (driver_retry_) ops_.add_column(last_host_, NodeId{0});
  if (sc.client.stress_retries > 0) ops_.add_column(stress_tries_, std::uint8_t{0});
  read_replica_rng_ = root_.fork("read_replicas");
  if (rules_.shuffle_equal_distance_reads) read_shuffle_ = &read_replica_rng_;
  timer_at_arrival_ = deadline_at_arrival_ && !sc.nodes.coordinator.is_zero();
  for (std::size_t k = 0; k < kOpKinds; ++k)
    coord_max_wait_[k] = rules_.native_transport_timeout                 ? sc.timeouts.native_transport
                         : rules_.coordinator_drops_expired && shed_ ? timeout_by_kind_[k]
                                                                     : kNoDeadline;
  // Network latency classes: 0 same node, 1 same rack, 2 same DC, 3 cross DC, 4.. DC pairs.
  const NetworkSpec& net = sc.network;
  lat_ = {Dist::constant(0), net.same_rack, net.same_dc, net.cross_dc};
  for (const auto& p : net.dc_pairs) lat_.push_back(p.latency);
  lat_class_ = LatencyClasses(topo_, net);
  // Per loader (loader-major), the network class between it and each node; one loader: sc.client.
  const std::size_t nl = std::max<std::size_t>(1, sc.loaders.size());
  client_lat_.assign(nl * n_, 0);
  for (std::size_t l = 0; l < nl; ++l) {
    const ClientSpec& c = sc.loaders.empty() ? sc.client : sc.loaders[l].client;
    for (NodeId a = 0; a < n_; ++a) client_lat_[l * n_ + a] = lat_class_.client(c.rack_index, c.dc_index, a);
  }

  // Replication factors per DC as the coordinator's CL arithmetic uses them.
  rf_ = RfTable::of(topo_, ring_.replication());

  // Faults: down/up actions (slow and pause windows live in NodeModel) and their detections.
  for (const auto& f : sc.faults.events) {
    if (f.kind == FaultKind::Down || f.kind == FaultKind::Kill || f.kind == FaultKind::Restart) {
      faults_.push_back(f);
      // A restart always comes back (duration 0: at once); down and kill only with a duration.
      if (f.duration > 0 || f.kind == FaultKind::Restart) faults_.push_back({f.at + f.duration, f.node, FaultKind::Up, 0, 1.0});
    } else if (f.kind == FaultKind::Up) {
      faults_.push_back(f);
    }
  }
  std::stable_sort(faults_.begin(), faults_.end(), [](const FaultEvent& a, const FaultEvent& b) { return a.at < b.at; });
  for (std::uint32_t i = 0; i < faults_.size(); ++i) {
    q_.push(faults_[i].at, kFault, i);
    const bool up = faults_[i].kind == FaultKind::Up;
    detections_.push_back({faults_[i].at + sc.faults.driver_detection, faults_[i].node, up, true});
    detections_.push_back({faults_[i].at + sc.faults.server_detection, faults_[i].node, up, false});
  }
  fault_detections_ = static_cast<std::uint32_t>(detections_.size());
  // With the drivers' own detection (sim/mech/detect) the fixed driver-side delays do not apply.
  const bool fixed = !sc.mech.claims.driver_detection;
  for (std::uint32_t i = 0; i < detections_.size(); ++i)
    if (fixed || !detections_[i].driver) q_.push(detections_[i].at, kDetect, i);
  answers_fixed_ = sc.faults.events.empty();  // a mechanism that moves replicas clears it

  result_.scenario = sc.name;
  result_.scenario_hash = sc.hash;
  result_.policy_name = entry.name;
  for (std::size_t i = 0; i < sc.policies.size(); ++i)
    if (sc.policies[i].name == entry.name) result_.policy_index = static_cast<std::int64_t>(i);
  result_.policy_spec = nlohmann::ordered_json::parse(entry.spec.dump());
  result_.seed = seed;
  result_.timeline = sc.report.timeline_interval > 0 ? Timeline(sc.report.timeline_interval) : Timeline::automatic();
  result_.warnings = sc.warnings;
  result_.client.open_loop = sc.client.mode == LoadMode::Open || (sc.workload.trace && sc.workload.trace_open_loop);
  if (result_.client.open_loop) result_.client.rate_ops_s = sc.client.mode == LoadMode::Open ? sc.client.rate : 0;
  else result_.client.threads = sc.client.threads;

  const WorkloadSpec& w = sc.workload;
  if (w.duration == 0) {
    target_ = w.total_ops();
    if (w.trace && (target_ == 0 || target_ > w.trace->records)) target_ = w.trace->records;
  }
  // Shards, connections and hops (issue 10).
  const bool per_shard = sc.nodes.discipline == Discipline::PerShard;
  shards_ = per_shard ? sc.nodes.shards : 1;
  q_.set_lanes(2 * n_ * shards_);
  view_.set_sharding({shards_, sc.nodes.msb_ignore});
  if (sc.client.connections != Connections::None) {
    const bool aware = sc.client.connections == Connections::ShardAware;
    conns_per_host_ = aware || sc.client.pool_size == 0 ? shards_ : sc.client.pool_size;
    // Every loader has its own pools (loader-major); all loaders share one connection model.
    conns_.resize(std::max<std::size_t>(1, sc.loaders.size()) * n_ * conns_per_host_);
    // Plain: each new connection gets the shard with the fewest connections (ties: the lowest).
    for (std::size_t i = 0; i < conns_.size(); ++i) conns_[i].shard = static_cast<std::uint32_t>(i % conns_per_host_ % shards_);
  }
  busy_rejections_.assign(n_, 0);
  node_hops_.assign(n_, 0);
  if (per_shard && shards_ > 1) shard_counts_.assign(n_ * shards_, {});
  if (sc.nodes.max_requests_per_shard > 0) admitted_.assign(n_ * shards_, 0);

  make_mechanisms(true);  // sim/mech/mechanisms.inc: the placement, before the policies start
  result_.timeline.set_nodes(n_);
  policy_->init(view_, policy_rng_);
  exact_in_flight_ = policy_->reads_in_flight();
  init_loaders();  // sim_loaders.cpp: loader 0 always exists
  make_mechanisms(false);  // the others: state and hooks (no draw until start())
  choose_request_path();
}

bool Simulation::Impl::may_issue() const {
  if (stop_issuing_ || trace_exhausted_) return false;
  return target_ == 0 ? true : issued_ < target_;
}

void Simulation::Impl::schedule_next_arrival(std::uint32_t loader) {
  if (!may_issue()) return;
  const WorkloadSpec& w = sc_.workload;
  if (w.trace) {
    if (!gen_.next(next_trace_)) {
      trace_exhausted_ = true;
      return;
    }
    have_next_trace_ = true;
    q_.push(std::max(now_, next_trace_.at), kArrival, 0);
    return;
  }
  const Loader& L = *loaders_[loader];
  const ClientSpec& cs = *L.spec;
  Rng& rng = *L.arrival_rng;
  const double gap_ns = 1e9 / cs.rate;
  const double gap = cs.arrivals == Arrivals::Poisson ? rng.exponential(gap_ns) : gap_ns;
  const SimTime at = now_ + std::max<SimTime>(1, static_cast<SimTime>(gap + 0.5));
  q_.push(at, kArrival, loader);
}

template <bool H>
void Simulation::Impl::start_op(std::uint32_t thread, std::uint32_t loader) {
  if (!may_issue()) return;
  OpDraw d;
  std::uint32_t range = 0;
  if (have_next_trace_) {
    d = next_trace_;
    have_next_trace_ = false;
  } else if (!next_draw(d, range)) {
    trace_exhausted_ = true;
    if (in_flight_ == 0) finished_all_ = true;
    return;
  }
  ++issued_;
  if (thread < kOpenLoop) loader = thread_loader_[thread];
  Loader& L = *loaders_[loader];
  if (thread == kOpenLoop && L.in_flight >= L.spec->max_in_flight) {
    // BusyPoolException: the operation fails at once and is never sent.
    ++in_flight_;
    const std::uint32_t op = ops_.alloc();
    if (op >= op_extra_.size()) op_extra_.emplace_back(plan_rng_);
    op_loader_[op] = static_cast<std::uint8_t>(loader);
    ++L.in_flight;
    ops_[op].start = now_;
    ops_[op].kind = d.op;
    finish_op<H>(op, false, ErrorKind::ClientBusy);
    return;
  }
  const std::uint32_t id = ops_.alloc();
  if (id >= op_extra_.size()) op_extra_.emplace_back(plan_rng_);
  Op& op = ops_[id];
  op.start = now_;
  op.token = d.token;
  if (lookahead_) {
    LBSIM_DCHECK(range == ring_.range_index(d.token), "an operation's range found ahead is not its range");
    op.range = range;
  } else {
    op.range = H && hooks_.op_range ? hooks_.op_range(d.token) : static_cast<std::uint32_t>(ring_.range_index(d.token));
  }
  op.thread = thread;
  op.rows = d.rows;
  op.kind = d.op;
  op.cl = d.cl;
  op.routed = d.routed;
  ++in_flight_;

  OpExtra& x = begin_op_extra(id, loader, L);
  op.plan = L.policy->new_plan(request_of<H>(op), x.rnd, x.arena);
  if (H && !hooks_.op_started.empty()) [[unlikely]] hooks_.op_started.fire(id);
  if (!send_attempt<H>(id, true)) finish_op<H>(id, false, ErrorKind::NoHostAvailable);
}

bool Simulation::Impl::next_draw(OpDraw& d, std::uint32_t& range) {
  if (!lookahead_) return gen_.next(d);
  static_assert(kAhead == 4, "the steps below take the waiting draws 0, 1 and 2 (3: just drawn)");
  constexpr std::size_t mask = kAheadSlots - 1;
  auto at = [&](std::size_t i) -> Ahead& { return ahead_[(ahead_head_ + i) & mask]; };
  if (ahead_count_ == 0) {
    // The first start draws kAhead + 1 operations (generated workloads never run out) and finds
    // their ranges at once.
    for (; ahead_count_ <= kAhead; ++ahead_count_) {
      gen_.next(at(ahead_count_).d);
      at(ahead_count_).range = static_cast<std::uint32_t>(ring_.range_index(at(ahead_count_).d.token));
    }
  } else {
    Ahead& a = at(ahead_count_++);
    gen_.next(a.d);
    ring_.prefetch_bucket(a.d.token);
  }
  d = at(0).d;
  range = at(0).range;
  ahead_head_ = (ahead_head_ + 1) & mask;
  --ahead_count_;
  // Each waiting draw one step further, one start apart (the newest, at kAhead - 1, had its
  // bucket prefetched as it was drawn): the bucket's tokens, then the range and its replica rows,
  // then the replicas' queues (a token-aware policy's coordinator is one of them), for the draw
  // the next start takes.
  ring_.prefetch_tokens(at(2).d.token);
  at(1).range = static_cast<std::uint32_t>(ring_.range_index(at(1).d.token));
  ring_.prefetch_replicas(at(1).range);
  const std::uint32_t shard = shard_of_token(at(0).d.token);
  for (const NodeId r : ring_.replicas_at(at(0).range, ReplicaOrder::Server)) nodes_.prefetch(r, shard);
  return true;
}

template <bool H>
void Simulation::Impl::finish_op(std::uint32_t id, bool success, ErrorKind error) {
  Op& op = ops_[id];
  LBSIM_DCHECK(!op.done, "an operation ended twice");
  LBSIM_DCHECK(in_flight_ > 0, "in-flight count would go negative");
  LBSIM_DCHECK(success || static_cast<std::size_t>(error) < kErrorKinds, "an operation failed without a typed error");
  if (H && !hooks_.op_ended.empty()) [[unlikely]] hooks_.op_ended.fire(id, success, error);
  op.done = true;
  if (stress_tries_.registered()) stress_tries_[id] = 0;
  --in_flight_;
  ++finished_;
  ++(success ? completed_ : failed_);
  const bool ops_mode = sc_.workload.duration == 0;
  if (!window_open_) {
    ++warmup_done_;
    if (ops_mode && warmup_done_ >= sc_.workload.warmup_ops) open_window();
  } else if (!window_closed_) {
    // The loader's figures; the run's are their sum (close_window).
    OpStats& s = loader_of(id).by_op[static_cast<std::size_t>(op.kind)];
    const SimTime since = now_ - window_start_;
    if (success) {
      const SimTime lat = now_ - op.start;
      ++s.ops;
      s.rows += op.rows;
      s.latency.record(lat);  // result_.latency is their merge (close_window)
      result_.timeline.record_op(since, lat);
    } else {
      ++s.errors[static_cast<std::size_t>(error)];
      result_.timeline.record_error(since);
    }
    ++measured_;  // = the loaders' ops + errors, without the sums (check_invariants)
    if (ops_mode && measured_ >= sc_.workload.ops) close_window();
  } else if (op.start >= window_start_ && op.start < window_end_ &&
             now_ - op.start >= sc_.timeouts.client) {
    ++late_hung_;  // it waited for a timeout and ended after the window (warn_late_hung)
    late_hung_max_ = std::max(late_hung_max_, now_ - op.start);
  }
  const std::uint32_t thread = op.thread;
  op.thread = kNoThread;
  --loader_of(id).in_flight;
  maybe_free_op(id);
  if (target_ != 0 && finished_ >= target_) finished_all_ = true;
  if ((stop_issuing_ || trace_exhausted_) && in_flight_ == 0) finished_all_ = true;
  if (thread < kOpenLoop && !finished_all_) {
    const Loader& T = *loaders_[thread_loader_[thread]];
    const Dist& think = T.spec->think;
    if (think.is_zero()) {
      // A thread whose operations fail at once (every connection full, no host) starts the next
      // one at the same instant; past a few nested starts it goes through the event queue, so a
      // long run of such failures cannot overflow the stack (each start at once ends in
      // finish_op, which starts the next).
      if (start_depth_ < kMaxStartDepth) {
        ++start_depth_;
        start_op<H>(thread);
        --start_depth_;
      } else {
        q_.push(now_, kOpStart, thread);
      }
    } else {
      q_.push(now_ + think.sample(*T.think_rng), kOpStart, thread);
    }
  }
}

void Simulation::Impl::open_window() {
  window_open_ = true;
  window_start_ = now_;
  snap_start_.clear();
  for (NodeId n = 0; n < n_; ++n) snap_start_.push_back(nodes_.snapshot(n, now_));
  for (const auto& m : mechs_)  // after the node snapshots (mechanism.hpp)
    if (m) m->window_open();
  cpu_busy_start_ = cpu_.busy_until(now_);
  rng_start_ = cpu_.shared_rng_time();
  for (const auto& L : loaders_) {
    L->cpu_busy_start = L->cpu->busy_until(now_);
    L->rng_start = L->cpu->shared_rng_time();
  }
  shared_draws_start_ = shared_draws_;
  tl_draws_start_ = tl_draws_;
  conn_requests_start_.clear();
  for (const Conn& c : conns_) conn_requests_start_.push_back(c.requests);
  shard_counts_start_ = shard_counts_;
  busy_rejections_start_ = busy_rejections_;
  node_hops_start_ = node_hops_;
}

void Simulation::Impl::close_window() {
  LBSIM_DCHECK(!window_closed_, "the measurement window closed twice (the latency merge would count twice)");
  if (!window_open_) open_window();
  window_closed_ = true;
  window_end_ = now_;
  snap_end_.clear();
  for (NodeId n = 0; n < n_; ++n) snap_end_.push_back(nodes_.snapshot(n, now_));
  for (const auto& m : mechs_)
    if (m) m->window_close();
  cpu_busy_end_ = cpu_.busy_until(now_);
  rng_end_ = cpu_.shared_rng_time();
  for (const auto& L : loaders_) {
    L->cpu_busy_end = L->cpu->busy_until(now_);
    L->rng_end = L->cpu->shared_rng_time();
  }
  result_.client.shared_draws = shared_draws_ - shared_draws_start_;
  result_.client.thread_local_draws = tl_draws_ - tl_draws_start_;
  // Every operation went into its loader's figures for its kind only: the run's are their sums,
  // and the overall latency the merge of the kinds', which are exact (integer counts, sum, min
  // and max), instead of a second record per operation.
  for (const auto& L : loaders_) {
    for (std::size_t k = 0; k < kOpKinds; ++k) {
      OpStats& s = result_.by_op[k];
      const OpStats& o = L->by_op[k];
      s.ops += o.ops;
      s.rows += o.rows;
      for (std::size_t e = 0; e < kErrorKinds; ++e) s.errors[e] += o.errors[e];
      s.latency.merge(o.latency);
    }
  }
  for (const OpStats& s : result_.by_op) result_.latency.merge(s.latency);
  LBSIM_DCHECK(result_.latency.count() == result_.measured_ops(), "the merged latency histogram lost operations");
}

template <bool H>
inline void Simulation::Impl::dispatch(const EventQueue::Event& e) {
  const std::uint32_t id = e.id();
  if (next_send_ <= now_) drain_sends();
  switch (e.type()) {
    case kOpStart: start_op<H>(id); break;
    case kArrival:  // loader id's arrival process
      start_op<H>(kOpenLoop, id);
      schedule_next_arrival(id);
      break;
    case kAttemptArrive: on_attempt_arrive<H>(id); break;
    case kCoordDone: on_coord_done<H>(id); break;
    case kReplicaArrive: on_replica_arrive<H>(id); break;
    case kReplicaDone: on_replica_done<H>(id); break;
    case kClientResponse: on_client_response<H>(id); break;
    case kTimer: on_timer(id); break;
    case kFault: on_fault(id); break;
    case kDetect: on_detect(id); break;
    case kDecoded: on_decoded<H>(id); break;
    case kHopDone: on_hop_done<H>(id); break;
    case kMech: on_mech(id); break;
    case kWindow:
      if (id == 0) {
        open_window();
      } else {
        close_window();
        stop_issuing_ = true;
        if (in_flight_ == 0) finished_all_ = true;
      }
      break;
    default: check_fail("event of unknown kind", e.type());
  }
}

// The event loop of run(): pops and dispatches until the run is over, polling cancellation and
// reporting progress; with kDigest every popped event is added to options.digest first.
template <bool kDigest, bool H>
std::uint64_t Simulation::Impl::event_loop(const RunOptions& options, std::chrono::steady_clock::time_point wall0) {
  const WorkloadSpec& w = sc_.workload;
  std::uint64_t events = 0;
  auto last_report = wall0;
  while (!q_.empty() && !finished_all_) {
    const EventQueue::Event e = q_.pop();
    LBSIM_DCHECK(e.at >= now_, "simulated time went backwards");
    if constexpr (kDigest) options.digest->add(digest_entry(e));
    now_ = e.at;
    // A lane's next completion enters the calendar (before this event schedules anything). Its
    // record is fetched now, a service time before its event pops: at 10,000 client threads it
    // would otherwise be a cache miss on that event's path (issue 14; no prefetch changes what is
    // computed).
    if (q_.lanes_active()) {
      std::uint64_t next = EventQueue::kNoKey;
      if (e.type() == kCoordDone) next = q_.popped(lane(crs_[e.id()].node, crs_[e.id()].shard), e);
      else if (e.type() == kReplicaDone) {
        const Job& j = jobs_[e.id()];
        next = q_.popped(j.answer_lane ? answer_lane(j.node, j.owner) : lane(j.node, j.owner), e);
      }
      if (next != EventQueue::kNoKey) {
        const std::uint32_t id = static_cast<std::uint32_t>(next) & EventQueue::kMaxId;
        if (Event::type_of(next) == kCoordDone) {
          __builtin_prefetch(&crs_[id], 1);
        } else {
          // A job's answer also reads its request: the previous announced job's line has arrived
          // by now, so its request is fetched too (one announcement behind).
          if (prefetched_job_ != kNone) __builtin_prefetch(&crs_[jobs_[prefetched_job_].cr], 1);
          prefetched_job_ = id;
          __builtin_prefetch(&jobs_[id], 1);
        }
      }
    }
    dispatch<H>(e);
#if defined(LBSIM_DEBUG_CHECKS) && LBSIM_DEBUG_CHECKS
    // The scans cost O(slab sizes). Early in the run they follow every event while the operation
    // and request slabs hold fewer than 256 slots together, else every (slots / 256 + 1)th event:
    // about 256 slot reads per event at most, where thousands of operations in flight made the
    // sanitizer suite's runs quadratic (4,000 client threads: 8,000 reads after each event). Later
    // in the run, every 256th event.
    const std::uint64_t spacing = (ops_.capacity() + crs_.capacity()) / 256 + 1;
    check_invariants((events < 20000 && events % spacing == 0) || (events & 0xff) == 0);
#endif
    if ((++events & 0xffff) == 0) {
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) throw Cancelled();
      if (options.progress) {
        const auto t = std::chrono::steady_clock::now();
        if (t - last_report > std::chrono::milliseconds(500)) {
          last_report = t;
          options.progress({now_, finished_, target_, w.duration > 0 ? w.warmup + w.duration : 0, events,
                            std::chrono::duration<double>(t - wall0).count()});
        }
      }
    }
  }
  return events;
}

// Simulation::external_advance (sim_external.cpp): the events due by `until`, with the hooked
// request path; here, where dispatch() is defined.
std::uint64_t Simulation::Impl::external_advance(SimTime until) {
  std::uint64_t events = 0;
  while (!q_.empty() && q_.next_time() <= until) {
    const EventQueue::Event e = q_.pop();
    now_ = e.at;
    // The lanes' next completions enter the calendar (EventQueue::popped), as in event_loop.
    if (q_.lanes_active()) {
      if (e.type() == kCoordDone) {
        q_.popped(lane(crs_[e.id()].node, crs_[e.id()].shard), e);
      } else if (e.type() == kReplicaDone) {
        const Job& j = jobs_[e.id()];
        q_.popped(j.answer_lane ? answer_lane(j.node, j.owner) : lane(j.node, j.owner), e);
      }
    }
    dispatch<true>(e);
    ++events;
  }
  if (until > now_) now_ = until;
  return events;
}

RunResult Simulation::Impl::run(const RunOptions& options) {
  // An interrupt during the set-up is honoured before the first event (then every 65,536 events).
  if (options.cancel && options.cancel->load(std::memory_order_relaxed)) throw Cancelled();
  const auto wall0 = std::chrono::steady_clock::now();
  // Draws ahead where the lookup tables outgrow 1 MiB: they no longer stay in a core's 512 KiB
  // L2 beside the rest (6 nodes x 256 tokens: 57 KB; 3,000 x 256: 29 MB).
  const bool may_look_ahead = !sc_.workload.trace && !hooks_.op_range;  // op_range: a placement's ranges
  lookahead_ = may_look_ahead && (options.draw_ahead == DrawAhead::Auto ? ring_.lookup_bytes() > (std::size_t{1} << 20)
                                                                        : options.draw_ahead == DrawAhead::On);
  const WorkloadSpec& w = sc_.workload;
  if (w.duration > 0) {
    if (w.warmup > 0) q_.push(w.warmup, kWindow, 0);
    else open_window();
    q_.push(w.warmup + w.duration, kWindow, 1);
  } else if (w.warmup_ops == 0) {
    open_window();
  }
  if (target_ == 0 && w.duration == 0) finished_all_ = true;  // nothing to do (empty trace)
  for (const auto& m : mechs_)  // the mechanisms' first events, in the list's order
    if (m) m->start();
  for (std::uint32_t l = 0; l < loaders_.size() && !finished_all_; ++l) start_loader_arrivals(l);
  // The loop is compiled four times: with the opt-in event digest (RunOptions::digest) and without,
  // so that a run without it pays nothing for it, each over the bare or the hooked request path
  // (hooked_; RunOptions::request_path forces the hooked one).
  const bool hooked = hooked_ || options.request_path == RequestPath::Hooked;
  std::uint64_t events = 0;
  if (options.digest) events = hooked ? event_loop<true, true>(options, wall0) : event_loop<true, false>(options, wall0);
  else events = hooked ? event_loop<false, true>(options, wall0) : event_loop<false, false>(options, wall0);
  if (!window_closed_) close_window();
  if (options.digest) digest_draws(*options.digest);
#if defined(LBSIM_DEBUG_CHECKS) && LBSIM_DEBUG_CHECKS
  check_invariants(true);
  LBSIM_DCHECK(in_flight_ == 0 && finished_ == issued_, "the run ended with operations that never ended");
#endif
  return finish_result(events, std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count(),
                       hooked);
}

RunResult Simulation::Impl::finish_result(std::uint64_t events, double wall, bool hooked) {
  result_.end = now_;
  warn_late_hung();  // sim_client.cpp
  RunResult r = collect();
  r.engine.events = events;
  r.engine.wall_s = wall;
  r.engine.ops_per_wall_s = wall > 0 ? static_cast<double>(finished_) / wall : 0;
  r.engine.ns_per_op = finished_ ? wall * 1e9 / static_cast<double>(finished_) : 0;
  r.engine.peak_rss_mb = peak_rss_mb();
  r.engine.draw_ahead = lookahead_;
  r.engine.hooked = hooked;
  return r;
}

Simulation::Simulation(const Scenario& scenario, const PolicyEntry& entry, std::unique_ptr<policy::Policy> policy,
                       std::uint64_t seed)
    : impl_(std::make_unique<Impl>(scenario, entry, std::move(policy), seed)) {}
Simulation::~Simulation() = default;
RunResult Simulation::run(const RunOptions& options) { return impl_->run(options); }

RunResult run_simulation(const Scenario& scenario, const PolicyEntry& entry, std::uint64_t seed,
                         const RunOptions& options) {
  pause_point("setup");  // LBSIM_PAUSE_AT=setup (sim/core/exit_cleanup.hpp): a test's interrupt during set-up
  policy::BuildContext ctx;
  ctx.topology = &scenario.topology();
  ctx.replication = &scenario.cluster.replication;
  auto pol = policy::make_policy(entry.spec, entry.path, ctx);
  Simulation sim(scenario, entry, std::move(pol), seed);
  return sim.run(options);
}

// The request path's two copies (sim_impl.hpp, hooked_).
template void Simulation::Impl::start_op<false>(std::uint32_t, std::uint32_t);
template void Simulation::Impl::start_op<true>(std::uint32_t, std::uint32_t);
template void Simulation::Impl::finish_op<false>(std::uint32_t, bool, ErrorKind);
template void Simulation::Impl::finish_op<true>(std::uint32_t, bool, ErrorKind);

}  // namespace lbsim
