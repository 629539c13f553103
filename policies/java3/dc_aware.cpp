// DCAwareRoundRobin (and the shared implementation of RackAwareRoundRobin): see
// dc_round_robin.hpp for the semantics and their sources.
#include <fmt/format.h>

#include "policies/java3/dc_round_robin.hpp"
#include "policies/java3/java_hash_order.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

class DcRoundRobin;

// 96 bytes (spans kept as pointer and 32-bit size): a DCAware plan, or TokenAware's with its
// child made, stays within an operation's inline plan memory (PlanArena; issue 14).
class DcPlan final : public Plan {
 public:
  DcPlan(const DcRoundRobin* p, std::span<const HostId> a, std::span<const HostId> b, const CowList* ia,
         const CowList* ib, std::uint32_t idx, ConsistencyLevel cl)
      : p_(p),
        seg_{a.data(), b.data()},
        index_{ia, ib},
        seg_n_{static_cast<std::uint32_t>(a.size()), static_cast<std::uint32_t>(b.size())},
        remaining_{seg_n_[0], seg_n_[1]},
        idx_(idx),
        cl_(cl) {}
  HostId next() override;
  bool rotation(RotationView& v) const override {
    if (remaining_[0] != seg_n_[0] || remaining_[1] != seg_n_[1] || done_) return false;
    // The Java int counter runs idx, idx+1, ...; a plan crossing MAX_VALUE -> MIN_VALUE is not a
    // rotation there (floorMod jumps), so it is walked.
    const std::int64_t first = as_java_int(idx_);
    if (first + static_cast<std::int64_t>(seg_n_[0]) + static_cast<std::int64_t>(seg_n_[1]) - 1 > 0x7fffffff) return false;
    v.count = 0;
    std::int64_t at = first;
    for (int s = 0; s < 2; ++s) {
      const auto m = static_cast<std::int64_t>(seg_n_[s]);
      if (m > 0) {
        std::int64_t c = at % m;
        if (c < 0) c += m;
        v.seg[v.count++] = {seg(s), index_[s], static_cast<std::uint64_t>(c)};
      }
      at += m;
    }
    return true;
  }
  void skip_rotation() override {
    idx_ += remaining_[0] + remaining_[1];
    remaining_[0] = remaining_[1] = 0;
  }

 private:
  std::span<const HostId> seg(int s) const { return {seg_[s], seg_n_[s]}; }
  HostId take(std::span<const HostId> list) { return list[java_index(as_java_int(idx_++), list.size())]; }
  const DcRoundRobin* p_;
  const HostId* seg_[2];       // local rack (or whole local DC), remote racks of the local DC
  const CowList* index_[2];    // the lists the segments are snapshots of
  const HostId* remote_ = nullptr;
  std::uint32_t seg_n_[2];
  std::uint32_t remaining_[2];
  std::uint32_t remote_n_ = 0;
  std::uint32_t remote_remaining_ = 0;
  std::uint32_t idx_;
  std::uint32_t next_dc_ = 0;
  ConsistencyLevel cl_;
  bool done_ = false;
};
static_assert(sizeof(DcPlan) == 96);

class DcRoundRobin final : public Policy {
 public:
  explicit DcRoundRobin(DcRoundRobinOptions o) : o_(std::move(o)) {}

  void init(const ClusterView& view, Rng& rng) override {
    const Topology& t = view.topology();
    topo_ = &t;
    per_dc_.assign(t.dcs.size(), CowList());
    keyed_.assign(t.dcs.size(), 0);
    keys_.clear();
    remote_order_.clear();
    const StartupOrder start = java3_startup_order(view, o_.contact_points);
    // The defaults are the first init() host's DC and rack (node 0 without contact points).
    const HostId first = !o_.contact_points.empty() && start.init_hosts > 0 ? start.hosts[0] : 0;
    local_dc_ = o_.local_dc || o_.contact_points.empty() || start.init_hosts == 0 ? resolve_dc(t, o_.local_dc)
                                                                                  : t.node_dc[first];
    // The driver compares rack names; the default is the rack of the first host, whatever its DC.
    in_local_rack_.assign(t.size(), 0);
    if (o_.rack_aware && t.size() > 0) {
      const std::string& rack = o_.local_rack ? *o_.local_rack : t.racks[t.node_rack[first]];
      for (HostId h = 0; h < t.size(); ++h) in_local_rack_[h] = t.racks[t.node_rack[h]] == rack ? 1 : 0;
    }
    for (HostId h : start.hosts) on_up(h);
    index_ = static_cast<std::uint32_t>(rng.below(std::max<std::size_t>(start.init_hosts, 1)));
  }

  Distance distance(HostId h) const override {
    if (topo_->node_dc[h] == local_dc_) {
      if (o_.rack_aware && !in_local_rack_[h]) return o_.remote_rack_distance;
      return Distance::Local;
    }
    if (o_.used_hosts_per_remote_dc == 0) return Distance::Ignored;
    return contains(remote_head(topo_->node_dc[h]), h) ? Distance::Remote : Distance::Ignored;
  }

  Plan* new_plan(const Request& req, PlanRandom&, PlanArena& arena) override {
    const std::uint32_t idx = index_++;
    // LWT: no rack prioritization (Scylla 3.x RackAwareRoundRobinPolicy, java-driver#850).
    if (o_.rack_aware && !req.lwt)
      return arena.make<DcPlan>(this, local_rack_list_.snapshot(), remote_racks_list_.snapshot(), &local_rack_list_,
                                &remote_racks_list_, idx, req.cl);
    const CowList* local = local_dc_ < per_dc_.size() ? &per_dc_[local_dc_] : nullptr;
    return arena.make<DcPlan>(this, local ? local->snapshot() : std::span<const HostId>{}, std::span<const HostId>{},
                              local, nullptr, idx, req.cl);
  }

