// RustDefault: semantics of scylla-rust-driver DefaultPolicy (scylla/src/policies/load_balancing/
// default.rs and plan.rs, read at scylladb/scylla-rust-driver f01af256, rand 0.9).
//
// A plan is pick() (cheap, first target), then fallback() with the picked host removed
// (plan.rs Plan::next). If pick() finds nothing, fallback() is built at once and its first host is
// the target. Criteria: "rack" = a replica/node of the preferred DC in the preferred rack, "DC" =
// of the preferred DC, "any" = every host; remote tiers only when there is no DC preference or
// permit_dc_failover is set (is_datacenter_failover_possible).
// - pick(), non-LWT: per tier (rack, DC, any), ReplicaSet::choose_filtered: a uniform index over
//   the tier's replica set (the DC's replicas for the rack tier); if that replica fails the
//   predicate (alive and, with latency awareness, not penalised), a uniform choice among those
//   that pass. LWT: the first passing replica in ring order for the rack and DC tiers; for "any"
//   only the global primary, else ToBeComputedInFallback (pick() yields nothing, fallback decides).
//   No replica: pick_node over the preferred DC's nodes (all nodes without a preference), each a
//   random rotation of the ring-ordered node list: alive local-rack, alive local, alive any (if
//   failover), then any enabled (down or not) local, then any enabled node (if failover). The
//   node lists are the driver's metadata (ClusterState): a node that has not joined, or whose
//   removal the driver has learned, is in no list and draws no rotation (ClusterView::is_known).
// - fallback(): alive replicas per tier (rack, DC, any), each tier shuffled (non-LWT) or in ring
//   order (LWT); then alive local-rack nodes, alive local nodes and alive nodes (if failover), each
//   a fresh random rotation; then every local node and every node (if failover) in ring order; the
//   whole unique by host. With latency awareness and a known minimum, the fallback is drained and
//   penalised hosts move to the end, order kept (LatencyAwareness::wrap).
// - Uniqueness: the driver dedups by (host, shard), by host when either shard is unknown. lbsim
//   plans are hosts and the engine chooses shards; a token ring or a tablet never has two replicas
//   on one node, so uniqueness by host is what applies.
// - Order: replicas are re-ordered by ring position from the token (first token >= it; exact for
//   the ring walks of SimpleStrategy and of NTS with the rf-racks repeat rule the driver uses), not
//   lbsim's Java driver order, which defers rack repeats (token 160, NTS eu:3 -> A C G, not A G C).
//   Tablet keyspaces keep the given (tablet) order. Nodes are listed by their lowest token
//   (unique_nodes_in_global_ring / _in_datacenter_ring).
// - Randomness: rand::rng() is per thread -> RngModel::ThreadLocal. Shuffles follow rand 0.9
//   SliceRandom::shuffle (IncreasingUniform: one draw covers a product of bounds up to 2^32, so
//   one draw shuffles up to 12 hosts). enable_shuffling_replicas=false draws one seed at init; a
//   generator re-created from it per call (the driver's Pcg32::new(seed, 0)) drives
//   choose_filtered and the shuffles, so a given replica set always gets the same permutation;
//   its draws are counted as ThreadLocal. The generator is lbsim's, not Pcg32: the permutations are
//   distributed as the driver's but are not the driver's exact ones. choose_filtered's second
//   choice (IteratorRandom::choose over a filter, a coin-flip reservoir) is counted as one draw.
// - Latency awareness (LatencyAwareness, "not recommended" by its docs): per host a
//   TimestampedAverage; a zero latency is ignored; the first sample is the average (no warm-up
//   discard, unlike Java 3.x); later ones decay it with d = (now - last)/scale, w = ln(1+d)/d
//   (w = 1 when d <= 0, the sample still counted). A tick every update_rate from time 0 sets the
//   minimum to the least average over hosts with >= minimum_measurements samples (kept when none
//   qualifies; stored in microseconds). Penalised: >= minimum_measurements samples, last sample
//   less than retry_period ago, average_us > threshold * min_us. Measured: successes and slow
//   errors (server timeouts, other errors); not: Unavailable, Overloaded (reliable_latency_measure)
//   nor driver-side timeouts (the request future is dropped, nothing is reported). The driver
//   never resets a host's average (its policy trait has no node events). fallback() is evaluated
//   at the request time (Plan::next has no clock).
// - latency_awareness.release "0.7": the first latency awareness, scylladb/scylla-rust-driver PR
//   #536 (merge ba142e51, released in 0.7.0; load_balancing/latency_aware.rs, node.rs), used as
//   TokenAwarePolicy(LatencyAwarePolicy(RoundRobinPolicy)), the composition #536 benchmarked.
//   Three rules differ: (1) the average decays with d = (now - last) in seconds, an implicit scale
//   of 1 s (commit dc081366, which added `scale` in 0.9.0, says so), so scale_ms defaults to 1000;
//   (2) the minimum is the least average of every node that has one, whatever its number of
//   samples; (3) the plan is the replicas, penalised ones after the others, then the other nodes,
//   penalised ones after the others (TokenAwarePolicy::plan chains apply_child_policy(replicas)
//   and the child's plan without them), so with every replica penalised the first host is a
//   penalised replica, not another node. The rest is as 0.9: penalised iff >= minimum_measurements
//   samples, last sample < retry_period ago and average_us > threshold x min_us; the same errors
//   measured (Session::should_consider_query_for_latency_measurements). 0.7's RoundRobinPolicy
//   rotates the fast replicas by a hashed counter (compute_rotation): its first host is uniform
//   among them, as choose_filtered's, which lbsim uses. Release 0.8 is "0.9" with scale_ms 1000.
// - distance(): the driver keeps pools to every node: LOCAL for the preferred DC (every host
//   without a preference), REMOTE otherwise; distance_tier 0 for the preferred rack.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "policies/plan_util.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

