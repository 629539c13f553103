// The table option speculative_retry on the coordinator (cluster.speculative_retry; the rules are
// NodeModelSpec's SpecRetrySpec and ServerRules::spec_threshold in model_spec.hpp).
//
// A read is sent to the replicas its consistency level needs, closest first; when the replica
// list holds one more live replica, it is the speculation's: sent at once with ALWAYS, else when
// the threshold has passed without the request being answered (ScyllaDB
// speculating_read_executor::make_requests in service/storage_proxy.cc; Cassandra
// SpeculatingReadExecutor.maybeTryAdditionalReplicas in service/reads/AbstractReadExecutor.java).
// Cassandra does not speculate when the threshold exceeds the read timeout; in ScyllaDB the timer
// would fire after the timeout, so neither does lbsim. Off (NONE), nothing here runs: no event, no
// random draw, no memory.
#include <algorithm>
#include <cmath>

#include "sim/engine/sim_impl.hpp"

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

void Simulation::Impl::init_spec_retry() {
  spec_mode_ = sc_.nodes.speculative_retry.mode;
  // spec_split keeps the extra replica of the modes that wait for a threshold.
  if (spec_mode_ == SpecRetryMode::Fixed || spec_mode_ == SpecRetryMode::Percentile)
    crs_.add_column(spec_extra_, NodeId{0});
  if (spec_mode_ == SpecRetryMode::Percentile) {
    spec_nodes_.resize(n_);
    // ScyllaDB's estimated_histogram holds 90 buckets (utils/estimated_histogram.hh default);
    // Cassandra's decaying reservoir 164.
    const std::size_t buckets = rules_.spec_threshold == SpecThreshold::ScyllaLazy ? 90 : 164;
    for (SpecNode& s : spec_nodes_) s.counts.assign(buckets, 0.0);
  }
}

void Simulation::Impl::spec_refresh(SpecNode& s) {
  const double p = sc_.nodes.speculative_retry.percentile;
  if (rules_.spec_threshold == SpecThreshold::ScyllaLazy) {
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
  const SimTime period = request_timeout(OpKind::Read);
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

SimTime Simulation::Impl::spec_threshold(NodeId coordinator) {
  const SpecRetrySpec& r = sc_.nodes.speculative_retry;
  if (r.mode == SpecRetryMode::Fixed) return r.fixed;
  SpecNode& s = spec_nodes_[coordinator];
  spec_refresh(s);
  return s.threshold;
}

// A read answered (or timed out) at its coordinator: its latency from the coordinator's start
// (the deadline's origin) goes into that coordinator's histogram (ScyllaDB
// table::add_coordinator_read_latency; Cassandra TableMetrics.coordinatorReadLatency).
void Simulation::Impl::spec_record(const CoordReq& c) {
  SpecNode& s = spec_nodes_[c.node];
  if (rules_.spec_threshold == SpecThreshold::CassandraPeriodic) spec_refresh(s);  // the task runs on its own clock
  const double us = static_cast<double>(now_ - (c.deadline - request_timeout(c.kind))) / 1e3;
  const auto& off = spec_offsets();
  const auto it = std::lower_bound(off.begin(), off.begin() + static_cast<std::ptrdiff_t>(s.counts.size()), us);
  const std::size_t b = std::min<std::size_t>(static_cast<std::size_t>(it - off.begin()), s.counts.size() - 1);
  ++s.counts[b];
  ++s.total;
}

std::size_t Simulation::Impl::spec_split(std::uint32_t cr, std::size_t need, std::size_t nt,
                                         std::span<const NodeId> targets) {
  if (nt <= need) return nt;  // no replica to speculate on (CL ALL, or RF = CL)
  CoordReq& c = crs_[cr];
  if (spec_mode_ == SpecRetryMode::Always) {
    ++spec_reads_;
    return nt;
  }
  const SimTime threshold = spec_threshold(c.node);
  if (threshold >= request_timeout(c.kind)) return need;
  spec_extra_[cr] = targets[need];
  const SimTime at = now_ + threshold;
  spec_timers_.push({at, cr, c.gen});
  if (at < spec_armed_) {
    spec_armed_ = at;
    push_mech(at, kMechSpecRetry, 0, 0);
  }
  return need;
}

void Simulation::Impl::on_spec_timer() {
  if (now_ >= spec_armed_) spec_armed_ = std::numeric_limits<SimTime>::max();
  while (!spec_timers_.empty() && spec_timers_.top().at <= now_) {
    const SpecTimer t = spec_timers_.top();
    spec_timers_.pop();
    if (cr_live_[t.cr] != t.gen) continue;  // answered or abandoned
    const CoordReq& c = crs_[t.cr];
    if (!nodes_.up(c.node) || nodes_.went_down(c.node, c.epoch, now_ + 1)) continue;
    ++spec_reads_;
    const NodeId extra = spec_extra_[t.cr];
    send_to_replicas(t.cr, std::span<const NodeId>(&extra, 1));
  }
  if (!spec_timers_.empty() && spec_timers_.top().at < spec_armed_) {
    spec_armed_ = spec_timers_.top().at;
    push_mech(spec_armed_, kMechSpecRetry, 0, 0);
  }
}

}  // namespace lbsim
