// NodeDCAwareRoundRobin: semantics of cassandra-driver 4.10.0 (npm; lib/policies/load-balancing.js)
// DCAwareRoundRobinPolicy.
// - No remote DCs at all in 4.x (usedHostsPerRemoteDc was removed in 4.0): distance() is LOCAL
//   for hosts of `local_dc`, IGNORED for every other host.
// - The local hosts are every host of the local DC in host-map order (lbsim: node order), up or
//   down; the list changes only when hosts are added (appended) or removed, never on up/down.
// - `index` starts at 0 and is incremented BEFORE use (`this.index += 1`), so the first plan
//   starts at local host 1; it is reset to 0 when it reaches 2^53 (utils.maxInt). A plan yields
//   the n local hosts from position index mod n.
// - Down hosts stay in the plan; the driver's RequestHandler.getNextConnection skips a host that
//   is down (or IGNORED) when it reaches it. lbsim plans do that skip at yield time, so they hold
//   exactly the hosts the request handler would try.
// - local_dc is required, as in the driver (setLocalDc throws without localDataCenter).
#include "policies/nodejs/replicas.hpp"
#include "policies/plan_util.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

class NodeRotationPlan final : public Plan {
 public:
  NodeRotationPlan(const ClusterView* view, std::span<const HostId> hosts, std::uint64_t start)
      : view_(view), hosts_(hosts), idx_(start) {}
  HostId next() override {
    while (yielded_ < hosts_.size()) {
      ++yielded_;
      const HostId h = hosts_[static_cast<std::size_t>(idx_++ % hosts_.size())];
      if (view_->is_up(h)) return h;
    }
    return kNoHost;
  }

 private:
  const ClusterView* view_;
  std::span<const HostId> hosts_;
  std::uint64_t idx_;
  std::size_t yielded_ = 0;
};

class NodeDcAwareRoundRobin final : public Policy {
 public:
  explicit NodeDcAwareRoundRobin(std::string local_dc) : local_dc_name_(std::move(local_dc)) {}

  void init(const ClusterView& view, Rng&) override {
    view_ = &view;
    const Topology& t = view.topology();
    const auto d = t.dc_index(local_dc_name_);
    local_dc_ = d ? *d : kNoDc;
    local_ = CowList();
    members_version_ = view.members_version();
    for (HostId h = 0; h < view.size(); ++h)
      if (t.node_dc[h] == local_dc_ && view.is_known(h)) local_.add_if_absent(h);
  }
  Distance distance(HostId h) const override {
    return view_->dc(h) == local_dc_ ? Distance::Local : Distance::Ignored;
  }
  Plan* new_plan(const Request&, PlanRandom&, PlanArena& arena) override {
    if (view_->members_version() != members_version_) {
      // The host map changed (a node joined or was removed): removed hosts leave the list, new
      // ones are appended (a JavaScript Map's insertion order).
      members_version_ = view_->members_version();
      for (HostId h = 0; h < view_->size(); ++h)
        if (view_->dc(h) == local_dc_) {
          if (view_->is_known(h)) local_.add_if_absent(h);
          else local_.remove(h);
        }
    }
    index_ += 1;
    if (index_ >= kMaxInt) index_ = 0;
    if (local_.size() == 0) return empty_plan(arena);
    return arena.make<NodeRotationPlan>(view_, local_.snapshot(), index_);
  }

 private:
  static constexpr std::uint64_t kMaxInt = std::uint64_t{1} << 53;  // utils.maxInt
  std::string local_dc_name_;
  const ClusterView* view_ = nullptr;
  std::uint32_t local_dc_ = kNoDc;
  CowList local_;  // the known hosts of the local DC (ClusterView::is_known)
  std::uint64_t members_version_ = 0;
  std::uint64_t index_ = 0;
};

std::unique_ptr<Policy> make_node_dc_aware(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "local_dc"});
  auto dc = dc_param(o, "local_dc", ctx);
  if (!dc)
    jsonin::fail(o.path_of("local_dc"),
                 "required field is missing (the Node.js driver refuses to start without localDataCenter)");
  return std::make_unique<NodeDcAwareRoundRobin>(std::move(*dc));
}

}  // namespace

LBSIM_REGISTER_POLICY(NodeDCAwareRoundRobin, Driver::NodeJs,
                      "Node.js driver 4.10 DCAwareRoundRobinPolicy: the local DC's hosts only (others IGNORED), rotated "
                      "by an index that starts at 0 and steps before use; down hosts skipped when reached",
                      (std::vector<ParamInfo>{{"local_dc", "a datacenter of the topology", "required"}}),
                      make_node_dc_aware)

}  // namespace lbsim::policy