struct RustLatencyOptions {
  // release "0.7": the LatencyAwarePolicy of PR #536 under TokenAwarePolicy (see the header).
  bool release_07 = false;
  double exclusion_threshold = 2.0;
  SimTime retry_period = 10 * kSec;
  SimTime update_rate = 100 * kMs;
  std::int64_t minimum_measurements = 50;
  SimTime scale = 100 * kMs;
};

struct RustDefaultOptions {
  std::optional<std::string> preferred_dc, preferred_rack;
  bool token_aware = true;
  bool permit_dc_failover = false;
  bool shuffle_replicas = true;
  bool tablets = false;  // the keyspace uses tablets: Request::replicas is already in tablet order
  std::optional<RustLatencyOptions> latency;
};

enum class Where : std::uint8_t { Rack, Dc, Any };

// The generator of one driver call: rand::rng(), or a fresh generator from the fixed seed.
class CallRng {
 public:
  CallRng(PlanRandom& rnd, const std::optional<std::uint64_t>& seed) : rnd_(&rnd), fixed_(seed.has_value()) {
    if (fixed_) local_ = Rng(*seed);
  }
  std::uint32_t below(std::uint32_t n) {
    if (!fixed_) return rnd_->below(n, RngModel::ThreadLocal);
    ++rnd_->thread_local_draws;
    return static_cast<std::uint32_t>(local_.below(n));
  }

 private:
  PlanRandom* rnd_;
  bool fixed_;
  Rng local_;
};

// rand 0.9 SliceRandom::shuffle: for i = 0..n-1 swap(i, uniform in [0, i]); the indexes are
// taken from one draw below (m)(m+1)...(m+k-1), the longest product that fits in 32 bits.
void rand_shuffle(std::span<HostId> v, CallRng& g) {
  if (v.size() <= 1) return;
  std::uint64_t chunk = 0;
  std::uint32_t remaining = 1;  // IncreasingUniform::chunk_remaining: index 0 needs no draw
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint64_t bound = i + 1;
    std::uint32_t left = 0;
    if (remaining > 0) {
      left = remaining - 1;
    } else {  // calculate_bound_u32: bound (bound+1) ... while the product fits in 32 bits
      std::uint64_t product = bound;
      std::uint32_t count = 1;
      while (product * (bound + count) <= 0xffffffffULL) product *= bound + count++;
      chunk = g.below(static_cast<std::uint32_t>(product));
      left = count - 1;
    }
    std::uint64_t j = chunk;
    if (left > 0) {
      j = chunk % bound;
      chunk /= bound;
    }
    remaining = left;
    std::swap(v[i], v[static_cast<std::size_t>(j)]);
  }
}

class RustDefault;

