// The drivers' speculative executions (scenario `speculative`), a mechanism of the engine
// (sim/engine/mechanism.hpp). Sources (re-expressed, no code copied; configs/README.md
// "timeouts, retry, speculative" gives the options' provenance):
// - kind "constant": Java 3.x ConstantSpeculativeExecutionPolicy(delay, max) (4.x
//   `max-executions` counts the first execution), gocql SimpleSpeculativeExecution{NumAttempts,
//   TimeoutDelay}: the next execution `delay` after the previous one was sent, at most
//   1 + max_speculative executions (retries after errors count as executions here);
// - kind "percentile": Java 3.x PercentileSpeculativeExecutionPolicy (scylladb/java-driver
//   driver-core/.../policies/PercentileSpeculativeExecutionPolicy.java at a2d0a7cd) over the
//   PercentileTracker of sim/client/percentile_tracker.hpp, which cites its files; RequestHandler
//   (commit 0c70e223) asks nextExecution(host) once per execution and reports every latency;
// - speculative.host "new_plan": gocql before apache/cassandra-gocql-driver PR #1531 (issue #1530,
//   query_executor.go at 14aa1334): each speculative execution called the policy's Pick again,
//   a plan of its own; "plan" (Java 3.x RequestHandler, 4.x CqlRequestHandler, gocql since the
//   fix) shares the operation's plan, the core's default;
// - only idempotent statements speculate (Java 3.x Statement.isIdempotent, 4.x
//   request.idempotence, gocql Query.Idempotent): lbsim treats every statement except lightweight
//   transactions as idempotent.
#include <limits>
#include <memory>

#include "sim/engine/sim_impl.hpp"
#include "sim/mech/driver_spec/driver_spec.hpp"

