// DCAwareRoundRobin (and the shared implementation of RackAwareRoundRobin): see
// dc_round_robin.hpp for the semantics and their sources.
#include <fmt/format.h>

#include "policies/java3/dc_round_robin.hpp"
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
    local_dc_ = resolve_dc(t, o_.local_dc);
    // The driver compares rack names; the default is the rack of the first host, whatever its DC.
    in_local_rack_.assign(t.size(), 0);
    if (o_.rack_aware && t.size() > 0) {
      const std::string& rack = o_.local_rack ? *o_.local_rack : t.racks[t.node_rack[0]];
      for (HostId h = 0; h < t.size(); ++h) in_local_rack_[h] = t.racks[t.node_rack[h]] == rack ? 1 : 0;
    }
    std::size_t n = 0;
    for (HostId h = 0; h < view.size(); ++h)
      if (view.is_up(h)) {
        on_up(h);
        ++n;
      }
    index_ = static_cast<std::uint32_t>(rng.below(std::max<std::size_t>(n, 1)));
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
  std::uint32_t dc_count() const { return static_cast<std::uint32_t>(per_dc_.size()); }
  std::uint32_t local_dc() const { return local_dc_; }
  std::span<const HostId> remote_head(std::uint32_t dc) const {
    const auto all = per_dc_[dc].snapshot();
    return all.first(std::min<std::size_t>(all.size(), static_cast<std::size_t>(o_.used_hosts_per_remote_dc)));
  }

 private:
  DcRoundRobinOptions o_;
  const Topology* topo_ = nullptr;
  std::vector<CowList> per_dc_;
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
    if (p_->stop_after_local(cl_) || next_dc_ >= p_->dc_count()) break;
    const std::uint32_t dc = next_dc_++;
    if (dc == p_->local_dc()) continue;
    const std::span<const HostId> head = p_->remote_head(dc);
    remote_ = head.data();
    remote_n_ = remote_remaining_ = static_cast<std::uint32_t>(head.size());
  }
  done_ = true;
  return kNoHost;
}

std::unique_ptr<Policy> make_dc_aware(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "local_dc", "used_hosts_per_remote_dc", "allow_remote_dcs_for_local_cl"});
  DcRoundRobinOptions opts;
  opts.local_dc = dc_param(o, "local_dc", ctx);
  opts.used_hosts_per_remote_dc = static_cast<int>(o.integer("used_hosts_per_remote_dc", 0, 1000000, 0));
  opts.allow_remote_dcs_for_local_cl = o.boolean("allow_remote_dcs_for_local_cl", false);
  return make_dc_round_robin(opts);
}

}  // namespace

std::unique_ptr<Policy> make_dc_round_robin(const DcRoundRobinOptions& opts) { return std::make_unique<DcRoundRobin>(opts); }

LBSIM_REGISTER_POLICY(DCAwareRoundRobin, Driver::Java3,
                      "Java 3.x DCAwareRoundRobinPolicy: local-DC hosts round-robin (one index step per plan, "
                      "random start), then used_hosts_per_remote_dc hosts of each remote DC unless the CL is DC-local",
                      (std::vector<ParamInfo>{
                          {"local_dc", "a datacenter of the topology", "the DC of the first host (the contact point)"},
                          {"used_hosts_per_remote_dc", "0..1000000", "0"},
                          {"allow_remote_dcs_for_local_cl", "true | false", "false"}}),
                      make_dc_aware)

}  // namespace lbsim::policy