class RustPlan final : public Plan {
 public:
  RustPlan(const RustDefault* p, const Request& req, std::span<const HostId> replicas, std::span<const HostId> ordered,
           PlanRandom* rnd, PlanArena* arena)
      : p_(p), replicas_(replicas), ordered_(ordered), lwt_(req.lwt), now_(req.now), rnd_(rnd), arena_(arena) {}
  HostId next() override;

  // fallback() state: alive replicas of every tier (repeats allowed), rotations, then the nodes.
  std::span<const HostId> fb_replicas;
  std::uint32_t rot[3] = {0, 0, 0};  // local rack, local, all
  std::uint32_t* seen = nullptr;
  std::uint8_t seg = 0;
  std::size_t pos = 0;
  std::span<const HostId> drained;  // latency awareness: the whole fallback, penalised last

 private:
  const RustDefault* p_;
  std::span<const HostId> replicas_, ordered_;
  bool lwt_;
  SimTime now_;
  PlanRandom* rnd_;
  PlanArena* arena_;
  enum class State : std::uint8_t { Created, Picked, Fallback, Done } state_ = State::Created;
  HostId picked_ = kNoHost;
  friend class RustDefault;
};

struct LatencyStat {
  bool present = false;
  SimTime timestamp = 0;
  SimTime average = 0;  // ns
  std::int64_t measures = 0;
};

class RustDefault final : public Policy {
 public:
  explicit RustDefault(RustDefaultOptions o) : o_(std::move(o)) {}

  void init(const ClusterView& view, Rng& rng) override {
    view_ = &view;
    const Topology& t = view.topology();
    const std::size_t n = t.size();
    local_dc_ = o_.preferred_dc ? resolve_dc(t, o_.preferred_dc) : kNoDc;
    failover_ = o_.preferred_dc && o_.permit_dc_failover;
    rack_.assign(n, 0);
    local_.assign(n, 0);
    tok_off_.assign(n + 1, 0);
    toks_.clear();
    for (HostId h = 0; h < n; ++h) {
      local_[h] = !o_.preferred_dc || t.node_dc[h] == local_dc_ ? 1 : 0;  // an unknown DC has no nodes
      rack_[h] = o_.preferred_rack && t.node_dc[h] == local_dc_ && t.racks[t.node_rack[h]] == *o_.preferred_rack ? 1 : 0;
      std::vector<Token> tk = t.nodes[h].tokens;
      std::sort(tk.begin(), tk.end());
      toks_.insert(toks_.end(), tk.begin(), tk.end());
      tok_off_[h + 1] = toks_.size();
    }
    ring_nodes_.resize(n);
    for (HostId h = 0; h < n; ++h) ring_nodes_[h] = h;
    std::sort(ring_nodes_.begin(), ring_nodes_.end(), [&](HostId a, HostId b) { return toks_[tok_off_[a]] < toks_[tok_off_[b]]; });
    all_nodes_.reserve(n);  // no allocation when the members change
    local_nodes_.reserve(n);
    list_members();
    if (!o_.shuffle_replicas) fixed_seed_ = rng.next_u64();
    stats_.assign(n, LatencyStat{});
    min_us_ = -1;
    next_tick_ = 0;
  }

