// Cassandra's dynamic snitch (cluster.dynamic_snitch, on by default with cluster.server
// cassandra-*): each coordinator orders a read's replicas by scores computed from the latencies of
// the replica responses it received.
//
// Sources (apache/cassandra src/java/org/apache/cassandra/locator/DynamicEndpointSnitch.java, read
// at 00f2c1e2f1; 3.11 has the same algorithm over InetAddress; re-expressed, no code copied):
// - receiveTiming: every response to a read (data or digest; ReadCallback tracks latency for the
//   snitch, write and Paxos handlers do not) adds its latency, truncated to whole milliseconds
//   (3.11: MessagingService.addLatency in ms; 4.x: unit.toMillis), to the replica's
//   ExponentiallyDecayingReservoir(100, 0.75), created on the first sample. The coordinator's own
//   local reads count for itself (LocalReadRunnable).
// - updateScores, every dynamic_snitch_update_interval (a fixed-delay task from start-up): the
//   median of each reservoir, divided by the largest median (at least 1), plus the gossiped
//   severity (0 here: compaction is not modelled). Hosts without samples have no score (read as 0).
// - reset, every dynamic_snitch_reset_interval: every reservoir is dropped (the scores stay until
//   the next update, which scores only the hosts sampled since).
// - sortedByProximity: with badness threshold b > 0, the subsnitch order (here lbsim's proximity
//   order: the node itself, its rack, its DC, the rest, ties in replica order, as
//   GossipingPropertyFileSnitch's AbstractNetworkTopologySnitch) is kept unless some replica's
//   score in that order exceeds (1 + b) x the score at the same position of the sorted scores; then
//   the replicas are sorted by score (ties by subsnitch order). b = 0: always sorted by score.
// The reservoir is com.codahale.metrics' ExponentiallyDecayingReservoir (metrics-core 3.1, forward
// decay after Cormode et al.): a sample at t seconds (whole seconds) has weight e^(0.75 (t - start))
// and priority weight / u, u uniform; the 100 highest priorities are kept; every hour the start
// moves to now and weights and priorities are scaled down. Its median is WeightedSnapshot's: values
// sorted, the value at the last position whose cumulative normalised weight before it is <= 0.5.
//
// Modelling choices (configs/README.md "cluster.dynamic_snitch"): a response's sample is computed
// when its completion is scheduled and enters the reservoir in arrival-time order at the next
// update or reset tick that is not earlier than its arrival, which is what the snitch would have
// seen then; every node's snitch started at t = 0 (assumed: the ticks of all nodes coincide);
// responses lost to a node failure after their work was scheduled still count.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/engine/sim_impl.hpp"

namespace lbsim {

namespace {
constexpr std::size_t kSnitchWindow = 100;      // DynamicEndpointSnitch.WINDOW_SIZE
constexpr double kSnitchAlpha = 0.75;           // DynamicEndpointSnitch.ALPHA
constexpr std::int64_t kRescaleSeconds = 3600;  // ExponentiallyDecayingReservoir.RESCALE_THRESHOLD (1 h)

// std heap functions with this comparator: a min-heap on priority.
template <class Sample>
bool by_priority(const Sample& a, const Sample& b) {
  return a.priority > b.priority;
}

// WeightedSnapshot.getMedian over a reservoir's samples.
template <class Sample>
double weighted_median(std::vector<Sample> s) {
  if (s.empty()) return 0;
  std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.value_ms < b.value_ms; });
  double sum = 0;
  for (const auto& x : s) sum += x.weight;
  double before = 0;  // quantiles[i]: the normalised weight of the samples before i
  std::size_t pos = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double q = sum > 0 ? before / sum : 0;
    if (q > 0.5) break;
    pos = i;
    before += s[i].weight;
  }
  return static_cast<double>(s[pos].value_ms);
}
}  // namespace