namespace lbsim {

std::unique_ptr<Mechanism> make_driver_spec(DriverSpec::Core& core, std::uint16_t id) {
  if (!core.sc_.mech.get<SpeculativeSpec>(MechSpecs::k_driver_spec)) return nullptr;
  return std::make_unique<DriverSpec>(core, id);
}

DriverSpec::DriverSpec(Core& core, std::uint16_t id)
    : DriverSpec(core, id, *core.sc_.mech.get<SpeculativeSpec>(MechSpecs::k_driver_spec)) {}

DriverSpec::DriverSpec(Core& core, std::uint16_t id, const SpeculativeSpec& spec)
    : core_(core), id_(id), max_speculative_(spec.max_speculative), delay_(spec.delay), per_host_(spec.per_host),
      new_plan_(spec.host == SpecHostSource::NewPlan) {
  core.ops_.add_column(first_host_, NodeId{0});
  if (spec.kind == SpecKind::Percentile)
    pct_ = std::make_unique<PercentileTracker>(spec.per_host ? core.n_ : 1, spec.percentile, spec.min_recorded,
                                               spec.interval, spec.highest_trackable_ms);
  Hooks& h = core.hooks_;
  h.attempt_sent.add(this, [](void* s, std::uint32_t op, std::uint32_t attempt, SendKind kind) {
    static_cast<DriverSpec*>(s)->sent(op, attempt, kind);
  });
  if (pct_)
    h.attempt_ended.add(
        this, [](void* s, std::uint32_t attempt, policy::ResponseKind kind) { static_cast<DriverSpec*>(s)->ended(attempt, kind); });
  if (new_plan_ && !h.extra_host)
    h.extra_host = {[](void* s, std::uint32_t op) { return static_cast<DriverSpec*>(s)->extra_host(op); }, this};
}

void DriverSpec::sent(std::uint32_t id, std::uint32_t a, SendKind kind) {
  const auto& op = core_.ops_[id];
  const NodeId host = core_.attempts_[a].host;
  if (kind == SendKind::First) first_host_[id] = host;
  else if (kind == SendKind::Speculative && first_host_[id] == host) ++same_host_;
  // Lightweight transactions are not idempotent: the driver neither speculates nor retries them
  // after a client-side error (Java 3.x: only idempotent statements).
  if (op.kind == OpKind::Lwt || op.executions > max_speculative_) return;
  const SimTime sent = core_.attempts_[a].sent;
  if (!pct_) {
    delays_.push(sent + delay_, id, op.gen);
    arm();
    return;
  }
  // PercentileSpeculativeExecutionPolicy.nextExecution(host): the tracker's latency at the
  // percentile for the host this execution queries; -1 schedules nothing (RequestHandler
  // scheduleExecution returns on a negative delay), so the operation speculates no more.
  const std::int64_t ms = pct_->delay_ms(per_host_ ? host : 0, core_.now_);
  if (ms < 0) {
    ++no_delay_;
    return;
  }
  const SimTime when = sent + ms * kMs;
  pct_timers_.push({when, id, op.gen});
  if (when < pct_armed_) {
    pct_armed_ = when;
    core_.push_mech(when, id_, kPercentile, 0);
  }
}

// The percentile tracker records each execution's latency (Cluster.Manager.reportQuery from
// RequestHandler.SpeculativeExecution onSet / onException / onTimeout) except the fast errors it
// excludes (PercentileTracker.EXCLUDED_EXCEPTIONS: Unavailable, Overloaded, ...) and the executions
// cancelled because another one already answered (CancelledSpeculativeExecutionException).
void DriverSpec::ended(std::uint32_t a, policy::ResponseKind kind) {
  if (kind == policy::ResponseKind::Unavailable || kind == policy::ResponseKind::Overloaded) return;
  const auto& at = core_.attempts_[a];
  const auto& op = core_.ops_[at.op];
  if (op.done || op.decoding) return;
  const SimTime now = core_.now_;
  pct_->record(per_host_ ? at.host : 0, now, now - at.sent);
}

// new_plan: the speculative execution's hosts come from a plan the policy makes for it as for a
// new query (its random draws are the operation's), made in speculate() just before the send.
NodeId DriverSpec::extra_host(std::uint32_t) { return plan_->next(); }

// A speculative execution of operation `id` when its timer fires, unless the operation ended, an
// answer is being decoded or it has had its executions.
void DriverSpec::speculate(std::uint32_t id, std::uint32_t gen) {
  auto& op = core_.ops_[id];
  if (op.gen != gen || op.done || op.decoding || op.executions > max_speculative_) return;
  if (new_plan_) {
    arena_.reset();
    plan_ = core_.policy_of(id).new_plan(core_.request_of(op), core_.op_extra_[id].rnd, arena_);
  }
  if (core_.send_attempt(id, false, policy::kNoHost, true)) ++speculative_;
}

void DriverSpec::arm() {
  // Entries whose operation already ended are dropped from the front at once, so the FIFO holds
  // about the operations in flight (as the core's timeouts: Simulation::Impl::arm).
  while (!delays_.empty()) {
    const DeadlineFifo::Entry& e = delays_.front();
    const auto& op = core_.ops_[e.id];
    if (op.gen == e.gen && !op.done) break;
    delays_.pop();
  }
  if (!delays_.armed && !delays_.empty()) {
    core_.push_mech(delays_.front().at, id_, kDelay, 0);
    delays_.armed = true;
  }
}

void DriverSpec::on_delay() {
  delays_.armed = false;
  const SimTime now = core_.now_;
  while (!delays_.empty() && delays_.front().at <= now) {
    const DeadlineFifo::Entry e = delays_.front();
    delays_.pop();
    speculate(e.id, e.gen);
  }
  arm();
}

void DriverSpec::on_percentile() {
  const SimTime now = core_.now_;
  if (now >= pct_armed_) pct_armed_ = std::numeric_limits<SimTime>::max();
  while (!pct_timers_.empty() && pct_timers_.top().at <= now) {
    const Timer t = pct_timers_.top();
    pct_timers_.pop();
    speculate(t.op, t.gen);
  }
  if (!pct_timers_.empty() && pct_timers_.top().at < pct_armed_) {
    pct_armed_ = pct_timers_.top().at;
    core_.push_mech(pct_armed_, id_, kPercentile, 0);
  }
}

void DriverSpec::on_event(std::uint16_t sub, std::uint32_t) {
  switch (sub) {
    case kDelay: on_delay(); break;
    case kPercentile: on_percentile(); break;
    default: check_fail("driver speculation event of unknown kind", sub);
  }
}

SimTime DriverSpec::next_deadline() const {
  SimTime t = std::numeric_limits<SimTime>::max();
  if (!delays_.empty()) t = delays_.front().at;
  if (!pct_timers_.empty() && pct_timers_.top().at < t) t = pct_timers_.top().at;
  return t;
}

void DriverSpec::collect(RunResult& r) const {
  r.client.speculative = speculative_;
  r.client.speculative_same_host = same_host_;
  if (pct_) r.client.speculative_no_delay = no_delay_;
}

}  // namespace lbsim