  Distance distance(HostId h) const override { return local_[h] ? Distance::Local : Distance::Remote; }
  int distance_tier(HostId h) const override { return rack_[h] ? 0 : (local_[h] ? 1 : 2); }

  Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) override {
    if (view_->members_version() != members_version_) list_members();
    if (o_.latency) advance(req.now);
    std::span<const HostId> replicas;
    if (o_.token_aware && req.routed) replicas = req.replicas;
    std::span<const HostId> ordered = replicas;
    if (!replicas.empty() && !o_.tablets && (req.lwt || fixed_seed_)) {
      auto buf = arena.hosts(replicas.size());
      std::copy(replicas.begin(), replicas.end(), buf.begin());
      // Insertion sort by ring distance from the token: RF is small.
      for (std::size_t i = 1; i < buf.size(); ++i)
        for (std::size_t j = i; j > 0 && ring_distance(buf[j], req.token) < ring_distance(buf[j - 1], req.token); --j)
          std::swap(buf[j], buf[j - 1]);
      ordered = buf;
    }
    return arena.make<RustPlan>(this, req, replicas, ordered, &rnd, &arena);
  }

  void on_response(HostId h, SimTime now, SimTime latency, ResponseKind k) override {
    if (!o_.latency) return;
    advance(now);
    if (k == ResponseKind::ClientTimeout || k == ResponseKind::Unavailable || k == ResponseKind::Overloaded) return;
    if (latency <= 0) return;  // compute_next keeps the previous average for a zero latency
    LatencyStat& s = stats_[h];
    if (!s.present) {
      s = LatencyStat{true, now, latency, 1};
      return;
    }
    const double delay = static_cast<double>(std::max<SimTime>(0, now - s.timestamp)) / 1e9;
    const double scaled = delay / (static_cast<double>(o_.latency->scale) / 1e9);
    const double w = scaled <= 0 ? 1.0 : std::log(scaled + 1) / scaled;
    const double avg_s = (1 - w) * (static_cast<double>(latency) / 1e9) + w * (static_cast<double>(s.average) / 1e9);
    s = LatencyStat{true, now, static_cast<SimTime>(std::llround(avg_s * 1e9)), s.measures + 1};
  }
  void restore_state(HostId h, const HostState& st) override {
    if (!o_.latency) return;
    stats_[h] = st.has_latency && st.latency_average >= 0
                    ? LatencyStat{true, st.latency_updated, st.latency_average, st.latency_samples}
                    : LatencyStat{};
  }
  bool adaptive() const override { return o_.latency.has_value(); }

  // Plan steps, called by RustPlan.
  HostId pick(RustPlan& pl) const;
  void build_fallback(RustPlan& pl, PlanRandom& rnd, PlanArena& arena, HostId first_removed) const;
  HostId fallback_next(RustPlan& pl) const;

 private:
  std::uint64_t ring_distance(HostId h, Token t) const {
    const auto b = toks_.begin() + static_cast<std::ptrdiff_t>(tok_off_[h]);
    const auto e = toks_.begin() + static_cast<std::ptrdiff_t>(tok_off_[h + 1]);
    const auto it = std::lower_bound(b, e, t);
    return static_cast<std::uint64_t>(it == e ? *b : *it) - static_cast<std::uint64_t>(t);
  }
  bool in_set(HostId h, Where w) const { return w == Where::Any || view_->dc(h) == local_dc_; }
  bool matches(HostId h, Where w) const { return w == Where::Rack ? rack_[h] != 0 : in_set(h, w); }
  bool penalised(HostId h, SimTime now) const {
    if (!o_.latency || min_us_ < 0) return false;
    const LatencyStat& s = stats_[h];
    return s.present && s.measures >= o_.latency->minimum_measurements && now - s.timestamp < o_.latency->retry_period &&
           static_cast<double>(s.average / 1000) > o_.latency->exclusion_threshold * static_cast<double>(min_us_);
  }
  bool pickable(HostId h, SimTime now, bool penalty = true) const {
    return view_->is_up(h) && (!penalty || !penalised(h, now));
  }
  // Tiers that exist for this policy: rack (with a rack), DC (with a DC), any (no DC or failover).
  bool tier(Where w) const {
    return w == Where::Rack ? o_.preferred_rack.has_value() : (w == Where::Dc ? o_.preferred_dc.has_value() : !o_.preferred_dc || failover_);
  }
  HostId pick_random_replica(std::span<const HostId> set, Where w, SimTime now, CallRng g, bool penalty = true) const;
  HostId pick_node(std::span<const HostId> nodes, Where w, bool alive, SimTime now, PlanRandom& rnd) const;
  // The node lists of the driver's ClusterState: the known hosts (ClusterView::is_known), ring
  // ordered; the rotations are drawn over them.
  void list_members() {
    members_version_ = view_->members_version();
    all_nodes_.clear();
    local_nodes_.clear();
    for (HostId h : ring_nodes_)
      if (view_->is_known(h)) {
        all_nodes_.push_back(h);
        if (local_[h]) local_nodes_.push_back(h);
      }
  }
  // Ticks of the min-average updater up to `now`: averages only change at events, so one
  // recomputation stands for every tick since the last event.
  void advance(SimTime now) {
    if (now < next_tick_) return;
    next_tick_ = (now / o_.latency->update_rate + 1) * o_.latency->update_rate;
    SimTime m = -1;
    // Release 0.7 (latency_aware.rs at ba142e51): the least average of every node with one.
    const std::int64_t need = o_.latency->release_07 ? 0 : o_.latency->minimum_measurements;
    for (const LatencyStat& s : stats_)
      if (s.present && s.measures >= need && (m < 0 || s.average < m)) m = s.average;
    if (m >= 0) min_us_ = m / 1000;
  }

  RustDefaultOptions o_;
  const ClusterView* view_ = nullptr;
  std::uint32_t local_dc_ = kNoDc;
  bool failover_ = false;
  std::vector<std::uint8_t> rack_, local_;
  std::vector<std::size_t> tok_off_;
  std::vector<Token> toks_;
  std::vector<HostId> ring_nodes_;               // every node of the topology, by lowest token
  std::vector<HostId> all_nodes_, local_nodes_;  // the known ones
  std::uint64_t members_version_ = 0;
  std::optional<std::uint64_t> fixed_seed_;
  std::vector<LatencyStat> stats_;
  SimTime min_us_ = -1;
  SimTime next_tick_ = 0;
};

