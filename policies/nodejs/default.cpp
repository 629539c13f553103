// NodeDefault: semantics of cassandra-driver 4.10.0 (npm; lib/policies/load-balancing.js)
// DefaultLoadBalancingPolicy, the driver's default policy, with lib/host.js for its inputs.
// - distance: IGNORED for a host the filter rejects ("filter": an allow-list of node ids standing
//   for the driver's filter function), LOCAL in local_dc, IGNORED elsewhere (no remote DCs).
// - No routing key or keyspace (!req.routed): the local hosts (filter-passed, local DC, in node
//   order) rotated from _getIndex() (starts at 0, returns then increments, wraps to 0 at 2^31-1),
//   up ones only. The generator runs lazily: the index advances on the plan's first next().
// - Routed: the replicas that pass the filter, are in the local DC and up (at plan creation); in
//   the same pass, in replica order:
//   - newly up: isUpSince set and now - isUpSince < 60 s; the most recent wins (strictly later);
//   - unhealthy (counted only while no newly-up replica has been seen yet): in flight >= 10 and
//     getResponseCount() <= 1.
//   Then Fisher-Yates over them (utils.shuffleArray: n-1 Math.random draws). With 3 or more:
//   - no newly-up replica and 0 < unhealthy < floor(n/2 + 1): _sendUnhealthyToTheBack, which
//     walks from the back and SWAPS each unhealthy replica with the slot n-1-moved (not stable);
//   - else a newly-up replica at position 0 or 1 is swapped with the last one when
//     Math.random() * 4 >= 1 (75%; the draw happens only in that case);
//   - then if in_flight(r[1]) < in_flight(r[0]) the two are swapped (power of two choices).
//   The plan yields those replicas, then the local hosts rotated from _getIndex() minus those
//   replicas and down hosts; the index advances only when a plan gets there (lazy generator).
// - getResponseCount (lib/host.js): responses of the last complete 200 ms window (a per-host
//   setInterval) plus those of the current one. lbsim aligns the windows at multiples of 200 ms
//   of simulated time; every answer counts, client timeouts included (OperationState calls back
//   with OperationTimedOutError, which is not a socket error, so 'responseDequeued' fires).
// - isUpSince is set when a down host is marked up. on_up() carries no time, so lbsim stamps it
//   with the latest time the policy has seen (a request, a send or a response): with traffic
//   flowing that is within one inter-arrival gap of the event. restore_state sets it exactly.
// - Down hosts reached later in the plan are skipped as the RequestHandler skips them; a host the
//   "nodejs-4.10" replica map lists twice is yielded twice (yieldReplicasFirst yields every entry
//   and the RequestHandler does not remember the hosts it tried).
// - Not modelled: the per-request preferredHost (ExecutionOptions.getPreferredHost, DSE graph
//   analytics only) and the test-only injection hooks (isHostNewlyUp, healthCheck, compare).
// - Math.random is per V8 isolate, without contention: thread_local draws.
#include <limits>

#include "policies/nodejs/replicas.hpp"
#include "policies/plan_util.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

constexpr SimTime kNodeNewlyUpInterval = 60 * kSec;
constexpr SimTime kResponseWindow = 200 * kMs;  // healthResponseCountInterval
constexpr std::int32_t kBusyInFlight = 10;
constexpr std::int64_t kIndexWrap = 0x7fffffff;

// floor(t / kResponseWindow), also for negative t.
constexpr std::int64_t window_of(SimTime t) {
  const std::int64_t q = t / kResponseWindow;
  return (t % kResponseWindow != 0 && t < 0) ? q - 1 : q;
}

struct HostHealth {
  std::int64_t window = std::numeric_limits<std::int64_t>::min();  // window of `current`
  std::int32_t current = 0;   // pool.responseCounter
  std::int32_t previous = 0;  // _healthResponseCounter: the window before `window`
  bool has_up_since = false;
  SimTime up_since = 0;

  std::int32_t count(SimTime now) const {
    const std::int64_t w = window_of(now);
    if (w == window) return previous + current;
    if (window != std::numeric_limits<std::int64_t>::min() && w == window + 1) return current;
    return 0;
  }
  void record(SimTime now) {
    const std::int64_t w = window_of(now);
    if (w != window) {
      previous = (window != std::numeric_limits<std::int64_t>::min() && w == window + 1) ? current : 0;
      current = 0;
      window = w;
    }
    ++current;
  }
};

