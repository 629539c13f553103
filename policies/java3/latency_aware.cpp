// LatencyAware: semantics of Java driver 3.x LatencyAwarePolicy (J3 policies/LatencyAwarePolicy.java).
// - Per host, a TimestampedAverage {timestamp, average, nbMeasure}: samples with nbMeasure below
//   30% of min_measure (integer 30*min/100) leave the average at -1; the first counted sample
//   becomes the average; later ones decay it with d = (now - last)/scale,
//   w = ln(1 + d)/d, avg = (long)((1-w)*sample + w*avg). A sample with now <= last is dropped.
// - Counted: successes and every error except Unavailable and Overloaded (the driver's
//   EXCLUDED_EXCEPTIONS); client and server timeouts are counted.
// - Every update_rate (a fixed-rate timer started at init, time 0) the minimum is recomputed over
//   hosts with average >= 0, nbMeasure >= min_measure and a sample within retry_period; when no
//   host qualifies the previous minimum stays. lbsim runs missed ticks lazily but exactly.
// - A plan walks the child plan: a host is returned at once if there is no minimum yet, no data,
//   fewer than min_measure samples, no sample within retry_period, or average <=
//   (long)(threshold * min); otherwise it is queued and returned after the child plan. "now" is the
//   request time (the driver reads the clock at each step).
// - Stats of a host are reset when it goes down; a host coming up starts a fresh tracker.
// - min_updates false: the update timer never runs, the minimum stays unknown (-1) and every plan
//   is the child's. The DataStax C++ driver's LatencyAwarePolicy is a port with these rules
//   (src/latency_aware_policy.cpp at datastax/cpp-driver 10fdfbe9: on_timer's minimum over hosts
//   with >= min_measured samples within retry_period; compute_next returns a host at once when
//   min < 0, else skips it past threshold x min); before CPP-935 (apache/cassandra-cpp-driver#502,
//   "Latency-aware policy update timer wasn't started on request processors") on_timer never ran.
// Under TokenAware NEUTRAL (as the javadoc asks) the plan describes its round-robin child's
// rotation with the hosts it defers (Plan::deferred / pass): NEUTRAL then finds its replicas by
// position, in O(RF + hosts that may be excluded) instead of walking O(DC size) hosts (issue 14).
// The hosts that may be excluded (every condition but the retry_period's ageing, which is checked
// when asked) are kept in a list, updated with each sample and rebuilt when the minimum changes.
#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <utility>
#include <vector>

#include "policies/plan_util.hpp"
#include "sim/core/check.hpp"
#include "policies/registry.hpp"
#include "policies/wrappers.hpp"

namespace lbsim::policy {
namespace {

struct Tracker {
  bool present = false;  // the driver has a HostLatencyTracker for the host
  bool has_data = false;  // ...and it has recorded at least one sample
  SimTime timestamp = 0;
  std::int64_t average = -1;
  std::int64_t count = 0;
};

class LatencyAware;

class LatencyPlan final : public Plan {
 public:
  LatencyPlan(const LatencyAware* p, Plan* child, SimTime now, PlanArena* arena)
      : p_(p), child_(child), now_(now), arena_(arena) {}
  HostId next() override;
  bool rotation(RotationView& v) const override {
    if (queued_ != 0 || !child_->rotation(v) || v.deferring) return false;
    v.deferring = true;
    return true;
  }
  void skip_rotation() override { child_->skip_rotation(); }
  bool deferred(HostId h) const override;
  void pass(const RotationView& v, std::size_t from, std::size_t to) override;
  bool passed_deferred(HostId h) override {
    if (rot_seen_ < rot_queued_ && skipped_[rot_seen_] == h) {
      ++rot_seen_;
      return true;
    }
    return false;
  }

 private:
  void queue(HostId h);
  const LatencyAware* p_;
  Plan* child_;
  SimTime now_;
  PlanArena* arena_;
  HostId* skipped_ = nullptr;  // the deferred hosts; room for capacity_, doubled when full
  std::uint32_t queued_ = 0, polled_ = 0, capacity_ = 0;
  // The first rot_queued_ hosts of skipped_ were queued by pass(), in position order;
  // passed_deferred() has matched rot_seen_ of them.
  std::uint32_t rot_queued_ = 0, rot_seen_ = 0;
};

class LatencyAware final : public Policy {
 public:
  LatencyAware(std::unique_ptr<Policy> child, LatencyAwareOptions o)
      : child_(std::move(child)), o_(o), warmup_(30 * o.min_measure / 100) {}

  void init(const ClusterView& view, Rng& rng) override {
    view_ = &view;
    child_->init(view, rng);
    trackers_.assign(view.size(), Tracker{});
    for (HostId h = 0; h < view.size(); ++h) trackers_[h].present = view.is_up(h);
    at_.assign(view.size(), kAbsent);
    maybe_.clear();
    next_tick_ = o_.update_rate;
  }
  Distance distance(HostId h) const override { return child_->distance(h); }

  Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) override {
    advance(req.now);
    return arena.make<LatencyPlan>(this, child_->new_plan(req, rnd, arena), req.now, &arena);
  }

