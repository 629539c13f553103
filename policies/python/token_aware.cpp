// PythonTokenAware: semantics of the Python driver's TokenAwarePolicy.make_query_plan
// (scylladb/python-driver cassandra/policies.py; datastax/python-driver 3.29), by release:
//
//   version        releases                              shuffle_replicas  rules
//   datastax       datastax/python-driver 3.x, and the    False            A, LWT shuffled too
//                  scylla fork before 3.28.0-scylla
//   scylla-3.28.0  3.28.0-scylla .. 3.29.4-scylla         False            A with LOCAL_RACK (c62665f4)
//   scylla-3.29.5  3.29.5-scylla (2025-11-06)             False            B (PR #574, 2f271be1)
//   scylla-3.29.6  3.29.6-scylla .. 3.29.11-scylla        True (2ad9ba60)  B, LWT unshuffled (75970592)
//   scylla-master  master after 3.29.11 (ad8636e8)        True             B, LWT and SERIAL/LOCAL_SERIAL
//                                                                          unshuffled
// (2ad9ba60 "enable shuffling by default" is dated 2025-05-31 but was merged on 2025-11-27, so the
// first release with shuffling on by default is 3.29.6-scylla.) "shuffle_replicas" overrides the
// version's default. The default version is scylla-3.29.6, the newest release.
//
// Both rules: no routing key (!req.routed): the child plan as is. Otherwise the request's replicas
// (Request::replicas) are shuffled with random.shuffle when shuffle_replicas is on (and the request
// is not exempt), then:
// - A (old): the up replicas whose child distance is LOCAL (datastax) or LOCAL/LOCAL_RACK (scylla),
//   in that (shuffled) order; then the child plan, created only now and read lazily, minus the
//   replicas unless the child says REMOTE (remote replicas come where the child puts them).
// - B (PR #574): the up replicas by child distance tier LOCAL_RACK, then LOCAL, then REMOTE (IGNORED
//   never), each tier in replica order; then the child plan, created now and read whole at once
//   (a list comprehension), minus every replica, again by tier with the same up check.
// The up checks and distances are evaluated as the plan is read, as in the driver's generator.
// Beyond the driver, a host whose distance changes mid-plan is never yielded twice.
//
// The replica list's order is the driver's token map's (cassandra/metadata.py
// NetworkTopologyStrategy.make_token_replica_map, the same rule in datastax/python-driver 3.25.0
// and scylladb/python-driver 3.29.5-scylla .. master 76430785): per DC a ring walk, the DCs one
// after the other in the order in which they first own a token on the sorted ring -- grouped by
// DC, where Request::replicas (Java 3.x Metadata.getReplicas) interleaves the DCs along the ring.
// Within a DC both orders are the same (tests/python_driver_test.cpp checks it against the Debian
// 3.25 driver), so with replica_source "correct" the plan regroups Request::replicas by that DC
// order (a stable pass over the copy; nothing for a one-DC topology). It matters where the order
// across DCs shows: rule B's REMOTE tier with two remote DCs or more and used_hosts_per_remote_dc
// > 0 (3.29.5-scylla, 2f271be1: `for replica in hosts: ... == distance`), and which permutation a
// shuffle draws. The driver shuffles the map's own list in place (`replicas =
// get_replicas(...)`; `shuffle(replicas)`), so a shuffled order persists into the next request of
// the range; lbsim shuffles a fresh copy each time: a uniform permutation either way.
//
// replica_source "python-3.25" takes the replicas from the driver's own map
// (policies/python/replicas.hpp) instead of Request::replicas. No version de-duplicates that list:
// rule A yields every LOCAL entry (3.25.0 policies.py: `for replica in replicas: ... yield
// replica`), rule B every entry of its tiers (scylladb/python-driver master: `yield from
// chain(local_rack, local, remote)`), so a host listed twice is yielded twice, the second time as
// the retry target of the first; the shuffle moves both copies (len - 1 draws over the list).
//
// Not modelled: tablets. With a tablet for the token the driver takes the replicas in child-plan
// order (it builds one extra child plan for that, advancing the child's position by two per
// request); lbsim hands the replicas in Request::replicas whatever their source. Nor the Raft
// leader of strongly-consistent tablets (bf9a4539, master), which lbsim has no notion of.
// is_lwt() is known only for prepared statements: lbsim assumes every LWT is prepared.
#include <fmt/format.h>

#include "policies/plan_util.hpp"
#include "policies/python/replicas.hpp"
#include "policies/wrapper.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

enum class PyVersion : std::uint8_t { DataStax, Scylla3280, Scylla3295, Scylla3296, ScyllaMaster };

struct PyRules {
  bool tiered;             // rule B
  bool local_rack_first;   // rule A: LOCAL_RACK replicas go with the LOCAL ones
  bool shuffle_default;
  bool lwt_unshuffled;
  bool serial_unshuffled;  // SERIAL / LOCAL_SERIAL statement CL
};

