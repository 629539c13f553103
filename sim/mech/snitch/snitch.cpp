// Cassandra's dynamic snitch (cluster.dynamic_snitch, on by default with cluster.server
// cassandra-*), a mechanism of the engine (sim/engine/mechanism.hpp): each coordinator orders a
// read's replicas by scores computed from the latencies of the replica responses it received.
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
#include <array>
#include <cmath>
#include <memory>
#include <numeric>

#include "sim/engine/sim_impl.hpp"
#include "sim/mech/snitch/snitch.hpp"

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

std::unique_ptr<Mechanism> make_snitch(Snitch::Core& core, std::uint16_t id) {
  if (!core.sc_.mech.get<SnitchSpec>(MechSpecs::k_snitch)) return nullptr;
  return std::make_unique<Snitch>(core, id);
}

Snitch::Snitch(Core& core, std::uint16_t id) : core_(core), id_(id), rng_(core.root_.fork("dynamic_snitch")) {
  hosts_.resize(core.n_);
  core.jobs_.add_column(job_sent_, SimTime{0});  // every read job is sent (read_sent) before it answers
  Hooks& h = core.hooks_;
  h.read_sent.add(this, [](void* s, std::uint32_t job) { static_cast<Snitch*>(s)->sent(job); });
  h.read_answer.add(this, [](void* s, std::uint32_t job, NodeId coordinator, NodeId replica, SimTime at) {
    static_cast<Snitch*>(s)->answer(job, coordinator, replica, at);
  });
  h.read_answer_unneeded.add(this, [](void* s, std::uint32_t job) { static_cast<Snitch*>(s)->answer_unneeded(job); });
  if (!h.read_order) {
    h.read_order = {[](void* s, const ClNeed& need, NodeId node, std::span<const NodeId> replicas, std::span<NodeId> out) {
                      return static_cast<Snitch*>(s)->targets(need, node, replicas, out);
                    },
                    this};
  }
}

const SnitchSpec& Snitch::spec() const { return *core_.sc_.mech.get<SnitchSpec>(MechSpecs::k_snitch); }

void Snitch::start() {
  const SnitchSpec& b = spec();
  core_.push_mech(b.update, id_, kUpdate, 0);
  if (b.reset > 0) core_.push_mech(b.reset, id_, kReset, 0);
}

void Snitch::sent(std::uint32_t job) { job_sent_[job] = core_.now_; }

void Snitch::answer(std::uint32_t job, NodeId coordinator, NodeId replica, SimTime at) {
  const std::int64_t ms = (at - job_sent_[job]) / kMs;  // whole milliseconds, truncated
  pending_.push({at, seq_++, coordinator, replica, ms});
}

// The coordinator no longer waits, but the response still arrives and the snitch hears it (its
// callback outlives the request's answer): it draws the network for it.
void Snitch::answer_unneeded(std::uint32_t job) {
  const auto& j = core_.jobs_[job];
  const NodeId coordinator = core_.crs_[j.cr].node;
  answer(job, coordinator, j.node, j.end + core_.net(j.node, coordinator));
}

void Snitch::drain() {
  while (!pending_.empty() && pending_.top().at <= core_.now_) {
    const Pending p = pending_.top();
    pending_.pop();
    record(p.coordinator, p.replica, p.latency_ms, p.at);
  }
}

void Snitch::record(NodeId coordinator, NodeId replica, std::int64_t latency_ms, SimTime at) {
  Host& h = hosts_[coordinator][replica];
  const std::int64_t t = at / kSec;
  if (h.count == 0 && h.samples.empty()) {  // a new reservoir
    h.start_s = t;
    h.next_rescale_s = t + kRescaleSeconds;
  }
  if (t >= h.next_rescale_s) {  // rescale: the start moves to now, weights and priorities shrink
    const double f = std::exp(-kSnitchAlpha * static_cast<double>(t - h.start_s));
    for (Sample& s : h.samples) {
      s.priority *= f;
      s.weight *= f;
    }
    h.start_s = t;
    h.next_rescale_s = t + kRescaleSeconds;
    h.count = h.samples.size();
  }
  const double weight = std::exp(kSnitchAlpha * static_cast<double>(t - h.start_s));
  const double priority = weight / rng_.uniform01_open_low();
  if (++h.count <= kSnitchWindow) {
    h.samples.push_back({priority, weight, latency_ms});
    std::push_heap(h.samples.begin(), h.samples.end(), by_priority<Sample>);
  } else if (h.samples.front().priority < priority) {
    std::pop_heap(h.samples.begin(), h.samples.end(), by_priority<Sample>);
    h.samples.back() = {priority, weight, latency_ms};
    std::push_heap(h.samples.begin(), h.samples.end(), by_priority<Sample>);
  }
}

void Snitch::on_event(std::uint16_t which, std::uint32_t) {
  drain();
  const SnitchSpec& b = spec();
  if (which == kUpdate) {
    for (auto& hosts : hosts_) {
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
    if (!core_.finished_all_) core_.push_mech(core_.now_ + b.update, id_, kUpdate, 0);
  } else {
    for (auto& hosts : hosts_)
      for (auto& [id, h] : hosts) {
        h.samples.clear();
        h.count = 0;
      }
    if (!core_.finished_all_) core_.push_mech(core_.now_ + b.reset, id_, kReset, 0);
  }
}

// DynamicEndpointSnitch.sortedByProximity, then the CL's first targets.
std::size_t Snitch::targets(const ClNeed& need, NodeId node, std::span<const NodeId> replicas, std::span<NodeId> out) {
  const Topology& topo = core_.topo_;
  auto up = [this](NodeId r) { return core_.server_up_[r] != 0; };
  std::array<NodeId, 64> ids;  // written before read
  std::array<std::uint8_t, 64> tiers;
  const std::size_t n = by_proximity(topo, node, replicas, up, ids, tiers);
  const auto& hosts = hosts_[node];
  if (n >= 2 && !hosts.empty()) {
    std::array<double, 64> score, sorted;
    for (std::size_t i = 0; i < n; ++i) {
      const auto it = hosts.find(ids[i]);
      score[i] = it != hosts.end() && it->second.scored ? it->second.score : 0.0;
    }
    const double badness = spec().badness;
    bool by_score = badness == 0;
    if (!by_score) {
      std::copy_n(score.begin(), n, sorted.begin());
      std::sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(n));
      for (std::size_t i = 0; i < n && !by_score; ++i) by_score = score[i] > sorted[i] * (1.0 + badness);
    }
    if (by_score) {
      std::array<std::uint8_t, 64> idx;
      for (std::size_t i = 0; i < n; ++i) idx[i] = static_cast<std::uint8_t>(i);
      std::stable_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(n),
                       [&](std::uint8_t a, std::uint8_t b) { return score[a] < score[b]; });
      std::array<NodeId, 64> sorted_ids;
      for (std::size_t i = 0; i < n; ++i) sorted_ids[i] = ids[idx[i]];
      std::copy_n(sorted_ids.begin(), n, ids.begin());
    }
  }
  return take_targets(need, topo, topo.node_dc[node], std::span<const NodeId>(ids.data(), n), out);
}

double Snitch::score(NodeId c, NodeId r) const {
  const auto it = hosts_[c].find(r);
  return it != hosts_[c].end() && it->second.scored ? it->second.score : -1.0;
}

}  // namespace lbsim