  void on_up(HostId h) override {
    child_->on_up(h);
    if (!trackers_[h].present) trackers_[h] = Tracker{true, false, 0, -1, 0};
    update_maybe(h);
  }
  void on_down(HostId h) override {
    child_->on_down(h);
    trackers_[h] = Tracker{};
    update_maybe(h);
  }
  void on_request_sent(HostId h, SimTime now) override { child_->on_request_sent(h, now); }
  void on_response(HostId h, SimTime now, SimTime latency, ResponseKind k) override {
    advance(now);
    child_->on_response(h, now, latency, k);
    if (k == ResponseKind::Unavailable || k == ResponseKind::Overloaded) return;
    add_sample(trackers_[h], now, latency);
    update_maybe(h);
  }
  void restore_state(HostId h, const HostState& s) override {
    child_->restore_state(h, s);
    Tracker& t = trackers_[h];
    t.present = true;
    t.has_data = s.has_latency;
    t.timestamp = s.latency_updated;
    t.average = s.latency_average;
    t.count = s.latency_samples;
    update_maybe(h);
  }
  bool adaptive() const override { return true; }
  bool reads_in_flight() const override { return child_->reads_in_flight(); }

  // True when `h` goes to the end of plans made at `now`.
  bool excluded(HostId h, SimTime now) const {
    const Tracker& t = trackers_[h];
    if (min_ < 0 || !t.has_data || t.count < o_.min_measure || now - t.timestamp > o_.retry_period) return false;
    return t.average > static_cast<std::int64_t>(o_.exclusion_threshold * static_cast<double>(min_));
  }
  // Every host that excluded() may be true for (in no particular order).
  std::span<const HostId> maybe_excluded() const { return maybe_; }
  // excluded(), reading a host's tracker only when it may be excluded: the list's index is 4 bytes
  // a host, the trackers 32 (at 3,000 hosts, 12 KB against 96 KB read at random per plan).
  bool excluded_now(HostId h, SimTime now) const {
    LBSIM_DCHECK(at_[h] != kAbsent || !excluded(h, now), "an excluded host is missing from the may-be-excluded list");
    return at_[h] != kAbsent && excluded(h, now);
  }

 private:
  void add_sample(Tracker& t, SimTime now, SimTime latency) {
    if (!t.present) return;  // no tracker: the driver ignores the sample
    const std::int64_t n = t.has_data ? t.count + 1 : 1;
    if (n < warmup_) {
      t = Tracker{true, true, now, -1, n};
      return;
    }
    if (!t.has_data || t.average < 0) {
      t = Tracker{true, true, now, latency, n};
      return;
    }
    const SimTime delay = now - t.timestamp;
    if (delay <= 0) return;
    const double d = static_cast<double>(delay) / static_cast<double>(o_.scale);
    const double w = std::log(d + 1) / d;
    const auto avg = static_cast<std::int64_t>((1.0 - w) * static_cast<double>(latency) + w * static_cast<double>(t.average));
    t = Tracker{true, true, now, avg, n};
  }

  // Runs the update ticks up to `now`. Between two events nothing but time changes, and a host
  // only leaves the qualifying set by ageing, so the minimum after the missed ticks is the one of
  // the last tick at which some host still qualified.
  void advance(SimTime now) {
    if (now < next_tick_ || !o_.min_updates) return;
    const SimTime first = next_tick_;
    const SimTime last = first + (now - first) / o_.update_rate * o_.update_rate;
    next_tick_ = last + o_.update_rate;
    SimTime best_tick = kNone;
    for (const Tracker& t : trackers_) {
      if (!qualifies_ever(t)) continue;
      const SimTime deadline = t.timestamp + o_.retry_period;  // qualifies at ticks <= deadline
      if (deadline < first) continue;
      const SimTime tick = deadline >= last ? last : first + (deadline - first) / o_.update_rate * o_.update_rate;
      best_tick = std::max(best_tick, tick);
    }
    if (best_tick == kNone) return;
    std::int64_t m = INT64_MAX;
    for (const Tracker& t : trackers_)
      if (qualifies_ever(t) && best_tick - t.timestamp <= o_.retry_period) m = std::min(m, t.average);
    if (m == min_) return;
    min_ = m;
    for (HostId h = 0; h < trackers_.size(); ++h) update_maybe(h);  // once per update_rate at most
  }
  // excluded() without the ageing condition, which only turns an exclusion off.
  bool may_be_excluded(const Tracker& t) const {
    if (min_ < 0 || !t.has_data || t.count < o_.min_measure) return false;
    return t.average > static_cast<std::int64_t>(o_.exclusion_threshold * static_cast<double>(min_));
  }
  void update_maybe(HostId h) {
    const bool in = at_[h] != kAbsent;
    if (may_be_excluded(trackers_[h]) == in) return;
    if (!in) {
      at_[h] = static_cast<std::uint32_t>(maybe_.size());
      maybe_.push_back(h);
      return;
    }
    const HostId last = maybe_.back();
    maybe_[at_[h]] = last;
    at_[last] = at_[h];
    maybe_.pop_back();
    at_[h] = kAbsent;
  }
  bool qualifies_ever(const Tracker& t) const { return t.has_data && t.average >= 0 && t.count >= o_.min_measure; }

