// PythonDCAwareRoundRobin and PythonRackAwareRoundRobin: see policies/python/round_robin.hpp for
// the semantics and their sources.
#include "policies/python/round_robin.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "policies/plan_util.hpp"
#include "policies/registry.hpp"
#include "sim/core/error.hpp"

namespace lbsim::policy {
namespace {

class PyRoundRobin;

// make_query_plan's generator: the first local list (the local DC, or the local rack), the local
// DC's other racks (rack-aware), then the remote DCs. Each later list is read when the plan
// reaches it, as the generator reads the policy's dicts when it resumes there.
class PyRrPlan final : public Plan {
 public:
  PyRrPlan(const PyRoundRobin* p, std::span<const HostId> first, std::uint64_t pos, PlanArena* arena)
      : p_(p), seg_(first), start_(first.empty() ? 0 : pos % first.size()), arena_(arena) {}
  HostId next() override;

 private:
  enum class Stage : std::uint8_t { First, OtherRacks, Remote, Done };
  const PyRoundRobin* p_;
  std::span<const HostId> seg_;
  std::uint64_t start_;
  std::size_t i_ = 0;
  Stage stage_ = Stage::First;
  PlanArena* arena_;
  std::span<const HostId> dcs_;  // DC-aware: the dict's keys when the remote part starts
  std::size_t dc_i_ = 0;
};

class PyRoundRobin final : public Policy {
 public:
  explicit PyRoundRobin(PythonRoundRobinOptions o) : o_(std::move(o)) {}

  void init(const ClusterView& view, Rng& rng) override {
    const Topology& t = view.topology();
    topo_ = &t;
    per_dc_.assign(t.dcs.size(), CowList());
    if (!o_.contact_points.empty()) {
      init_from_contact_points(view, rng);
      return;
    }
    local_dc_ = resolve_dc(t, o_.local_dc);
    in_local_rack_.assign(t.size(), 0);
    if (o_.rack_aware && t.size() > 0) {
      const std::string& rack = o_.local_rack ? *o_.local_rack : t.racks[t.node_rack[0]];
      for (HostId h = 0; h < t.size(); ++h)
        in_local_rack_[h] = t.node_dc[h] == local_dc_ && t.racks[t.node_rack[h]] == rack ? 1 : 0;
    }
    for (HostId h = 0; h < view.size(); ++h)
      if (view.is_up(h)) on_up(h);
    // populate(): randint(0, len(hosts) - 1) over every host handed to it (module-level random,
    // once per process: the policy's init stream): the metadata's hosts, up or down, not the
    // nodes that have not joined yet (ClusterView::is_known).
    std::size_t known = 0;
    for (HostId h = 0; h < view.size(); ++h) known += view.is_known(h) ? 1 : 0;
    position_ = known > 0 ? rng.below(known) : 0;
  }

  // Cluster.connect with contact points (round_robin.hpp): one draw, randint(0, C - 1); the control
  // connection's plan takes the first up contact point from there and advances the position; the
  // hosts then come up in discovery order, the control host first, the others in topology order.
  void init_from_contact_points(const ClusterView& view, Rng& rng) {
    const Topology& t = view.topology();
    std::vector<HostId> cps;
    for (const std::string& id : o_.contact_points) {
      const auto h = t.node_index(id);
      if (!h) throw ConfigError("contact_points", fmt::format("unknown node '{}'", id));
      cps.push_back(*h);
    }
    const std::uint64_t p0 = rng.below(cps.size());
    HostId control = kNoHost;
    for (std::size_t k = 0; k < cps.size() && control == kNoHost; ++k)
      if (view.is_up(cps[(p0 + k) % cps.size()])) control = cps[(p0 + k) % cps.size()];
    position_ = p0 + 1;
    if (o_.local_dc) {
      local_dc_ = resolve_dc(t, o_.local_dc);
    } else {
      local_dc_ = control != kNoHost ? t.node_dc[control] : resolve_dc(t, std::nullopt);
    }
    in_local_rack_.assign(t.size(), 0);
    if (o_.rack_aware && o_.local_rack)
      for (HostId h = 0; h < t.size(); ++h)
        in_local_rack_[h] = t.node_dc[h] == local_dc_ && t.racks[t.node_rack[h]] == *o_.local_rack ? 1 : 0;
    if (control != kNoHost) on_up(control);
    for (HostId h = 0; h < view.size(); ++h)
      if (h != control && view.is_up(h)) on_up(h);
  }

