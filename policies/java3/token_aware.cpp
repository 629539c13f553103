// TokenAware: semantics of Java driver 3.x TokenAwarePolicy (J3 policies/TokenAwarePolicy.java,
// the REGULAR, non-LWT routing path) with its three ReplicaOrderings.
// - No routing key/keyspace (!req.routed) or no replicas: the child plan, unchanged.
// - NEUTRAL: walk the child plan; an up replica whose child distance is LOCAL is returned at
//   once, every other host is buffered and returned, in child order, once the child plan is
//   exhausted.
// - TOPOLOGICAL / RANDOM: phase A returns the replicas (driver order, or a shuffled copy) that are
//   up and LOCAL, skipping down and non-LOCAL ones silently. Phase B creates the child plan only
//   when first needed (so the child's round-robin index advances only then) and returns every
//   child host except those that are replicas AND LOCAL: remote replicas come where the child
//   puts them, and a down LOCAL replica never appears.
// - RANDOM's shuffle is Collections.shuffle (RF-1 nextInt draws) of the generator "shuffle_rng":
//   "shared" (the process-wide java.util.Random used before scylladb/java-driver PR #427) or
//   "thread_local" (ThreadLocalRandom, after it).
// - LWT requests (Request::lwt): the replicas in driver order as TOPOLOGICAL, whatever the
//   ordering, with no draw (Scylla 3.x RequestRoutingMethod.PRESERVE_REPLICA_ORDER).
// The child's distances are cached after every event, as distance() only changes then
// (policy.hpp contract), so plans make no virtual call per host.
#include <stdexcept>

#include <fmt/format.h>

#include "policies/plan_util.hpp"
#include "policies/wrapper.hpp"
#include "policies/registry.hpp"
#include "policies/wrappers.hpp"
#include "sim/core/check.hpp"

namespace lbsim::policy {
namespace {

class TokenAware;

// Phase A over `replicas` (already ordered), then the lazily created child plan.
//
// 96 bytes, so that the default plan stays within the operation's first two cache lines (OpExtra,
// sim/engine/sim_impl.hpp; issue 14): the request is kept as its fields, the replica count and
// position in 16 bits, and RANDOM's shuffled copy of up to six replicas (RF 3 in two DCs) inside
// the plan.
class ReplicasFirstPlan final : public Plan {
 public:
  static constexpr std::size_t kOwn = 6;
  // `ordered`: the replicas in the order to try, which outlive the plan (TOPOLOGICAL, LWT, or
  // RANDOM's copy of a long list in the arena); null: the plan copies the replicas into own(),
  // which the caller shuffles (RANDOM, at most kOwn replicas).
  ReplicasFirstPlan(TokenAware* p, const Request& req, const HostId* ordered, PlanRandom* rnd, PlanArena* arena)
      : p_(p),
        token_(req.token),
        now_(req.now),
        replicas_(req.replicas.data()),
        rnd_(rnd),
        arena_(arena),
        n_(static_cast<std::uint16_t>(req.replicas.size())),
        cl_(req.cl),
        lwt_(req.lwt),
        own_ordered_(ordered == nullptr) {
    LBSIM_DCHECK(!own_ordered_ || n_ <= kOwn, "a plan's own copy holds at most kOwn replicas");
    if (own_ordered_) std::copy(req.replicas.begin(), req.replicas.end(), own_);
    else ext_ = ordered;
  }
  HostId next() override;
  std::span<HostId> own() { return {own_, n_}; }

 private:
  const HostId* ordered() const { return own_ordered_ ? own_ : ext_; }
  // The request as the plan was made for it (a routed one), for the child plan made later.
  Request request() const {
    Request r;
    r.token = token_;
    r.replicas = {replicas_, n_};
    r.now = now_;
    r.routed = true;
    r.cl = cl_;
    r.lwt = lwt_;
    return r;
  }
  TokenAware* p_;
  Token token_;
  SimTime now_;
  const HostId* replicas_;
  Plan* child_ = nullptr;
  PlanRandom* rnd_;
  PlanArena* arena_;
  std::uint16_t n_;
  std::uint16_t pos_ = 0;
  ConsistencyLevel cl_;
  bool lwt_;
  bool own_ordered_;
  union {
    HostId own_[kOwn];
    const HostId* ext_;
  };
};

// When the child plan starts with rotations of host lists (the round-robin children), the walk
// over them jumps from one usable replica to the next by position (O(RF) per host instead of
// O(DC size)), and the hosts it passes are returned from their positions when the plan drains:
// the same sequence as the walk, which the policy tests compare host for host.
class NeutralPlan final : public Plan {
 public:
  NeutralPlan(const TokenAware* p, std::span<const HostId> replicas, Plan* child, PlanArena* arena)
      : p_(p), replicas_(replicas), child_(child), arena_(arena) {}
  HostId next() override;