HostId RustDefault::pick_random_replica(std::span<const HostId> set, Where w, SimTime now, CallRng g, bool penalty) const {
  std::uint32_t n = 0;
  for (HostId h : set) n += in_set(h, w) ? 1 : 0;
  if (n == 0) return kNoHost;
  auto nth = [&](std::uint32_t k, bool filtered) {
    for (HostId h : set) {
      if (!in_set(h, w) || (filtered && !(matches(h, w) && pickable(h, now, penalty)))) continue;
      if (k-- == 0) return h;
    }
    return kNoHost;
  };
  const HostId happy = nth(g.below(n), false);
  if (matches(happy, w) && pickable(happy, now, penalty)) return happy;
  std::uint32_t k = 0;
  for (HostId h : set) k += in_set(h, w) && matches(h, w) && pickable(h, now, penalty) ? 1 : 0;
  if (k == 0) return kNoHost;
  return nth(k == 1 ? 0 : g.below(k), true);
}

HostId RustDefault::pick_node(std::span<const HostId> nodes, Where w, bool alive, SimTime now, PlanRandom& rnd) const {
  if (nodes.empty()) return kNoHost;
  const auto size = static_cast<std::uint32_t>(nodes.size());
  const std::uint32_t start = rnd.below(size, RngModel::ThreadLocal);
  for (std::uint32_t i = 0; i < size; ++i) {
    const HostId h = nodes[(start + i) % size];
    if ((w != Where::Rack || rack_[h]) && (!alive || pickable(h, now))) return h;
  }
  return kNoHost;
}

HostId RustDefault::pick(RustPlan& pl) const {
  PlanRandom& rnd = *pl.rnd_;
  if (!pl.replicas_.empty()) {
    for (Where w : {Where::Rack, Where::Dc, Where::Any}) {
      if (!tier(w)) continue;
      if (pl.lwt_) {
        if (w == Where::Any) return pickable(pl.ordered_[0], pl.now_) ? pl.ordered_[0] : kNoHost;  // else in fallback
        for (HostId h : pl.ordered_)
          if (matches(h, w) && pickable(h, pl.now_)) return h;
        continue;
      }
      const HostId h = pick_random_replica(fixed_seed_ ? pl.ordered_ : pl.replicas_, w, pl.now_, CallRng(rnd, fixed_seed_));
      if (h != kNoHost) return h;
    }
    // Release 0.7: TokenAwarePolicy's plan starts with every replica, the penalised ones after
    // the others (LatencyAwarePolicy::apply_child_policy), before any other node.
    if (!pl.lwt_ && o_.latency && o_.latency->release_07 && min_us_ >= 0)
      for (Where w : {Where::Rack, Where::Dc, Where::Any}) {
        if (!tier(w)) continue;
        const HostId h =
            pick_random_replica(fixed_seed_ ? pl.ordered_ : pl.replicas_, w, pl.now_, CallRng(rnd, fixed_seed_), false);
        if (h != kNoHost) return h;
      }
  }
  if (o_.preferred_rack)
    if (HostId h = pick_node(local_nodes_, Where::Rack, true, pl.now_, rnd); h != kNoHost) return h;
  if (HostId h = pick_node(local_nodes_, Where::Dc, true, pl.now_, rnd); h != kNoHost) return h;
  if (failover_)
    if (HostId h = pick_node(all_nodes_, Where::Any, true, pl.now_, rnd); h != kNoHost) return h;
  if (HostId h = pick_node(local_nodes_, Where::Dc, false, pl.now_, rnd); h != kNoHost) return h;
  if (failover_) return pick_node(all_nodes_, Where::Any, false, pl.now_, rnd);
  return kNoHost;
}