  Distance distance(HostId h) const override {
    if (topo_->node_dc[h] == local_dc_) return Distance::Local;
    if (o_.used_hosts_per_remote_dc == 0) return Distance::Ignored;
    return contains(remote_head(topo_->node_dc[h]), h) ? Distance::Remote : Distance::Ignored;
  }
  int distance_tier(HostId h) const override {
    if (in_local_rack_[h]) return 0;  // HostDistance.LOCAL_RACK
    return Policy::distance_tier(h);
  }

  Plan* new_plan(const Request&, PlanRandom&, PlanArena& arena) override {
    const std::uint64_t pos = position_++;
    return arena.make<PyRrPlan>(this, o_.rack_aware ? local_rack_.snapshot() : local_list(), pos, &arena);
  }

  void on_up(HostId h) override {
    const std::uint32_t dc = topo_->node_dc[h];
    if (per_dc_[dc].size() == 0) dc_order_.add_if_absent(dc);  // a new key goes last in the dict
    per_dc_[dc].add_if_absent(h);
    if (o_.rack_aware && dc == local_dc_) (in_local_rack_[h] ? local_rack_ : other_racks_).add_if_absent(h);
  }
  void on_down(HostId h) override {
    const std::uint32_t dc = topo_->node_dc[h];
    if (per_dc_[dc].remove(h) && per_dc_[dc].size() == 0) dc_order_.remove(dc);  // `del dict[dc]`
    local_rack_.remove(h);
    other_racks_.remove(h);
  }

  // For PyRrPlan.
  bool rack_aware() const { return o_.rack_aware; }
  std::span<const HostId> other_racks() const { return other_racks_.snapshot(); }
  std::span<const HostId> dc_order() const { return dc_order_.snapshot(); }
  std::uint32_t local_dc() const { return local_dc_; }
  // remote_live[:used_hosts_per_remote_dc]
  std::span<const HostId> remote_head(std::uint32_t dc) const {
    const auto all = per_dc_[dc].snapshot();
    return all.first(std::min<std::size_t>(all.size(), static_cast<std::size_t>(o_.used_hosts_per_remote_dc)));
  }
  // The rack-aware generator iterates `dict.copy().items()`: every remote DC's tuple as it is when
  // the remote part starts, copied into the arena.
  std::span<const HostId> copy_remote_heads(PlanArena& arena) const {
    std::size_t n = 0;
    for (HostId dc : dc_order())
      if (dc != local_dc_) n += remote_head(dc).size();
    auto out = arena.hosts(n);
    std::size_t k = 0;
    for (HostId dc : dc_order())
      if (dc != local_dc_)
        for (HostId h : remote_head(dc)) out[k++] = h;
    return out;
  }

 private:
  std::span<const HostId> local_list() const {
    return local_dc_ < per_dc_.size() ? per_dc_[local_dc_].snapshot() : std::span<const HostId>{};
  }