constexpr PyRules rules_of(PyVersion v) {
  switch (v) {
    case PyVersion::DataStax: return {false, false, false, false, false};
    case PyVersion::Scylla3280: return {false, true, false, false, false};
    case PyVersion::Scylla3295: return {true, true, false, false, false};
    case PyVersion::Scylla3296: return {true, true, true, true, false};
    case PyVersion::ScyllaMaster: return {true, true, true, true, true};
  }
  return {true, true, true, true, false};
}

constexpr int kRemoteTier = 2;  // HostDistance: LOCAL_RACK 0, LOCAL 1, REMOTE 2, IGNORED -1

class PyTokenAware;

class PyTaPlan final : public Plan {
 public:
  PyTaPlan(PyTokenAware* p, const Request& req, std::span<const HostId> all, std::span<HostId> ordered, PlanRandom* rnd,
           PlanArena* arena)
      : p_(p), req_(req), all_(all), replicas_(ordered), rnd_(rnd), arena_(arena) {}
  HostId next() override;

 private:
  HostId next_tiered();
  HostId next_old();
  // yield_in_order(list): tiers 0, 1, 2, each a pass over `list`; a yielded entry is blanked.
  HostId scan_tiers(std::span<HostId> list);

  PyTokenAware* p_;
  Request req_;
  std::span<const HostId> all_;  // the replica list (Request::replicas or the driver's map)
  std::span<HostId> replicas_;  // the (shuffled) copy; yielded entries become kNoHost
  PlanRandom* rnd_;
  PlanArena* arena_;
  bool rest_phase_ = false;
  int tier_ = 0;
  std::size_t i_ = 0;
  std::span<HostId> rest_;  // rule B: the child plan minus the replicas
  Plan* child_ = nullptr;   // rule A: the child plan, read lazily
};

class PyTokenAware final : public Wrapper {
 public:
  PyTokenAware(std::unique_ptr<Policy> child, PyRules rules, bool shuffle, std::optional<Replication> map_of)
      : Wrapper(std::move(child)), r_(rules), shuffle_(shuffle), map_of_(std::move(map_of)) {}

  void init(const ClusterView& view, Rng& rng) override {
    view_ = &view;
    child_->init(view, rng);
    if (map_of_) map_ = std::make_unique<DriverReplicaMap>(python::python325_replica_map(view.topology(), *map_of_));
    if (!map_ && view.topology().dcs.size() > 1) dc_rank_ = python::dc_ring_order(view.topology());
    refresh();
  }
  Distance distance(HostId h) const override { return child_->distance(h); }
  int distance_tier(HostId h) const override { return tier_[h]; }

  Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) override {
    if (!req.routed) return child_->new_plan(req, rnd, arena);
    const std::span<const HostId> all = replicas_from(req, map_.get());
    auto copy = arena.hosts(all.size());
    std::copy(all.begin(), all.end(), copy.begin());
    if (!dc_rank_.empty()) regroup_by_dc(copy);
    const bool serial = req.cl == ConsistencyLevel::Serial || req.cl == ConsistencyLevel::LocalSerial;
    const bool exempt = (r_.lwt_unshuffled && req.lwt) || (r_.serial_unshuffled && serial);
    // random.shuffle: Fisher-Yates from the end with randbelow(i + 1), the same index sequence as
    // Collections.shuffle (len - 1 draws). It draws from the module-level random.Random, a single
    // Mersenne Twister per process that every thread shares (the GIL serializes the draws; there is
    // no per-thread generator), hence RngModel::Shared.
    if (shuffle_ && !exempt) java_shuffle(copy, rnd, RngModel::Shared);
    return arena.make<PyTaPlan>(this, req, all, copy, &rnd, &arena);
  }

  void child_changed() override { refresh(); }
  bool has_driver_replicas() const override { return map_ != nullptr; }
  std::span<const HostId> driver_replicas(Token t) const override {
    return map_ ? map_->replicas(t) : std::span<const HostId>{};
  }

  // For PyTaPlan.
  const PyRules& rules() const { return r_; }
  bool up(HostId h) const { return view_->is_up(h); }
  int tier(HostId h) const { return tier_[h]; }
  std::size_t host_count() const { return tier_.size(); }
  Plan* child_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) { return child_->new_plan(req, rnd, arena); }

 private:
  // distance() only changes in init/on_up/on_down/restore_state (policy.hpp), so the child's
  // tiers are cached then and plans make no virtual call per host.
  void refresh() {
    tier_.resize(view_->size());
    for (HostId h = 0; h < view_->size(); ++h) tier_[h] = static_cast<std::int8_t>(child_->distance_tier(h));
  }
  // Request::replicas into the driver map's order: a stable insertion sort by DC rank (the lists
  // are a few hosts long).
  void regroup_by_dc(std::span<HostId> list) const {
    const auto& node_dc = view_->topology().node_dc;
    for (std::size_t i = 1; i < list.size(); ++i) {
      const HostId h = list[i];
      const std::uint32_t r = dc_rank_[node_dc[h]];
      std::size_t j = i;
      for (; j > 0 && dc_rank_[node_dc[list[j - 1]]] > r; --j) list[j] = list[j - 1];
      list[j] = h;
    }
  }
  PyRules r_;
  bool shuffle_;
  std::vector<std::uint32_t> dc_rank_;     // DC index -> rank in the driver map; empty: no regroup
  std::optional<Replication> map_of_;      // replica_source "python-3.25": the keyspace's replication
  std::unique_ptr<DriverReplicaMap> map_;  // built from it at init
  const ClusterView* view_ = nullptr;
  std::vector<std::int8_t> tier_;
};