void Simulation::Impl::snitch_init() {
  snitch_ = sc_.nodes.balancing.dynamic_snitch;
  if (!snitch_) return;
  snitch_rng_ = root_.fork("dynamic_snitch");
  snitch_hosts_.resize(n_);
  push_mech(sc_.nodes.balancing.snitch_update, kMechSnitch, kSnitchUpdate, 0);
  if (sc_.nodes.balancing.snitch_reset > 0) push_mech(sc_.nodes.balancing.snitch_reset, kMechSnitch, kSnitchReset, 0);
}

void Simulation::Impl::snitch_sent(std::uint32_t job) {
  if (job >= job_sent_.size()) job_sent_.resize(std::max<std::size_t>(job + 1, 2 * job_sent_.size()));
  job_sent_[job] = now_;
}

void Simulation::Impl::snitch_answer(std::uint32_t job, SimTime at) {
  const Job& j = jobs_[job];
  const CoordReq& c = crs_[j.cr];
  if (c.kind != OpKind::Read || job >= job_sent_.size()) return;
  const std::int64_t ms = (at - job_sent_[job]) / kMs;  // whole milliseconds, truncated
  snitch_pending_.push({at, snitch_seq_++, c.node, j.node, ms});
}

void Simulation::Impl::snitch_drain() {
  while (!snitch_pending_.empty() && snitch_pending_.top().at <= now_) {
    const SnitchPending p = snitch_pending_.top();
    snitch_pending_.pop();
    snitch_record(p.coordinator, p.replica, p.latency_ms, p.at);
  }
}

void Simulation::Impl::snitch_record(NodeId coordinator, NodeId replica, std::int64_t latency_ms, SimTime at) {
  SnitchHost& h = snitch_hosts_[coordinator][replica];
  const std::int64_t t = at / kSec;
  if (h.count == 0 && h.samples.empty()) {  // a new reservoir
    h.start_s = t;
    h.next_rescale_s = t + kRescaleSeconds;
  }
  if (t >= h.next_rescale_s) {  // rescale: the start moves to now, weights and priorities shrink
    const double f = std::exp(-kSnitchAlpha * static_cast<double>(t - h.start_s));
    for (SnitchSample& s : h.samples) {
      s.priority *= f;
      s.weight *= f;
    }
    h.start_s = t;
    h.next_rescale_s = t + kRescaleSeconds;
    h.count = h.samples.size();
  }
  const double weight = std::exp(kSnitchAlpha * static_cast<double>(t - h.start_s));
  const double priority = weight / snitch_rng_.uniform01_open_low();
  if (++h.count <= kSnitchWindow) {
    h.samples.push_back({priority, weight, latency_ms});
    std::push_heap(h.samples.begin(), h.samples.end(), by_priority<SnitchSample>);
  } else if (h.samples.front().priority < priority) {
    std::pop_heap(h.samples.begin(), h.samples.end(), by_priority<SnitchSample>);
    h.samples.back() = {priority, weight, latency_ms};
    std::push_heap(h.samples.begin(), h.samples.end(), by_priority<SnitchSample>);
  }
}

void Simulation::Impl::on_snitch_timer(std::uint32_t which) {
  snitch_drain();
  const ReadBalancingSpec& b = sc_.nodes.balancing;
  if (which == kSnitchUpdate) {
    for (auto& hosts : snitch_hosts_) {
      if (hosts.empty()) continue;
      double max_latency = 1;
      for (auto& [id, h] : hosts) {
        if (h.samples.empty()) continue;
        h.score = weighted_median(h.samples);
        max_latency = std::max(max_latency, h.score);
      }
      for (auto& [id, h] : hosts) {
        h.scored = !h.samples.empty();
        if (h.scored) h.score /= max_latency;
      }
    }
    if (!finished_all_) push_mech(now_ + b.snitch_update, kMechSnitch, kSnitchUpdate, 0);
  } else {
    for (auto& hosts : snitch_hosts_)
      for (auto& [id, h] : hosts) {
        h.samples.clear();
        h.count = 0;
      }
    if (!finished_all_) push_mech(now_ + b.snitch_reset, kMechSnitch, kSnitchReset, 0);
  }
}

}  // namespace lbsim