  static constexpr SimTime kNone = INT64_MIN;
  std::unique_ptr<Policy> child_;
  LatencyAwareOptions o_;
  std::int64_t warmup_;
  const ClusterView* view_ = nullptr;
  std::vector<Tracker> trackers_;
  std::int64_t min_ = -1;  // cachedMin
  SimTime next_tick_ = 0;
  static constexpr std::uint32_t kAbsent = 0xffffffffu;
  std::vector<HostId> maybe_;       // hosts with may_be_excluded()
  std::vector<std::uint32_t> at_;   // per host: its index in maybe_, or kAbsent
};

HostId LatencyPlan::next() {
  for (HostId h = child_->next(); h != kNoHost; h = child_->next()) {
    if (!p_->excluded_now(h, now_)) return h;
    queue(h);
  }
  return polled_ < queued_ ? skipped_[polled_++] : kNoHost;
}

void LatencyPlan::queue(HostId h) {
  // Few hosts are deferred (the slow ones): room for 8 first, not for the whole cluster (at 3,000
  // hosts that was 12 KB of plan memory for each plan that deferred one).
  if (queued_ == capacity_) {
    capacity_ = capacity_ == 0 ? 8 : 2 * capacity_;
    HostId* more = arena_->hosts(capacity_).data();
    std::copy(skipped_, skipped_ + queued_, more);
    skipped_ = more;
  }
  skipped_[queued_++] = h;
}

bool LatencyPlan::deferred(HostId h) const { return p_->excluded_now(h, now_); }

void LatencyPlan::pass(const RotationView& v, std::size_t from, std::size_t to) {
  if (from >= to) return;
  // The hosts excluded now among positions [from, to): few (the slow ones), sorted by position.
  std::array<std::pair<std::size_t, HostId>, 16> few;
  std::vector<std::pair<std::size_t, HostId>> many;
  std::size_t n = 0;
  for (const HostId h : p_->maybe_excluded()) {
    if (!p_->excluded(h, now_)) continue;
    const std::size_t at = v.position(h);
    if (at == RotationView::kNone || at < from || at >= to) continue;
    if (n < few.size()) few[n] = {at, h};
    else many.emplace_back(at, h);  // (unbounded: allocates only past 16 slow hosts in a range)
    ++n;
  }
  if (n == 0) return;
  if (!many.empty()) many.insert(many.begin(), few.begin(), few.end());
  auto* b = many.empty() ? few.data() : many.data();
  std::sort(b, b + n);
  LBSIM_DCHECK(rot_queued_ == queued_, "pass() after the walk left the rotation");
  for (std::size_t i = 0; i < n; ++i) queue(b[i].second);
  rot_queued_ = queued_;
}

std::unique_ptr<Policy> make_latency_aware_spec(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path,
                   {"type", "exclusion_threshold", "scale_ms", "retry_period_ms", "update_rate_ms", "min_measure", "child",
                    "min_updates"});
  LatencyAwareOptions opts;
  opts.exclusion_threshold = o.number("exclusion_threshold", 1.0, 1e6, 2.0);
  opts.scale = ms_param(o, "scale_ms", 100, false);
  opts.retry_period = ms_param(o, "retry_period_ms", 10000, true);
  opts.update_rate = ms_param(o, "update_rate_ms", 100, false);
  opts.min_measure = o.integer("min_measure", 0, 1000000000, 50);
  opts.min_updates = o.boolean("min_updates", true);
  return make_latency_aware(make_required_child(o, ctx, "LatencyAware"), opts);
}

}  // namespace

std::unique_ptr<Policy> make_latency_aware(std::unique_ptr<Policy> child, LatencyAwareOptions opts) {
  return std::make_unique<LatencyAware>(std::move(child), opts);
}

LBSIM_REGISTER_POLICY(LatencyAware, Driver::Java3,
                      "Java 3.x LatencyAwarePolicy around `child`: hosts whose decaying average latency exceeds "
                      "exclusion_threshold x the minimum (updated every update_rate_ms) go to the end of the plan",
                      (std::vector<ParamInfo>{{"exclusion_threshold", "1..1e6", "2.0"},
                                              {"scale_ms", "> 0 ms", "100"},
                                              {"retry_period_ms", ">= 0 ms", "10000"},
                                              {"update_rate_ms", "> 0 ms", "100"},
                                              {"min_measure", "0..1e9", "50"},
                                              {"min_updates",
                                               "true | false (false: never, as the C++ driver before CPP-935)", "true"},
                                              {"child", "a Java 3.x policy spec", "required"}}),
                      make_latency_aware_spec)

}  // namespace lbsim::policy