 private:
  HostId walk();
  const TokenAware* p_;
  std::span<const HostId> replicas_;
  Plan* child_;
  PlanArena* arena_;
  HostId* buffer_ = nullptr;  // non-replicas, down or non-LOCAL replicas, in child order
  std::uint32_t buffered_ = 0, drained_ = 0;
  bool child_done_ = false;
  enum class Phase : std::uint8_t { Start, Rotation, Walk } phase_ = Phase::Start;
  RotationView rot_;
  std::size_t rot_len_ = 0, walked_ = 0, drain_pos_ = 0;
  std::uint32_t* returned_ = nullptr;  // rotation positions returned as replicas, ascending
  std::uint32_t nret_ = 0, ri_ = 0;
};

class TokenAware final : public Wrapper {
 public:
  TokenAware(std::unique_ptr<Policy> child, TokenAwareOptions o) : Wrapper(std::move(child)), o_(o) {}

  void init(const ClusterView& view, Rng& rng) override {
    view_ = &view;
    child_->init(view, rng);
    refresh();
  }
  Distance distance(HostId h) const override { return child_->distance(h); }

  Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) override {
    if (!req.routed || req.replicas.empty()) return child_->new_plan(req, rnd, arena);
    // (Unreachable from a scenario: clusters have at most 46,340 nodes.)
    if (req.replicas.size() > 0xffff) throw std::length_error("TokenAware: more than 65,535 replicas for a token");
    // LWT: the replicas in replica order whatever the ordering (Scylla 3.x LWT routing).
    if (req.lwt) return arena.make<ReplicasFirstPlan>(this, req, req.replicas.data(), &rnd, &arena);
    if (o_.ordering == ReplicaOrdering::Neutral)
      return arena.make<NeutralPlan>(this, req.replicas, child_->new_plan(req, rnd, arena), &arena);
    if (o_.ordering == ReplicaOrdering::Topological)
      return arena.make<ReplicasFirstPlan>(this, req, req.replicas.data(), &rnd, &arena);
    if (req.replicas.size() <= ReplicasFirstPlan::kOwn) {
      ReplicasFirstPlan* plan = arena.make<ReplicasFirstPlan>(this, req, nullptr, &rnd, &arena);
      java_shuffle(plan->own(), rnd, o_.shuffle_rng);
      return plan;
    }
    auto copy = arena.hosts(req.replicas.size());
    std::copy(req.replicas.begin(), req.replicas.end(), copy.begin());
    java_shuffle(copy, rnd, o_.shuffle_rng);
    return arena.make<ReplicasFirstPlan>(this, req, copy.data(), &rnd, &arena);
  }

  void child_changed() override { refresh(); }

  bool usable(HostId h) const { return view_->is_up(h) && local_[h]; }
  bool local(HostId h) const { return local_[h] != 0; }
  std::size_t host_count() const { return local_.size(); }
  Plan* child_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) { return child_->new_plan(req, rnd, arena); }

 private:
  void refresh() {
    local_.resize(view_->size());
    for (HostId h = 0; h < view_->size(); ++h) local_[h] = child_->distance(h) == Distance::Local ? 1 : 0;
  }
  TokenAwareOptions o_;
  const ClusterView* view_ = nullptr;
  std::vector<std::uint8_t> local_;  // child distance == LOCAL, per host
};

static_assert(sizeof(ReplicasFirstPlan) == 96);

HostId ReplicasFirstPlan::next() {
  const HostId* ordered = this->ordered();
  while (pos_ < n_) {
    const HostId h = ordered[pos_++];
    if (p_->usable(h)) return h;
  }
  if (child_ == nullptr) child_ = p_->child_plan(request(), *rnd_, *arena_);
  for (HostId h = child_->next(); h != kNoHost; h = child_->next())
    if (!p_->local(h) || !contains(std::span<const HostId>(replicas_, n_), h)) return h;
  return kNoHost;
}

