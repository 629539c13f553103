// GoTokenAware: semantics of gocql tokenAwareHostPolicy.Pick (scylladb/gocql policies.go
// @3703808c, 2026-08; apache/cassandra-gocql-driver policies.go @65e2cafa, 2025-02, for
// "upstream"), around a Go child (the gocql "fallback" policy).
// - No routing key (!req.routed) or no replicas: the child plan, unchanged. (gocql then asks the
//   ring for the token's primary owner; lbsim's routed requests always carry their replicas.)
// - The replica list is shuffled when shuffle_replicas is on, except for LWT requests in the
//   scylladb versions (upstream gocql cannot tell an LWT and shuffles it too). Then, with
//   avoid_slow_replicas (scylladb only, never for LWT), a stable partition puts the replicas with
//   fewer than max_in_flight_threshold requests in flight on the host (pool.InFlight, here
//   ClusterView::in_flight) before the busy ones, read once when the plan is made.
// - Each replica gets a tier: a HostTierer child's HostTier (GoRackAwareRoundRobin: its
//   distance_tier(), 0 = local rack), else 0 when the child's IsLocal (distance() LOCAL), else 1.
// - The plan, lazy as gocql's closure:
//   1. the tier-0 replicas that are up when reached, in (shuffled) list order;
//   2. with non_local_replicas_fallback, the other replicas grouped by tier 1..MaxHostTier (1 for a
//      non-tierer), list order within a tier, up ones only. gocql's loop stops at the first tier
//      that has no replica, so with a rack-aware child a replica set with no local-DC replica
//      outside the local rack gets no remote-DC replica here (they come from the child plan);
//   3. the child plan, created only now (so the child's offset advances only for plans that get
//      this far), minus the hosts already returned.
// - The shuffle is Go's Fisher-Yates (for i = n-1 down to 1: swap(i, uniform[0, i])), n-1 draws,
//   the same sequence of bounds as java_shuffle. The generator (RngModel) by version:
//   * upstream and scylladb before commit d15f5111 (2026-03-19): shuffleHosts (control.go) uses
//     the package-level *rand.Rand `randr` under the package mutex `mutRandr`: one process-wide
//     lock-protected generator -> Shared;
//   * scylladb since d15f5111: math/rand/v2's top-level Shuffle, i.e. the runtime's per-M ChaCha8
//     state with no lock -> ThreadLocal.
// - Default shuffle_replicas: true in scylladb/gocql since commit 738e75b1 (2025-05-23, PR #485);
//   false before, and false upstream (the zero value; apache CASSGO-106 kept it false).
// - replica_source "gocql" takes the replicas from the driver's own map (policies/go/replicas.hpp)
//   instead of Request::replicas. Pick does not de-duplicate that list: a host it lists twice is
//   shuffled as two entries (so it is first 2 times in k) and yielded twice, the second time as
//   the retry target of the first (steps 1 and 2 above append and return every entry; only the
//   child plan is filtered by `used`; query_executor.go's do() takes hostIter() again on
//   RetryNextHost, with no record of the hosts tried).
#include <algorithm>

#include <fmt/format.h>

#include "policies/go/replicas.hpp"
#include "policies/go/round_robin.hpp"
#include "policies/wrapper.hpp"
#include "policies/plan_util.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

enum class GoVersion : std::uint8_t { Scylla, ScyllaBefore20260319, ScyllaBefore20250523, Upstream };

struct GoTokenAwareOptions {
  GoVersion version = GoVersion::Scylla;
  bool shuffle_replicas = true;
  bool non_local_replicas_fallback = false;
  bool avoid_slow_replicas = false;
  std::int32_t max_in_flight_threshold = 10;  // gocql MAX_IN_FLIGHT_THRESHOLD
  std::optional<Replication> gocql_map;       // replica_source "gocql": the keyspace's replication
};

class GoTokenAware;

class GoTokenAwarePlan final : public Plan {
 public:
  GoTokenAwarePlan(GoTokenAware* p, const Request& req, std::span<const HostId> replicas, PlanRandom* rnd,
                   PlanArena* arena)
      : p_(p), req_(req), replicas_(replicas), used_(arena->hosts(replicas.size()).data()), rnd_(rnd), arena_(arena) {}
  HostId next() override;

 private:
  HostId yield(HostId h) {
    used_[used_count_++] = h;
    return h;
  }
  bool used(HostId h) const { return contains(std::span<const HostId>(used_, used_count_), h); }
  void build_remote();