void RustDefault::build_fallback(RustPlan& pl, PlanRandom& rnd, PlanArena& arena, HostId removed) const {
  const std::size_t n = view_->size();
  pl.seen = arena.hosts((n + 31) / 32).data();
  std::fill(pl.seen, pl.seen + (n + 31) / 32, 0u);
  if (removed != kNoHost) pl.seen[removed / 32] |= 1u << (removed % 32);
  // Alive replicas, per tier: shuffled, or in ring order for LWT.
  const auto source = pl.lwt_ || fixed_seed_ ? pl.ordered_ : pl.replicas_;
  auto buf = arena.hosts(3 * source.size());
  std::size_t len = 0;
  for (Where w : {Where::Rack, Where::Dc, Where::Any}) {
    if (!tier(w) || source.empty()) continue;
    const std::size_t start = len;
    for (HostId h : source)
      if (in_set(h, w) && matches(h, w) && view_->is_up(h)) buf[len++] = h;
    if (!pl.lwt_) {
      CallRng g(rnd, fixed_seed_);
      rand_shuffle(buf.subspan(start, len - start), g);
    }
  }
  pl.fb_replicas = buf.first(len);
  auto rotation = [&](std::size_t size) { return size == 0 ? 0u : rnd.below(static_cast<std::uint32_t>(size), RngModel::ThreadLocal); };
  if (o_.preferred_rack) pl.rot[0] = rotation(local_nodes_.size());
  pl.rot[1] = rotation(local_nodes_.size());
  if (failover_) pl.rot[2] = rotation(all_nodes_.size());
  if (!o_.latency || min_us_ < 0) return;
  // LatencyAwareness::wrap: drain, then the penalised hosts after the others, order kept.
  // Release 0.7 does it twice: within the replicas, then within the other nodes
  // (TokenAwarePolicy::plan chains LatencyAware over the replicas and over the rest).
  auto all = arena.hosts(2 * n);
  std::size_t fast = 0, slow = 0;
  bool replicas = o_.latency->release_07;
  for (HostId h = fallback_next(pl); h != kNoHost; h = fallback_next(pl)) {
    if (replicas && pl.seg != 0) {  // the replicas are over: their penalised ones go now
      std::copy(all.begin() + static_cast<std::ptrdiff_t>(n), all.begin() + static_cast<std::ptrdiff_t>(n + slow),
                all.begin() + static_cast<std::ptrdiff_t>(fast));
      fast += slow;
      slow = 0;
      replicas = false;
    }
    if (penalised(h, pl.now_)) all[n + slow++] = h;
    else all[fast++] = h;
  }
  std::copy(all.begin() + static_cast<std::ptrdiff_t>(n), all.begin() + static_cast<std::ptrdiff_t>(n + slow),
            all.begin() + static_cast<std::ptrdiff_t>(fast));
  pl.drained = all.first(fast + slow);
  pl.pos = 0;
}

HostId RustDefault::fallback_next(RustPlan& pl) const {
  auto fresh = [&](HostId h) {
    const std::uint32_t bit = 1u << (h % 32);
    if (pl.seen[h / 32] & bit) return false;
    pl.seen[h / 32] |= bit;
    return true;
  };
  for (;;) {
    switch (pl.seg) {
      case 0:
        while (pl.pos < pl.fb_replicas.size())
          if (const HostId h = pl.fb_replicas[pl.pos++]; fresh(h)) return h;
        break;
      case 1:  // alive local-rack nodes
      case 2:  // alive local nodes
      case 3:  // alive nodes of every DC (failover)
      case 4:  // every local node, up or down
      case 5: {  // every node (failover)
        const bool everywhere = pl.seg == 3 || pl.seg == 5;
        if ((pl.seg == 1 && !o_.preferred_rack) || (everywhere && !failover_)) break;
        const auto& nodes = everywhere ? all_nodes_ : local_nodes_;
        const std::uint32_t rot = pl.seg <= 3 ? pl.rot[pl.seg - 1] : 0;
        while (pl.pos < nodes.size()) {
          const HostId h = nodes[(rot + pl.pos++) % nodes.size()];
          if (pl.seg <= 3 && (!view_->is_up(h) || (pl.seg == 1 && !rack_[h]))) continue;
          if (fresh(h)) return h;
        }
        break;
      }
      default:
        return kNoHost;
    }
    ++pl.seg;
    pl.pos = 0;
  }
}

