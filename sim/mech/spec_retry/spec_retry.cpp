// The table option speculative_retry on the coordinator (cluster.speculative_retry; the spec and
// its release rules are SpecRetrySpec in spec_retry_spec.hpp, parsed by spec_retry_config.cpp), a
// mechanism of the engine (sim/engine/mechanism.hpp).
//
// A read is sent to the replicas its consistency level needs, closest first; when the replica
// list holds one more live replica, it is the speculation's: sent at once with ALWAYS, else when
// the threshold has passed without the request being answered (ScyllaDB
// speculating_read_executor::make_requests in service/storage_proxy.cc; Cassandra
// SpeculatingReadExecutor.maybeTryAdditionalReplicas in service/reads/AbstractReadExecutor.java).
// Cassandra does not speculate when the threshold exceeds the read timeout; in ScyllaDB the timer
// would fire after the timeout, so neither does lbsim. Off (NONE), make_spec_retry returns null:
// no event, no random draw, no memory.
#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "sim/engine/sim_impl.hpp"
#include "sim/mech/spec_retry/spec_retry.hpp"

namespace lbsim {

namespace {

// EstimatedHistogram's bucket offsets (apache/cassandra utils/EstimatedHistogram.java newOffsets;
// scylladb/scylladb utils/estimated_histogram.hh, the same series): 1, 2, 3, ... each the previous
// x 1.2 rounded, at least one more. Values above the last offset fall in the last bucket.
const std::vector<double>& spec_offsets() {
  static const std::vector<double> offsets = [] {
    std::vector<double> o;
    double last = 1;
    o.push_back(last);
    for (int i = 1; i < 164; ++i) {  // DecayingEstimatedHistogramReservoir.DEFAULT_BUCKET_COUNT
      double next = std::round(last * 1.2);
      if (next == last) ++next;
      o.push_back(next);
      last = next;
    }
    return o;
  }();
  return offsets;
}

// The offset of the bucket holding the p-th percentile (p in (0, 100)): the first bucket whose
// cumulative count reaches ceil(total x p / 100), as EstimatedHistogram.percentile; 0 when empty.
double percentile_us(const std::vector<double>& counts, double total, double p) {
  const double want = std::ceil(total * p / 100.0);
  if (want <= 0) return 0;
  double seen = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    seen += counts[i];
    if (seen >= want) return spec_offsets()[i];
  }
  return spec_offsets()[counts.size() - 1];
}

}  // namespace

std::unique_ptr<Mechanism> make_spec_retry(SpecRetry::Core& core, std::uint16_t id) {
  if (!core.sc_.mech.get<SpecRetrySpec>(MechSpecs::k_spec_retry)) return nullptr;
  return std::make_unique<SpecRetry>(core, id);
}

SpecRetry::SpecRetry(Core& core, std::uint16_t id)
    : core_(core), id_(id), spec_(*core.sc_.mech.get<SpecRetrySpec>(MechSpecs::k_spec_retry)), mode_(spec_.mode) {
  // split keeps the spare of the modes that wait for a threshold.
  if (mode_ == SpecRetryMode::Fixed || mode_ == SpecRetryMode::Percentile) core.crs_.add_column(extra_, NodeId{0});
  if (mode_ == SpecRetryMode::Percentile) {
    nodes_.resize(core.n_);
    // ScyllaDB's estimated_histogram holds 90 buckets (utils/estimated_histogram.hh default);
    // Cassandra's decaying reservoir 164.
    const std::size_t buckets = spec_.threshold == SpecThreshold::ScyllaLazy ? 90 : 164;
    for (Node& s : nodes_) s.counts.assign(buckets, 0.0);
    core.hooks_.read_done.add(this, [](void* s, std::uint32_t cr) { static_cast<SpecRetry*>(s)->record(cr); });
  }
  Hooks& k = core.hooks_;
  if (k.read_split) check_fail("two mechanisms split reads", id);
  k.read_split = {[](void* s, std::uint32_t cr, std::size_t need, std::span<const NodeId> targets) {
                    return static_cast<SpecRetry*>(s)->split(cr, need, targets);
                  },
                  this, 1};  // one spare: the next replica of the proximity order
}

