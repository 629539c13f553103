// NodeAllowList: semantics of cassandra-driver 4.10.0 (npm; lib/policies/load-balancing.js)
// AllowListPolicy (WhiteListPolicy is its deprecated alias).
// - distance: IGNORED for a host outside `hosts` (the driver matches "address:port"; lbsim
//   matches node ids), else the child's distance.
// - Plan: the child plan (built when the plan is made), minus the hosts outside the list; nothing
//   is reordered and no random draw is made.
// - init and every event go to the child.
#include "policies/nodejs/replicas.hpp"
#include "policies/wrapper.hpp"
#include "policies/plan_util.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

class AllowListPlan final : public Plan {
 public:
  AllowListPlan(const std::uint8_t* allowed, Plan* child) : allowed_(allowed), child_(child) {}
  HostId next() override {
    for (HostId h = child_->next(); h != kNoHost; h = child_->next())
      if (allowed_[h]) return h;
    return kNoHost;
  }

 private:
  const std::uint8_t* allowed_;
  Plan* child_;
};

class NodeAllowList final : public Wrapper {
 public:
  NodeAllowList(std::unique_ptr<Policy> child, std::vector<std::string> ids) : Wrapper(std::move(child)), ids_(std::move(ids)) {}

  void init(const ClusterView& view, Rng& rng) override {
    allowed_ = nodejs::node_mask(view.topology(), ids_);
    child_->init(view, rng);
  }
  Distance distance(HostId h) const override { return allowed_[h] ? child_->distance(h) : Distance::Ignored; }
  Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) override {
    return arena.make<AllowListPlan>(allowed_.data(), child_->new_plan(req, rnd, arena));
  }

 private:
  std::vector<std::string> ids_;
  std::vector<std::uint8_t> allowed_;
};

std::unique_ptr<Policy> make_node_allow_list(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "hosts", "child"});
  auto ids = nodejs::node_list_param(o, "hosts", ctx);
  if (!ids)
    jsonin::fail(o.path_of("hosts"),
                 "required field is missing (the node ids the driver may use; AllowListPolicy needs the list)");
  return std::make_unique<NodeAllowList>(make_required_child(o, ctx, "NodeAllowList"), std::move(*ids));
}

}  // namespace

LBSIM_REGISTER_POLICY(NodeAllowList, Driver::NodeJs,
                      "Node.js driver 4.10 AllowListPolicy around `child`: hosts outside `hosts` are IGNORED and "
                      "dropped from the child's plans, which are otherwise unchanged",
                      (std::vector<ParamInfo>{{"hosts", "a list of node ids", "required"},
                                              {"child", "a Node.js driver policy spec", "required"}}),
                      make_node_allow_list)

}  // namespace lbsim::policy
