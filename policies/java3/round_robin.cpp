// RoundRobin: semantics of Java driver 3.x RoundRobinPolicy.
// - distance() is LOCAL for every host.
// - The live hosts are a CopyOnWriteArrayList: addIfAbsent on up (a host coming back is appended
//   at the end), remove on down.
// - init() sets the index to a random value in [0, max(hosts, 1)), `hosts` being what init() gets:
//   with `contact_points`, the reachable contact points only, the other hosts appended after them
//   (onAdd); without, every up host in topology order (see java3/dc_round_robin.hpp, "Startup").
// - A plan takes start = index++; when start > Integer.MAX_VALUE - 10000 the index is reset to
//   0. It yields hosts[(start + k) mod n], k = 0..n-1, over the snapshot taken at creation.
#include "policies/java3/dc_round_robin.hpp"
#include "policies/plan_util.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

class RoundRobinPlan final : public Plan {
 public:
  RoundRobinPlan(std::span<const HostId> hosts, const CowList* index, std::int64_t start)
      : hosts_(hosts), index_(index), idx_(start) {}
  bool rotation(RotationView& v) const override {
    if (remaining_ != hosts_.size() || hosts_.empty()) return false;
    v.count = 1;
    v.seg[0] = {hosts_, index_, static_cast<std::uint64_t>(idx_ % static_cast<std::int64_t>(hosts_.size()))};
    return true;
  }
  void skip_rotation() override {
    idx_ += static_cast<std::int64_t>(remaining_);
    remaining_ = 0;
  }
  HostId next() override {
    if (remaining_ == 0) return kNoHost;
    --remaining_;
    return hosts_[static_cast<std::size_t>(idx_++ % static_cast<std::int64_t>(hosts_.size()))];
  }

 private:
  std::span<const HostId> hosts_;
  const CowList* index_;
  std::int64_t idx_;  // start <= Integer.MAX_VALUE - 10000 + 1, so no int overflow in the driver
  std::size_t remaining_ = hosts_.size();
};

class RoundRobin final : public Policy {
 public:
  explicit RoundRobin(std::vector<std::string> contact_points) : contact_points_(std::move(contact_points)) {}
  void init(const ClusterView& view, Rng& rng) override {
    const StartupOrder start = java3_startup_order(view, contact_points_);
    for (HostId h : start.hosts) live_.add_if_absent(h);
    index_ = static_cast<std::int32_t>(rng.below(std::max<std::size_t>(start.init_hosts, 1)));
  }
  Distance distance(HostId) const override { return Distance::Local; }
  Plan* new_plan(const Request&, PlanRandom&, PlanArena& arena) override {
    const std::int32_t start = index_;
    index_ = as_java_int(static_cast<std::uint32_t>(index_) + 1);
    if (start > kIntMax - 10000) index_ = 0;
    return arena.make<RoundRobinPlan>(live_.snapshot(), &live_, start);
  }
  void on_up(HostId h) override { live_.add_if_absent(h); }
  void on_down(HostId h) override { live_.remove(h); }

 private:
  static constexpr std::int32_t kIntMax = 0x7fffffff;
  std::vector<std::string> contact_points_;
  CowList live_;
  std::int32_t index_ = 0;
};

std::unique_ptr<Policy> make_round_robin(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "contact_points"});
  return std::make_unique<RoundRobin>(contact_points_param(o, ctx));
}

}  // namespace

LBSIM_REGISTER_POLICY(RoundRobin, Driver::Java3,
                      "Java 3.x RoundRobinPolicy: every live host, rotated by one per plan from a random start",
                      (std::vector<ParamInfo>{{"contact_points", "an array of node ids",
                                               "none (init() over every up host, a uniform start)"}}),
                      make_round_robin)

}  // namespace lbsim::policy