class NodeDefault;

class NodeDefaultPlan final : public Plan {
 public:
  NodeDefaultPlan(NodeDefault* p, std::span<const HostId> replicas) : p_(p), replicas_(replicas) {}
  HostId next() override;

 private:
  NodeDefault* p_;
  std::span<const HostId> replicas_;
  std::size_t pos_ = 0;
  bool started_ = false;  // the local-hosts generator has run (and taken its index)
  std::int64_t start_ = 0;
  std::size_t local_pos_ = 0;
};

class NodeDefault final : public Policy {
 public:
  NodeDefault(std::string local_dc, std::optional<std::vector<std::string>> filter, nodejs::ReplicaSource src)
      : local_dc_name_(std::move(local_dc)), filter_ids_(std::move(filter)), src_(std::move(src)) {}

  void init(const ClusterView& view, Rng&) override {
    view_ = &view;
    const Topology& t = view.topology();
    const auto d = t.dc_index(local_dc_name_);
    local_dc_ = d ? *d : kNoDc;
    allowed_ = filter_ids_ ? nodejs::node_mask(t, *filter_ids_) : std::vector<std::uint8_t>(view.size(), 1);
    local_hosts_.clear();
    local_hosts_.reserve(view.size());
    members_version_ = view.members_version();
    for (HostId h = 0; h < view.size(); ++h)
      if (candidate(h) && view.is_known(h)) local_hosts_.push_back(h);
    health_.assign(view.size(), HostHealth{});
    if (src_.nodejs) map_ = std::make_unique<nodejs::ReplicaMap>(t, *src_.nodejs);
  }
  Distance distance(HostId h) const override { return candidate(h) ? Distance::Local : Distance::Ignored; }

  Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) override {
    if (view_->members_version() != members_version_) {
      // The host map changed (a node joined or was removed): removed hosts leave the list, new
      // ones are appended (a JavaScript Map's insertion order).
      members_version_ = view_->members_version();
      std::erase_if(local_hosts_, [&](HostId h) { return !view_->is_known(h); });
      for (HostId h = 0; h < view_->size(); ++h)
        if (candidate(h) && view_->is_known(h) && !contains(local_hosts_, h)) local_hosts_.push_back(h);
    }
    seen(req.now);
    if (!req.routed) return arena.make<NodeDefaultPlan>(this, std::span<const HostId>{});
    const std::span<const HostId> replicas = nodejs::replicas_for(req, map_.get());
    std::span<HostId> r = arena.hosts(replicas.size());
    std::size_t n = 0;
    HostId newest = kNoHost;
    SimTime newest_since = std::numeric_limits<SimTime>::min();
    std::size_t unhealthy = 0;
    for (HostId h : replicas) {
      if (!candidate(h) || !view_->is_up(h)) continue;
      const HostHealth& s = health_[h];
      if (s.has_up_since && req.now - s.up_since < kNodeNewlyUpInterval && s.up_since > newest_since) {
        newest = h;
        newest_since = s.up_since;
      }
      if (newest == kNoHost && !healthy(h, req.now)) ++unhealthy;
      r[n++] = h;
    }
    r = r.first(n);
    java_shuffle(r, rnd, RngModel::ThreadLocal);  // the same Fisher-Yates as utils.shuffleArray
    if (n >= 3) {
      if (newest == kNoHost) {
        if (unhealthy > 0 && unhealthy < n / 2 + 1) send_unhealthy_to_the_back(r, unhealthy, req.now);
      } else if ((newest == r[0] || newest == r[1]) && rnd.below(4, RngModel::ThreadLocal) >= 1) {
        std::swap(r[newest == r[0] ? 0 : 1], r[n - 1]);
      }
      if (view_->in_flight(r[1]) < view_->in_flight(r[0])) std::swap(r[0], r[1]);
    }
    return arena.make<NodeDefaultPlan>(this, r);
  }

  void on_up(HostId h) override {
    health_[h].has_up_since = true;
    health_[h].up_since = last_seen_;
  }
  void on_request_sent(HostId, SimTime now) override { seen(now); }
  void on_response(HostId h, SimTime now, SimTime, ResponseKind) override {
    seen(now);
    health_[h].record(now);
  }
  // Overwrites: the given response timestamps are replayed into fresh windows; up_time is isUpSince.
  void restore_state(HostId h, const HostState& s) override {
    HostHealth fresh;
    for (int i = 0; i < std::clamp(s.response_count, 0, 2); ++i) fresh.record(s.response_times[static_cast<std::size_t>(i)]);
    fresh.has_up_since = s.up_time.has_value();
    fresh.up_since = s.up_time.value_or(0);
    health_[h] = fresh;
  }
  bool adaptive() const override { return true; }
  bool reads_in_flight() const override { return true; }
  bool has_driver_replicas() const override { return map_ != nullptr; }
  std::span<const HostId> driver_replicas(Token t) const override {
    return map_ ? map_->replicas(t) : std::span<const HostId>{};
  }

  // For the plans.
  std::int64_t take_index() {
    const std::int64_t result = index_++;
    if (index_ == kIndexWrap) index_ = 0;
    return result;
  }
  const std::vector<HostId>& local_hosts() const { return local_hosts_; }
  bool is_up(HostId h) const { return view_->is_up(h); }

 private:
  bool candidate(HostId h) const { return allowed_[h] && view_->dc(h) == local_dc_; }
  bool healthy(HostId h, SimTime now) const {
    return !(view_->in_flight(h) >= kBusyInFlight && health_[h].count(now) <= 1);
  }
  void send_unhealthy_to_the_back(std::span<HostId> r, std::size_t unhealthy, SimTime now) const {
    std::size_t moved = 0;
    for (std::size_t i = r.size(); i-- > 0 && moved < unhealthy;) {
      if (healthy(r[i], now)) continue;
      const std::size_t target = r.size() - 1 - moved;
      if (target != i) std::swap(r[target], r[i]);
      ++moved;
    }
  }
  void seen(SimTime now) { last_seen_ = std::max(last_seen_, now); }

  std::string local_dc_name_;
  std::optional<std::vector<std::string>> filter_ids_;
  nodejs::ReplicaSource src_;
  std::unique_ptr<nodejs::ReplicaMap> map_;
  const ClusterView* view_ = nullptr;
  std::uint32_t local_dc_ = kNoDc;
  std::vector<std::uint8_t> allowed_;
  std::vector<HostId> local_hosts_;  // _getFilteredLocalHosts(): the known hosts (ClusterView::is_known)
  std::uint64_t members_version_ = 0;
  std::vector<HostHealth> health_;
  std::int64_t index_ = 0;
  SimTime last_seen_ = 0;
};