HostId RustPlan::next() {
  switch (state_) {
    case State::Created:
      picked_ = p_->pick(*this);
      if (picked_ != kNoHost) {
        state_ = State::Picked;
        return picked_;
      }
      p_->build_fallback(*this, *rnd_, *arena_, kNoHost);
      state_ = State::Fallback;
      break;
    case State::Picked:
      p_->build_fallback(*this, *rnd_, *arena_, picked_);
      state_ = State::Fallback;
      break;
    case State::Fallback:
      break;
    case State::Done:
      return kNoHost;
  }
  const HostId h = drained.data() != nullptr ? (pos < drained.size() ? drained[pos++] : kNoHost) : p_->fallback_next(*this);
  if (h == kNoHost) state_ = State::Done;
  return h;
}

std::unique_ptr<Policy> make_rust_default(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path,
                   {"type", "preferred_dc", "preferred_rack", "token_aware", "permit_dc_failover",
                    "enable_shuffling_replicas", "latency_awareness"});
  RustDefaultOptions opts;
  opts.preferred_dc = dc_param(o, "preferred_dc", ctx);
  if (o.has("preferred_rack") && !opts.preferred_dc)
    jsonin::fail(o.path_of("preferred_rack"), "needs preferred_dc (the driver's prefer_datacenter_and_rack)");
  opts.preferred_rack = rack_param(o, "preferred_rack", opts.preferred_dc, ctx);
  opts.token_aware = o.boolean("token_aware", true);
  opts.permit_dc_failover = o.boolean("permit_dc_failover", false);
  opts.shuffle_replicas = o.boolean("enable_shuffling_replicas", true);
  opts.tablets = ctx.replication != nullptr && ctx.replication->tablets.has_value();
  if (const jsonin::Json* la = o.find("latency_awareness")) {
    if (la->is_boolean()) {
      if (la->get<bool>()) opts.latency = RustLatencyOptions{};
    } else if (la->is_object()) {
      jsonin::Object l(*la, o.path_of("latency_awareness"),
                       {"exclusion_threshold", "retry_period_ms", "update_rate_ms", "minimum_measurements", "scale_ms",
                        "release"});
      RustLatencyOptions lo;
      lo.release_07 = l.choice<bool>("release", {{"0.7", true}, {"0.9", false}}, false);
      lo.exclusion_threshold = l.number("exclusion_threshold", 1.0, 1e6, 2.0);
      lo.retry_period = ms_param(l, "retry_period_ms", 10000, true);
      lo.update_rate = ms_param(l, "update_rate_ms", 100, false);
      lo.minimum_measurements = l.integer("minimum_measurements", 0, 1000000000, 50);
      lo.scale = ms_param(l, "scale_ms", lo.release_07 ? 1000 : 100, false);
      opts.latency = lo;
    } else {
      jsonin::fail(o.path_of("latency_awareness"),
                   fmt::format("must be true, false or an object, got {}", jsonin::type_name(*la)));
    }
  }
  return std::make_unique<RustDefault>(std::move(opts));
}

}  // namespace

LBSIM_REGISTER_POLICY(RustDefault, Driver::Rust,
                      "scylla-rust-driver DefaultPolicy: a random alive replica (local rack, local DC, then remote "
                      "if allowed), then shuffled replicas, randomly rotated nodes and down nodes; LWT in ring order",
                      (std::vector<ParamInfo>{
                          {"preferred_dc", "a datacenter of the topology", "none (every node local)"},
                          {"preferred_rack", "a rack of preferred_dc (needs preferred_dc)", "none"},
                          {"token_aware", "true | false", "true"},
                          {"permit_dc_failover", "true | false", "false"},
                          {"enable_shuffling_replicas", "true | false", "true"},
                          {"latency_awareness",
                           "false | true | {release 0.7 | 0.9 (0.9), exclusion_threshold 1..1e6 (2.0), retry_period_ms "
                           ">= 0 (10000), update_rate_ms > 0 (100), minimum_measurements 0..1e9 (50), scale_ms > 0 "
                           "(100; 1000 with release 0.7)}",
                           "false"}}),
                      make_rust_default)

}  // namespace lbsim::policy