  // The rack-aware driver uses add() (not addIfAbsent) for its rack lists; onUp is only called on
  // a down->up transition there, so addIfAbsent is equivalent and keeps plans duplicate-free.
  void on_up(HostId h) override {
    const std::uint32_t dc = topo_->node_dc[h];
    if (!keyed_[dc]) add_key(dc);
    per_dc_[dc].add_if_absent(h);
    if (o_.rack_aware && dc == local_dc_)
      (in_local_rack_[h] ? local_rack_list_ : remote_racks_list_).add_if_absent(h);
  }
  void on_down(HostId h) override {
    per_dc_[topo_->node_dc[h]].remove(h);
    local_rack_list_.remove(h);
    remote_racks_list_.remove(h);
  }

  // Used by DcPlan once the local lists are exhausted.
  bool stop_after_local(ConsistencyLevel cl) const { return !o_.allow_remote_dcs_for_local_cl && is_dc_local(cl); }
  // The remote DCs in the driver's visiting order (HashSet order of the map's keys, the local DC
  // left out).
  std::span<const std::uint32_t> remote_order() const { return remote_order_; }
  std::span<const HostId> remote_head(std::uint32_t dc) const {
    const auto all = per_dc_[dc].snapshot();
    return all.first(std::min<std::size_t>(all.size(), static_cast<std::size_t>(o_.used_hosts_per_remote_dc)));
  }

 private:
  DcRoundRobinOptions o_;
  const Topology* topo_ = nullptr;
  // perDcLiveHosts' keys: a DC gets one when its first host comes up and keeps it.
  void add_key(std::uint32_t dc) {
    keyed_[dc] = 1;
    keys_.push_back(dc);
    std::vector<std::string> names;
    for (std::uint32_t d : keys_) names.push_back(topo_->dcs[d]);
    remote_order_.clear();
    for (std::uint32_t i : java::hash_set_copy_order(names))
      if (keys_[i] != local_dc_) remote_order_.push_back(keys_[i]);
  }

  std::vector<CowList> per_dc_;
  std::vector<std::uint8_t> keyed_;
  std::vector<std::uint32_t> keys_;          // in insertion order
  std::vector<std::uint32_t> remote_order_;  // in the driver's visiting order
  CowList local_rack_list_, remote_racks_list_;
  std::vector<std::uint8_t> in_local_rack_;
  std::uint32_t local_dc_ = kNoDc;
  std::uint32_t index_ = 0;  // Java AtomicInteger bits
};

HostId DcPlan::next() {
  if (done_) return kNoHost;
  for (int s = 0; s < 2; ++s)
    if (remaining_[s] > 0) {
      --remaining_[s];
      return take(seg(s));
    }
  for (;;) {
    if (remote_remaining_ > 0) {
      --remote_remaining_;
      return take({remote_, remote_n_});
    }
    if (p_->stop_after_local(cl_) || next_dc_ >= p_->remote_order().size()) break;
    const std::uint32_t dc = p_->remote_order()[next_dc_++];
    const std::span<const HostId> head = p_->remote_head(dc);
    remote_ = head.data();
    remote_n_ = remote_remaining_ = static_cast<std::uint32_t>(head.size());
  }
  done_ = true;
  return kNoHost;
}

std::unique_ptr<Policy> make_dc_aware(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path,
                   {"type", "local_dc", "used_hosts_per_remote_dc", "allow_remote_dcs_for_local_cl", "contact_points"});
  DcRoundRobinOptions opts;
  opts.local_dc = dc_param(o, "local_dc", ctx);
  opts.contact_points = contact_points_param(o, ctx);
  opts.used_hosts_per_remote_dc = static_cast<int>(o.integer("used_hosts_per_remote_dc", 0, 1000000, 0));
  opts.allow_remote_dcs_for_local_cl = o.boolean("allow_remote_dcs_for_local_cl", false);
  return make_dc_round_robin(opts);
}

}  // namespace

std::unique_ptr<Policy> make_dc_round_robin(const DcRoundRobinOptions& opts) { return std::make_unique<DcRoundRobin>(opts); }

StartupOrder java3_startup_order(const ClusterView& view, const std::vector<std::string>& contact_points) {
  StartupOrder out;
  const Topology& t = view.topology();
  std::vector<std::uint8_t> taken(t.size(), 0);
  for (const std::string& id : contact_points) {
    const auto h = t.node_index(id);  // checked when the spec was built with the topology
    if (!h || !view.is_up(*h) || taken[*h]) continue;  // unreachable: onDown after init()
    taken[*h] = 1;
    out.hosts.push_back(*h);
  }
  out.init_hosts = out.hosts.size();
  for (HostId h = 0; h < t.size(); ++h)
    if (!taken[h] && view.is_up(h)) out.hosts.push_back(h);
  if (contact_points.empty()) out.init_hosts = out.hosts.size();
  return out;
}

LBSIM_REGISTER_POLICY(DCAwareRoundRobin, Driver::Java3,
                      "Java 3.x DCAwareRoundRobinPolicy: local-DC hosts round-robin (one index step per plan, "
                      "random start), then used_hosts_per_remote_dc hosts of each remote DC unless the CL is DC-local",
                      (std::vector<ParamInfo>{
                          {"local_dc", "a datacenter of the topology", "the DC of the first reachable contact point, else of the first host"},
                          {"used_hosts_per_remote_dc", "0..1000000", "0"},
                          {"allow_remote_dcs_for_local_cl", "true | false", "false"},
                          {"contact_points", "an array of node ids",
                           "none (init() over every up host, a uniform start)"}}),
                      make_dc_aware)

}  // namespace lbsim::policy