  PythonRoundRobinOptions o_;
  const Topology* topo_ = nullptr;
  std::vector<CowList> per_dc_;  // _dc_live_hosts values
  CowList dc_order_;             // _dc_live_hosts keys in dict order (DC indexes)
  CowList local_rack_;           // _live_hosts[(local_dc, local_rack)]
  CowList other_racks_;          // the local DC's live hosts of other racks, in the DC tuple's order
  std::vector<std::uint8_t> in_local_rack_;
  std::uint32_t local_dc_ = kNoDc;
  std::uint64_t position_ = 0;
};

HostId PyRrPlan::next() {
  for (;;) {
    switch (stage_) {
      case Stage::First:
      case Stage::OtherRacks:
        if (i_ < seg_.size()) return seg_[(start_ + i_++) % seg_.size()];
        i_ = 0;
        if (stage_ == Stage::First && p_->rack_aware()) {
          seg_ = p_->other_racks();
          start_ = seg_.empty() ? 0 : start_ % seg_.size();
          stage_ = Stage::OtherRacks;
          continue;
        }
        stage_ = Stage::Remote;
        if (p_->rack_aware()) {
          seg_ = p_->copy_remote_heads(*arena_);
        } else {
          seg_ = {};
          dcs_ = p_->dc_order();
        }
        continue;
      case Stage::Remote:
        if (i_ < seg_.size()) return seg_[i_++];
        // DC-aware: each remote DC's tuple is read when the generator reaches it.
        while (dc_i_ < dcs_.size()) {
          const std::uint32_t dc = dcs_[dc_i_++];
          if (dc == p_->local_dc()) continue;
          seg_ = p_->remote_head(dc);
          i_ = 0;
          if (!seg_.empty()) break;
        }
        if (i_ < seg_.size()) continue;
        stage_ = Stage::Done;
        return kNoHost;
      case Stage::Done:
        return kNoHost;
    }
  }
}

std::int64_t used_hosts_param(const jsonin::Object& o) { return o.integer("used_hosts_per_remote_dc", 0, 1000000, 0); }

std::unique_ptr<Policy> make_dc_aware_spec(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "local_dc", "used_hosts_per_remote_dc", "contact_points"});
  PythonRoundRobinOptions opts;
  opts.local_dc = dc_param(o, "local_dc", ctx);
  opts.used_hosts_per_remote_dc = used_hosts_param(o);
  opts.contact_points = contact_points_param(o, ctx);
  return make_python_round_robin(opts);
}

std::unique_ptr<Policy> make_rack_aware_spec(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "local_dc", "local_rack", "used_hosts_per_remote_dc", "contact_points"});
  // RackAwareRoundRobinPolicy(local_dc, local_rack, used_hosts_per_remote_dc=0): no defaults.
  for (const char* key : {"local_dc", "local_rack"})
    if (!o.has(key))
      jsonin::fail(o.path_of(key), "required field is missing (the Python RackAwareRoundRobinPolicy has no default "
                                   "local_dc or local_rack)");
  PythonRoundRobinOptions opts;
  opts.rack_aware = true;
  opts.local_dc = dc_param(o, "local_dc", ctx);
  opts.local_rack = rack_param(o, "local_rack", opts.local_dc, ctx);
  opts.used_hosts_per_remote_dc = used_hosts_param(o);
  opts.contact_points = contact_points_param(o, ctx);
  return make_python_round_robin(opts);
}

}  // namespace

std::unique_ptr<Policy> make_python_round_robin(const PythonRoundRobinOptions& opts) {
  return std::make_unique<PyRoundRobin>(opts);
}

LBSIM_REGISTER_POLICY(PythonDCAwareRoundRobin, Driver::Python,
                      "Python DCAwareRoundRobinPolicy: local-DC hosts rotated by a position that starts at "
                      "randint(0, hosts-1) and grows by one per plan, then the first used_hosts_per_remote_dc live "
                      "hosts of each remote DC (unrotated, for every CL)",
                      (std::vector<ParamInfo>{
                          {"local_dc", "a datacenter of the topology",
                           "the DC of the control host (with contact_points), else of the first host"},
                          {"used_hosts_per_remote_dc", "0..1000000", "0"},
                          {"contact_points", "an array of node ids",
                           "none: populate() over every host in topology order (an approximation)"}}),
                      make_dc_aware_spec)

LBSIM_REGISTER_POLICY(PythonRackAwareRoundRobin, Driver::Python,
                      "Scylla Python RackAwareRoundRobinPolicy: local-rack hosts rotated (distance LOCAL_RACK), then "
                      "the local DC's other racks rotated by the already reduced index, then the first "
                      "used_hosts_per_remote_dc hosts of each remote DC",
                      (std::vector<ParamInfo>{{"local_dc", "a datacenter of the topology", "required"},
                                              {"local_rack", "a rack of local_dc", "required"},
                                              {"used_hosts_per_remote_dc", "0..1000000", "0"},
                                              {"contact_points", "an array of node ids",
                                               "none: populate() over every host in topology order (an approximation)"}}),
                      make_rack_aware_spec)

}  // namespace lbsim::policy
