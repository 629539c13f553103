// GoRoundRobin, GoDCAwareRoundRobin, GoRackAwareRoundRobin: semantics of gocql's
// roundRobinHostPolicy, dcAwareRR and rackAwareRR (scylladb/gocql policies.go @3703808c, 2026-08;
// apache/cassandra-gocql-driver policies.go @65e2cafa, 2025-02, is the same but has no
// HostPolicyOptionDisableDCFailover).
// - Hosts are kept in copy-on-write lists (cowHostList): add appends a host not yet present,
//   remove keeps the order of the others. AddHost/HostUp add, RemoveHost/HostDown remove; lbsim
//   adds the up hosts in host order at init, then follows on_up/on_down.
// - RoundRobin keeps one list; dcAwareRR two (local DC, then every other DC in one list);
//   rackAwareRR three, by HostTier: 0 local rack of the local DC, 1 other racks of the local DC,
//   2 other DCs.
// - Every plan takes shift = ++offset, an atomic uint64 that starts at 0 (no random start), so the
//   first plan has shift 1. Its lists ("layers") are snapshots taken at Pick time, visited in
//   order; layer L yields L[(shift + k) % len(L)] for k = 1..len(L), skipping hosts that are down
//   when reached (HostInfo.IsUp, checked lazily). Every layer restarts from the same shift (not a
//   continuing index as in the Java driver), so the first plan starts each layer at index 1 % len.
// - HostPolicyOptionDisableDCFailover (scylladb/gocql PR #202, 2024-07) drops the other-DC layer.
// - IsLocal: RoundRobin every host; dcAwareRR the local DC; rackAwareRR only HostTier 0 (the local
//   rack). distance() is LOCAL exactly when IsLocal, else REMOTE (gocql connects to every host, so
//   nothing is IGNORED, even with DC failover disabled: GoTokenAware's NonLocalReplicasFallback
//   still uses remote replicas then). rackAwareRR is a HostTierer (MaxHostTier 2) and its
//   distance_tier() is its HostTier.
// - gocql has no default DC or rack: DCAwareRoundRobinPolicy(localDC) and
//   RackAwareRoundRobinPolicy(localDC, localRack) take them as arguments, so they are required.
#include <fmt/format.h>

#include "policies/go/round_robin.hpp"
#include "policies/plan_util.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

// gocql roundRobbin(shift, layers...) over up to three layers.
class GoRoundRobinPlan final : public Plan {
 public:
  GoRoundRobinPlan(const ClusterView* view, std::uint64_t shift, std::span<const HostId> a, std::span<const HostId> b,
                   std::span<const HostId> c, std::size_t layers)
      : view_(view), shift_(shift), layers_{a, b, c}, count_(layers) {}
  HostId next() override {
    while (layer_ < count_) {
      const std::span<const HostId> hosts = layers_[layer_];
      while (observed_ < hosts.size()) {
        ++observed_;
        // Go computes (int(shift) + observed) % len in int; uint64 gives the same index for any
        // shift below 2^63, i.e. for every plan a run can make.
        const HostId h = hosts[static_cast<std::size_t>((shift_ + observed_) % hosts.size())];
        if (view_->is_up(h)) return h;
      }
      ++layer_;
      observed_ = 0;
    }
    return kNoHost;
  }

 private:
  const ClusterView* view_;
  std::uint64_t shift_;
  std::span<const HostId> layers_[3];
  std::size_t count_;
  std::size_t layer_ = 0;
  std::uint64_t observed_ = 0;
};

enum class GoRrKind : std::uint8_t { All, Dc, Rack };

struct GoRrOptions {
  GoRrKind kind = GoRrKind::All;
  std::string local_dc;    // Dc, Rack
  std::string local_rack;  // Rack
  bool disable_dc_failover = false;
};

// One implementation for the three policies: `kind` decides how hosts split into layers.
class GoRoundRobinBase : public Policy {
 public:
  explicit GoRoundRobinBase(GoRrOptions o) : o_(std::move(o)) {}

  void init(const ClusterView& view, Rng&) override {
    view_ = &view;
    const Topology& t = view.topology();
    const std::uint32_t dc = o_.kind == GoRrKind::All ? kNoDc : resolve_dc(t, o_.local_dc);
    layer_of_.assign(t.size(), 0);
    for (HostId h = 0; h < t.size(); ++h) {
      if (o_.kind == GoRrKind::All) continue;
      const bool local_dc = t.node_dc[h] == dc;
      if (o_.kind == GoRrKind::Dc) layer_of_[h] = local_dc ? 0 : 1;
      else layer_of_[h] = !local_dc ? 2 : (t.racks[t.node_rack[h]] == o_.local_rack ? 0 : 1);
    }
    for (HostId h = 0; h < view.size(); ++h)
      if (view.is_up(h)) on_up(h);
  }
  Distance distance(HostId h) const override { return layer_of_[h] == 0 ? Distance::Local : Distance::Remote; }