HostId PyTaPlan::next() { return p_->rules().tiered ? next_tiered() : next_old(); }

HostId PyTaPlan::scan_tiers(std::span<HostId> list) {
  for (; tier_ <= kRemoteTier; ++tier_, i_ = 0)
    while (i_ < list.size()) {
      HostId& h = list[i_++];
      if (h != kNoHost && p_->up(h) && p_->tier(h) == tier_) {
        const HostId out = h;
        h = kNoHost;
        return out;
      }
    }
  return kNoHost;
}

HostId PyTaPlan::next_tiered() {
  if (!rest_phase_) {
    if (const HostId h = scan_tiers(replicas_); h != kNoHost) return h;
    rest_phase_ = true;
    tier_ = 0;
    i_ = 0;
    Plan* child = p_->child_plan(req_, *rnd_, *arena_);
    auto buf = arena_->hosts(p_->host_count());
    std::size_t n = 0;
    for (HostId h = child->next(); h != kNoHost && n < buf.size(); h = child->next())
      if (!contains(all_, h)) buf[n++] = h;
    rest_ = buf.first(n);
  }
  return scan_tiers(rest_);
}

HostId PyTaPlan::next_old() {
  const bool rack_too = p_->rules().local_rack_first;
  while (i_ < replicas_.size()) {
    HostId& h = replicas_[i_++];
    const int t = p_->tier(h);
    if (p_->up(h) && (t == 1 || (rack_too && t == 0))) {
      const HostId out = h;
      h = kNoHost;
      return out;
    }
  }
  if (child_ == nullptr) child_ = p_->child_plan(req_, *rnd_, *arena_);
  for (HostId h = child_->next(); h != kNoHost; h = child_->next()) {
    if (!contains(all_, h)) return h;
    // A replica the child calls REMOTE, unless phase 1 already yielded it (it is blanked then).
    if (p_->tier(h) == kRemoteTier && contains(replicas_, h)) return h;
  }
  return kNoHost;
}

std::unique_ptr<Policy> make_python_token_aware(const jsonin::Json& spec, const std::string& path,
                                                const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "version", "shuffle_replicas", "replica_source", "child"});
  const PyVersion v = o.choice<PyVersion>("version",
                                          {{"datastax", PyVersion::DataStax},
                                           {"scylla-3.28.0", PyVersion::Scylla3280},
                                           {"scylla-3.29.5", PyVersion::Scylla3295},
                                           {"scylla-3.29.6", PyVersion::Scylla3296},
                                           {"scylla-master", PyVersion::ScyllaMaster}},
                                          PyVersion::Scylla3296);
  const PyRules rules = rules_of(v);
  const bool shuffle = o.boolean("shuffle_replicas", rules.shuffle_default);
  if (v == PyVersion::DataStax && o.has("child") && o.at("child").is_object()) {
    const auto t = o.at("child").find("type");
    if (t != o.at("child").end() && t->is_string() &&
        canonical_type(t->get<std::string>()) == "PythonRackAwareRoundRobin")
      jsonin::fail(jsonin::key_path(o.path_of("child"), "type"),
                   "the DataStax Python driver has no RackAwareRoundRobinPolicy (it came with 3.28.0-scylla); "
                   "use version scylla-3.28.0 or later");
  }
  auto map_of = python::replica_source_param(o, ctx);
  return std::make_unique<PyTokenAware>(make_required_child(o, ctx, "PythonTokenAware"), rules, shuffle, std::move(map_of));
}

}  // namespace

LBSIM_REGISTER_POLICY(PythonTokenAware, Driver::Python,
                      "Python TokenAwarePolicy around `child`: up replicas by the child's distance LOCAL_RACK, LOCAL, "
                      "REMOTE, then the rest of the child plan in the same order (scylla >= 3.29.5; older versions "
                      "and datastax: LOCAL replicas, then the child plan); shuffle_replicas per version "
                      "(random.shuffle), never for LWT since 3.29.6-scylla; replica_source python-3.25 uses the driver's own "
                      "replica map, repeated hosts included",
                      (std::vector<ParamInfo>{
                          {"version", "datastax | scylla-3.28.0 | scylla-3.29.5 | scylla-3.29.6 | scylla-master",
                           "scylla-3.29.6"},
                          {"shuffle_replicas", "true | false",
                           "the version's: true for scylla-3.29.6 and scylla-master, false before and for datastax"},
                          {"replica_source", python::kReplicaSourceValues, "correct"},
                          {"child", "a Python driver policy spec", "required"}}),
                      make_python_token_aware)

}  // namespace lbsim::policy