HostId NeutralPlan::next() {
  if (phase_ == Phase::Start) {
    phase_ = Phase::Walk;
    if (child_->rotation(rot_)) {
      rot_len_ = rot_.length();
      phase_ = Phase::Rotation;
      static_assert(sizeof(HostId) == sizeof(std::uint32_t));
      returned_ = arena_->hosts(replicas_.size()).data();  // positions < 2^32 (host lists are smaller)
    }
  }
  if (phase_ == Phase::Rotation) {
    // The first usable replica at or after the walk's position (usability evaluated now, as the
    // walk would when it reached the host).
    // A deferring child (LatencyAware) returns the hosts it defers only after everything else:
    // they are not at their positions, and the ones gone past are queued by it (pass).
    std::size_t best = rot_len_;
    for (HostId h : replicas_)
      if (p_->usable(h)) {
        const std::size_t at = rot_.position(h);
        if (at != RotationView::kNone && at >= walked_ && at < best && !(rot_.deferring && child_->deferred(h))) best = at;
      }
    if (rot_.deferring) child_->pass(rot_, walked_, best);
    if (best < rot_len_) {
      returned_[nret_++] = static_cast<std::uint32_t>(best);
      walked_ = best + 1;
      return rot_.at(best);
    }
    child_->skip_rotation();
    walked_ = rot_len_;
    phase_ = Phase::Walk;
  }
  const HostId h = walk();
  if (h != kNoHost) return h;
  // Drain: the rotation's passed positions, then the buffered hosts of the rest of the walk.
  while (drain_pos_ < rot_len_) {
    const std::size_t at = drain_pos_++;
    if (ri_ < nret_ && returned_[ri_] == at) {
      ++ri_;
      continue;
    }
    const HostId passed = rot_.at(at);
    if (rot_.deferring && child_->passed_deferred(passed)) continue;  // came out of the walk, deferred
    return passed;
  }
  return drained_ < buffered_ ? buffer_[drained_++] : kNoHost;
}

HostId NeutralPlan::walk() {
  if (!child_done_) {
    for (HostId h = child_->next(); h != kNoHost; h = child_->next()) {
      if (p_->usable(h) && contains(replicas_, h)) return h;
      if (buffer_ == nullptr) buffer_ = arena_->hosts(p_->host_count()).data();
      buffer_[buffered_++] = h;
    }
    child_done_ = true;
  }
  return kNoHost;
}

std::unique_ptr<Policy> make_token_aware_spec(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "ordering", "shuffle_rng", "child"});
  TokenAwareOptions opts;
  opts.ordering = o.choice<ReplicaOrdering>(
      "ordering",
      {{"RANDOM", ReplicaOrdering::Random}, {"TOPOLOGICAL", ReplicaOrdering::Topological}, {"NEUTRAL", ReplicaOrdering::Neutral}},
      ReplicaOrdering::Random);
  opts.shuffle_rng =
      o.choice<RngModel>("shuffle_rng", {{"shared", RngModel::Shared}, {"thread_local", RngModel::ThreadLocal}}, RngModel::Shared);
  return make_token_aware(make_required_child(o, ctx, "TokenAware"), opts);
}

}  // namespace

std::unique_ptr<Policy> make_token_aware(std::unique_ptr<Policy> child, TokenAwareOptions opts) {
  return std::make_unique<TokenAware>(std::move(child), opts);
}

LBSIM_REGISTER_POLICY(TokenAware, Driver::Java3,
                      "Java 3.x TokenAwarePolicy around `child`: up LOCAL replicas first, ordering RANDOM (default; "
                      "shuffle_rng shared|thread_local), TOPOLOGICAL or NEUTRAL, then the child plan",
                      (std::vector<ParamInfo>{{"ordering", "RANDOM | TOPOLOGICAL | NEUTRAL", "RANDOM"},
                                              {"shuffle_rng", "shared | thread_local", "shared"},
                                              {"child", "a Java 3.x policy spec", "required"}}),
                      make_token_aware_spec)

}  // namespace lbsim::policy