  GoTokenAware* p_;
  Request req_;
  std::span<const HostId> replicas_;  // shuffled / partitioned copy, or the request's list
  HostId* used_;  // replicas returned so far (at most replicas_.size())
  std::size_t pos_ = 0;
  std::size_t used_count_ = 0;
  HostId* remote_ = nullptr;  // step 2's sequence, built when step 1 is exhausted
  std::size_t remote_count_ = 0, remote_pos_ = 0;
  bool remote_built_ = false;
  Plan* child_ = nullptr;
  PlanRandom* rnd_;
  PlanArena* arena_;
};

class GoTokenAware final : public Wrapper {
 public:
  GoTokenAware(std::unique_ptr<Policy> child, GoTokenAwareOptions o) : Wrapper(std::move(child)), o_(o) {
    const auto* tierer = dynamic_cast<const GoHostTierer*>(child_.get());
    max_tier_ = tierer != nullptr ? tierer->max_host_tier() : 1;
    tierer_ = tierer != nullptr;
  }

  void init(const ClusterView& view, Rng& rng) override {
    view_ = &view;
    child_->init(view, rng);
    if (o_.gocql_map) map_ = std::make_unique<DriverReplicaMap>(go::gocql_replica_map(view.topology(), *o_.gocql_map));
    refresh();
  }
  Distance distance(HostId h) const override { return child_->distance(h); }
  int distance_tier(HostId h) const override { return child_->distance_tier(h); }

  Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) override {
    if (!req.routed) return child_->new_plan(req, rnd, arena);
    std::span<const HostId> replicas = replicas_from(req, map_.get());
    if (replicas.empty()) return child_->new_plan(req, rnd, arena);
    const bool shuffle = o_.shuffle_replicas && replicas.size() > 1 && (!req.lwt || o_.version == GoVersion::Upstream);
    const bool partition = o_.avoid_slow_replicas && !req.lwt;
    if (shuffle || partition) {
      auto copy = arena.hosts(replicas.size());
      std::copy(replicas.begin(), replicas.end(), copy.begin());
      if (shuffle) java_shuffle(copy, rnd, shuffle_rng());
      if (partition) partition_healthy(copy, arena);
      replicas = copy;
    }
    return arena.make<GoTokenAwarePlan>(this, req, replicas, &rnd, &arena);
  }

  void child_changed() override { refresh(); }
  bool reads_in_flight() const override { return o_.avoid_slow_replicas || child_->reads_in_flight(); }
  bool has_driver_replicas() const override { return map_ != nullptr; }
  std::span<const HostId> driver_replicas(Token t) const override {
    return map_ ? map_->replicas(t) : std::span<const HostId>{};
  }

  // Used by GoTokenAwarePlan.
  unsigned tier(HostId h) const { return tier_[h]; }
  unsigned max_tier() const { return max_tier_; }
  bool is_up(HostId h) const { return view_->is_up(h); }
  bool non_local_replicas_fallback() const { return o_.non_local_replicas_fallback; }
  Plan* child_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) { return child_->new_plan(req, rnd, arena); }

 private:
  RngModel shuffle_rng() const { return o_.version == GoVersion::Scylla ? RngModel::ThreadLocal : RngModel::Shared; }

  // gocql partitionHealthy: non-busy replicas first, both groups in their current order.
  void partition_healthy(std::span<HostId> replicas, PlanArena& arena) const {
    std::size_t healthy = 0;
    for (HostId h : replicas)
      if (!busy(h)) ++healthy;
    if (healthy == 0 || healthy == replicas.size()) return;
    auto tmp = arena.hosts(replicas.size());
    std::copy(replicas.begin(), replicas.end(), tmp.begin());
    std::size_t hi = 0, ui = healthy;
    for (HostId h : tmp) replicas[busy(h) ? ui++ : hi++] = h;
  }
  bool busy(HostId h) const { return view_->in_flight(h) >= o_.max_in_flight_threshold; }

  // The child's tiers only change with its distances, i.e. after init and host events.
  void refresh() {
    tier_.resize(view_->size());
    for (HostId h = 0; h < view_->size(); ++h) {
      if (!tierer_) {
        tier_[h] = child_->distance(h) == Distance::Local ? 0 : 1;
        continue;
      }
      const int t = child_->distance_tier(h);
      tier_[h] = static_cast<std::uint8_t>(t < 0 || static_cast<unsigned>(t) > max_tier_ ? max_tier_ : static_cast<unsigned>(t));
    }
  }

  GoTokenAwareOptions o_;
  std::unique_ptr<DriverReplicaMap> map_;  // replica_source "gocql" only
  bool tierer_ = false;
  unsigned max_tier_ = 1;
  const ClusterView* view_ = nullptr;
  std::vector<std::uint8_t> tier_;
};