  Plan* new_plan(const Request&, PlanRandom&, PlanArena& arena) override {
    const std::uint64_t shift = ++offset_;
    std::size_t layers = 1;
    if (o_.kind == GoRrKind::Dc) layers = o_.disable_dc_failover ? 1 : 2;
    if (o_.kind == GoRrKind::Rack) layers = o_.disable_dc_failover ? 2 : 3;
    return arena.make<GoRoundRobinPlan>(view_, shift, lists_[0].snapshot(), lists_[1].snapshot(), lists_[2].snapshot(),
                                        layers);
  }
  void on_up(HostId h) override { lists_[layer_of_[h]].add_if_absent(h); }
  void on_down(HostId h) override { lists_[layer_of_[h]].remove(h); }

 protected:
  std::uint8_t layer_of(HostId h) const { return layer_of_[h]; }

 private:
  GoRrOptions o_;
  const ClusterView* view_ = nullptr;
  std::vector<std::uint8_t> layer_of_;  // the list a host belongs to (rackAwareRR: its HostTier)
  CowList lists_[3];
  std::uint64_t offset_ = 0;  // lastUsedHostIdx
};

class GoRoundRobin final : public GoRoundRobinBase {
 public:
  using GoRoundRobinBase::GoRoundRobinBase;
};

class GoRackAwareRoundRobin final : public GoRoundRobinBase, public GoHostTierer {
 public:
  using GoRoundRobinBase::GoRoundRobinBase;
  int distance_tier(HostId h) const override { return layer_of(h); }
  unsigned max_host_tier() const override { return 2; }
};

std::string required_dc(const jsonin::Object& o, const BuildContext& ctx, std::string_view policy) {
  auto dc = dc_param(o, "local_dc", ctx);
  if (!dc) jsonin::fail(o.path_of("local_dc"), fmt::format("required field is missing (gocql {} has no default)", policy));
  return *dc;
}

std::unique_ptr<Policy> make_go_round_robin(const jsonin::Json& spec, const std::string& path, const BuildContext&) {
  jsonin::Object o(spec, path, {"type"});
  return std::make_unique<GoRoundRobin>(GoRrOptions{});
}

std::unique_ptr<Policy> make_go_dc_aware(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "local_dc", "disable_dc_failover"});
  GoRrOptions opts;
  opts.kind = GoRrKind::Dc;
  opts.local_dc = required_dc(o, ctx, "DCAwareRoundRobinPolicy(localDC)");
  opts.disable_dc_failover = o.boolean("disable_dc_failover", false);
  return std::make_unique<GoRoundRobin>(std::move(opts));
}

std::unique_ptr<Policy> make_go_rack_aware(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "local_dc", "local_rack", "disable_dc_failover"});
  GoRrOptions opts;
  opts.kind = GoRrKind::Rack;
  opts.local_dc = required_dc(o, ctx, "RackAwareRoundRobinPolicy(localDC, localRack)");
  const auto rack = rack_param(o, "local_rack", opts.local_dc, ctx);
  if (!rack)
    jsonin::fail(o.path_of("local_rack"),
                 "required field is missing (gocql RackAwareRoundRobinPolicy(localDC, localRack) has no default)");
  opts.local_rack = *rack;
  opts.disable_dc_failover = o.boolean("disable_dc_failover", false);
  return std::make_unique<GoRackAwareRoundRobin>(std::move(opts));
}

}  // namespace

LBSIM_REGISTER_POLICY(GoRoundRobin, Driver::Go,
                      "gocql RoundRobinHostPolicy (the fallback of gocql's default TokenAwareHostPolicy): every live "
                      "host, rotated by one per plan from offset 1, all LOCAL",
                      (std::vector<ParamInfo>{}), make_go_round_robin)

LBSIM_REGISTER_POLICY(GoDCAwareRoundRobin, Driver::Go,
                      "gocql DCAwareRoundRobinPolicy: live local-DC hosts, then all other hosts, each list rotated from "
                      "the same per-plan offset (starting at 1); remote hosts are dropped with disable_dc_failover",
                      (std::vector<ParamInfo>{{"local_dc", "a datacenter of the topology", "required"},
                                              {"disable_dc_failover", "true | false", "false"}}),
                      make_go_dc_aware)

LBSIM_REGISTER_POLICY(GoRackAwareRoundRobin, Driver::Go,
                      "gocql RackAwareRoundRobinPolicy: live hosts of the local rack, then the rest of the local DC, "
                      "then other DCs (unless disable_dc_failover), each rotated from the same per-plan offset; "
                      "only the local rack is LOCAL (HostTier 0)",
                      (std::vector<ParamInfo>{{"local_dc", "a datacenter of the topology", "required"},
                                              {"local_rack", "a rack of local_dc", "required"},
                                              {"disable_dc_failover", "true | false", "false"}}),
                      make_go_rack_aware)

}  // namespace lbsim::policy