HostId NodeDefaultPlan::next() {
  while (pos_ < replicas_.size()) {
    const HostId h = replicas_[pos_++];
    if (!p_->is_up(h)) continue;
    return h;
  }
  if (!started_) {
    started_ = true;
    start_ = p_->take_index();
  }
  const auto& hosts = p_->local_hosts();
  while (local_pos_ < hosts.size()) {
    const HostId h = hosts[(local_pos_++ + static_cast<std::size_t>(start_)) % hosts.size()];
    if (!contains(replicas_, h) && p_->is_up(h)) return h;
  }
  return kNoHost;
}

std::unique_ptr<Policy> make_node_default(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "local_dc", "filter", "replica_source"});
  auto dc = dc_param(o, "local_dc", ctx);
  if (!dc)
    jsonin::fail(o.path_of("local_dc"),
                 "required field is missing (the Node.js driver refuses to start without localDataCenter)");
  auto filter = nodejs::node_list_param(o, "filter", ctx);
  nodejs::ReplicaSource src = nodejs::replica_source_param(o, ctx);
  return std::make_unique<NodeDefault>(std::move(*dc), std::move(filter), std::move(src));
}

}  // namespace

LBSIM_REGISTER_POLICY(NodeDefault, Driver::NodeJs,
                      "Node.js driver 4.10 DefaultLoadBalancingPolicy: local up replicas shuffled, a newly-up one sent "
                      "last 75% of the time, busy unresponsive ones sent back while a majority is healthy, the less "
                      "busy of the first two first; then the local hosts round-robin (index taken lazily)",
                      (std::vector<ParamInfo>{
                          {"local_dc", "a datacenter of the topology", "required"},
                          {"filter", "a list of node ids (the hosts the filter function accepts)", "none: every host"},
                          {"replica_source", nodejs::kReplicaSourceValues, "correct"}}),
                      make_node_default)

}  // namespace lbsim::policy