void GoTokenAwarePlan::build_remote() {
  remote_built_ = true;
  remote_ = arena_->hosts(replicas_.size()).data();
  // remote[tier-1] for tier = 1..MaxHostTier, stopping at the first empty one as gocql's
  // `for j < len(remote) && k < len(remote[j])` does.
  for (unsigned t = 1; t <= p_->max_tier(); ++t) {
    const std::size_t before = remote_count_;
    for (HostId h : replicas_)
      if (p_->tier(h) == t) remote_[remote_count_++] = h;
    if (remote_count_ == before) break;
  }
}

HostId GoTokenAwarePlan::next() {
  while (pos_ < replicas_.size()) {
    const HostId h = replicas_[pos_++];
    if (p_->tier(h) == 0 && p_->is_up(h)) return yield(h);
  }
  if (p_->non_local_replicas_fallback()) {
    if (!remote_built_) build_remote();
    while (remote_pos_ < remote_count_) {
      const HostId h = remote_[remote_pos_++];
      if (p_->is_up(h)) return yield(h);
    }
  }
  if (child_ == nullptr) child_ = p_->child_plan(req_, *rnd_, *arena_);
  for (HostId h = child_->next(); h != kNoHost; h = child_->next())
    if (!used(h)) return h;
  return kNoHost;
}

constexpr const char* kVersions = "scylladb | scylladb-before-2026-03-19 | scylladb-before-2025-05-23 | upstream";

std::unique_ptr<Policy> make_go_token_aware(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path,
                   {"type", "version", "shuffle_replicas", "non_local_replicas_fallback", "avoid_slow_replicas",
                    "max_in_flight_threshold", "replica_source", "child"});
  GoTokenAwareOptions opts;
  opts.version = o.choice<GoVersion>("version",
                                     {{"scylladb", GoVersion::Scylla},
                                      {"scylladb-before-2026-03-19", GoVersion::ScyllaBefore20260319},
                                      {"scylladb-before-2025-05-23", GoVersion::ScyllaBefore20250523},
                                      {"upstream", GoVersion::Upstream}},
                                     GoVersion::Scylla);
  const bool shuffle_by_default = opts.version == GoVersion::Scylla || opts.version == GoVersion::ScyllaBefore20260319;
  opts.shuffle_replicas = o.boolean("shuffle_replicas", shuffle_by_default);
  opts.non_local_replicas_fallback = o.boolean("non_local_replicas_fallback", false);
  opts.avoid_slow_replicas = o.boolean("avoid_slow_replicas", false);
  if (opts.avoid_slow_replicas && opts.version == GoVersion::Upstream)
    jsonin::fail(o.path_of("avoid_slow_replicas"), "AvoidSlowReplicas exists only in scylladb/gocql, not with version \"upstream\"");
  if (o.has("max_in_flight_threshold") && !opts.avoid_slow_replicas)
    jsonin::fail(o.path_of("max_in_flight_threshold"), "only used with \"avoid_slow_replicas\": true (gocql sets it "
                                                       "through AvoidSlowReplicas(threshold))");
  opts.max_in_flight_threshold = static_cast<std::int32_t>(o.integer("max_in_flight_threshold", 0, 1000000, 10));
  opts.gocql_map = go::replica_source_param(o, ctx);
  return std::make_unique<GoTokenAware>(make_required_child(o, ctx, "GoTokenAware"), opts);
}

}  // namespace

LBSIM_REGISTER_POLICY(GoTokenAware, Driver::Go,
                      "gocql TokenAwareHostPolicy around a Go `child`: up local replicas (HostTier 0 / IsLocal) "
                      "first, shuffled unless LWT (default on in scylladb/gocql since 2025-05-23, off upstream), "
                      "optionally busy replicas last and remote replicas next, then the child plan minus those; "
                      "replica_source gocql uses the driver's own replica map, repeated hosts included",
                      (std::vector<ParamInfo>{
                          {"version", kVersions, "scylladb"},
                          {"shuffle_replicas", "true | false",
                           "true for scylladb and scylladb-before-2026-03-19, false otherwise"},
                          {"non_local_replicas_fallback", "true | false", "false"},
                          {"avoid_slow_replicas", "true | false (not with upstream)", "false"},
                          {"max_in_flight_threshold", "0..1000000 (with avoid_slow_replicas)", "10"},
                          {"replica_source", go::kReplicaSourceValues, "correct"},
                          {"child", "a Go policy spec (GoRoundRobin, GoDCAwareRoundRobin, GoRackAwareRoundRobin)",
                           "required"}}),
                      make_go_token_aware)

}  // namespace lbsim::policy