void SpecRetry::refresh(Node& s) const {
  const SimTime now_ = core_.now_;
  const double p = spec_.percentile;
  if (spec_.threshold == SpecThreshold::ScyllaLazy) {
    // On use, when more than 1 s has passed since the last computation (lowres_clock).
    if (s.computed && now_ - s.refreshed <= 1'000'000'000) return;
    s.computed = true;
    s.refreshed = now_;
    const auto us = static_cast<std::int64_t>(percentile_us(s.counts, s.total, p));
    s.threshold = std::max<std::int64_t>(us / 1000, 1) * kMs;  // whole ms, at least 1
    s.total = 0;
    for (double& c : s.counts) {  // estimated_histogram::operator*=(0.9) on integer counts
      c = std::floor(c * 0.9);
      s.total += c;
    }
    return;
  }
  // Cassandra: every read_request_timeout from the start, the periodic task recomputes it from
  // the decayed histogram (a half-life of 60 s: each period's weights x 2^(-period / 60 s)); an
  // empty histogram keeps the previous value, first read_request_timeout / 2.
  const SimTime period = core_.request_timeout(OpKind::Read);
  if (!s.computed) {
    s.computed = true;
    s.threshold = period / 2;
    s.refreshed = period;
  }
  const double decay = std::exp2(-to_sec(period) / 60.0);
  while (now_ >= s.refreshed) {
    s.refreshed += period;
    s.total = 0;
    for (double& c : s.counts) {
      c *= decay;
      s.total += c;
    }
    if (s.total > 0) s.threshold = static_cast<SimTime>(percentile_us(s.counts, s.total, p) * 1e3);
  }
}

SimTime SpecRetry::threshold(NodeId coordinator) {
  const SpecRetrySpec& r = spec_;
  if (r.mode == SpecRetryMode::Fixed) return r.fixed;
  Node& s = nodes_[coordinator];
  refresh(s);
  return s.threshold;
}

// A read answered (or timed out) at its coordinator: its latency from the coordinator's start
// (the deadline's origin) goes into that coordinator's histogram (ScyllaDB
// table::add_coordinator_read_latency; Cassandra TableMetrics.coordinatorReadLatency). Other
// errors (Unavailable, Overloaded) are not read latencies.
void SpecRetry::record(std::uint32_t cr) {
  const Core::CoordReq& c = core_.crs_[cr];
  if (!c.success && c.error != ErrorKind::ReadTimeout) return;
  Node& s = nodes_[c.node];
  if (spec_.threshold == SpecThreshold::CassandraPeriodic) refresh(s);  // the task runs on its own clock
  const double us = static_cast<double>(core_.now_ - (c.deadline - core_.request_timeout(c.kind))) / 1e3;
  const auto& off = spec_offsets();
  const auto it = std::lower_bound(off.begin(), off.begin() + static_cast<std::ptrdiff_t>(s.counts.size()), us);
  const std::size_t b = std::min<std::size_t>(static_cast<std::size_t>(it - off.begin()), s.counts.size() - 1);
  ++s.counts[b];
  ++s.total;
}

// `targets`: the CL's `need` and, when the replica list holds one more live replica, the next of
// the proximity order (read_order's when a read balancer holds it), the speculation's spare; the
// core splits no EACH_QUORUM read (not modelled with speculation). ALWAYS sends the spare at
// once, and both the first target and the spare get data requests (scylladb/scylladb
// service/storage_proxy.cc always_speculating_read_executor; apache/cassandra
// service/reads/AbstractReadExecutor.java AlwaysSpeculatingReadExecutor).
ReadSplit::Split SpecRetry::split(std::uint32_t cr, std::size_t need, std::span<const NodeId> targets) {
  const std::size_t nt = targets.size();
  if (nt <= need) return {nt, 1};  // no replica to speculate on (CL ALL, or RF = CL)
  if (mode_ == SpecRetryMode::Always) {
    ++reads_;
    return {nt, 2};
  }
  const Core::CoordReq& c = core_.crs_[cr];
  const SimTime wait = threshold(c.node);
  if (wait >= core_.request_timeout(c.kind)) return {need, 1};
  extra_[cr] = targets[need];
  const SimTime at = core_.now_ + wait;
  timers_.push({at, cr, c.gen});
  if (at < armed_) {
    armed_ = at;
    core_.push_mech(at, id_, 0, 0);
  }
  return {need, 1};
}

void SpecRetry::on_event(std::uint16_t, std::uint32_t) {
  Core& core = core_;  // in a register: the heap's stores could otherwise alias the reference
  const SimTime now_ = core.now_;
  if (now_ >= armed_) armed_ = std::numeric_limits<SimTime>::max();
  while (!timers_.empty() && timers_.top().at <= now_) {
    const Timer t = timers_.top();
    timers_.pop();
    if (core.cr_live_[t.cr] != t.gen) continue;  // answered or abandoned
    const Core::CoordReq& c = core.crs_[t.cr];
    if (!core.nodes_.up(c.node) || core.nodes_.went_down(c.node, c.epoch, now_ + 1)) continue;
    ++reads_;
    const NodeId extra = extra_[t.cr];
    core.send_to_replicas(t.cr, std::span<const NodeId>(&extra, 1));
  }
  if (!timers_.empty() && timers_.top().at < armed_) {
    armed_ = timers_.top().at;
    core.push_mech(armed_, id_, 0, 0);
  }
}

void SpecRetry::collect(RunResult& r) const {
  SpecRetryResult s;
  s.option = spec_.option;
  s.reads = reads_;
  for (Node n : nodes_) {  // a copy: the threshold a read would find at the end, state untouched
    refresh(n);
    s.threshold_ms.push_back(to_ms(n.threshold));
  }
  r.speculative_retry = std::move(s);
}

}  // namespace lbsim
