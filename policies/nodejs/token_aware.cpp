// NodeTokenAware: semantics of cassandra-driver 4.10.0 (npm; lib/policies/load-balancing.js)
// TokenAwarePolicy and TokenAwareIterator.
// - No routing key or keyspace (!req.routed): the child plan, unchanged, no random draw.
// - Otherwise, at plan creation: the local replicas are the replicas whose CHILD distance is
//   LOCAL, in replica order, down ones included; startIndex = floor(Math.random() * k) (one draw,
//   also when k is 0); then the child plan is built at once (the child's round-robin index
//   advances with every routed plan, not lazily as in Java 3.x).
// - The plan yields the local replicas rotated from startIndex (not shuffled: only k orders
//   occur), then the child plan minus the local replicas.
// - Down hosts are not filtered by the driver's plan; its RequestHandler skips them when reached.
//   lbsim skips them at yield time (the same hosts tried, in the same order).
// - Math.random is per V8 isolate, without contention: counted as thread_local draws.
// - replica_source "nodejs-4.10" takes the replicas from the driver's own map
//   (policies/nodejs/replicas.hpp) instead of Request::replicas. A host listed twice there is
//   yielded twice, as TokenAwareIterator.computeNext yields every local entry and the
//   RequestHandler (lib/request-handler.js getNextConnection) tries whatever the plan yields: it is
//   first 2 times in k, and the retry after it goes to it again when the copies are adjacent.
// - distance() and every event are the child's.
#include "policies/nodejs/replicas.hpp"
#include "policies/wrapper.hpp"
#include "policies/plan_util.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

class NodeTokenAware;

class NodeTokenAwarePlan final : public Plan {
 public:
  NodeTokenAwarePlan(const ClusterView* view, std::span<const HostId> local, std::size_t start, Plan* child)
      : view_(view), local_(local), start_(start), child_(child) {}
  HostId next() override {
    const std::size_t k = local_.size();
    while (pos_ < k) {
      const HostId h = at(pos_++);
      if (!view_->is_up(h)) continue;
      return h;
    }
    for (HostId h = child_->next(); h != kNoHost; h = child_->next())
      if (view_->is_up(h) && !contains(local_, h)) return h;
    return kNoHost;
  }

 private:
  HostId at(std::size_t i) const { return local_[(start_ + i) % local_.size()]; }
  const ClusterView* view_;
  std::span<const HostId> local_;
  std::size_t start_;
  Plan* child_;
  std::size_t pos_ = 0;
};

class NodeTokenAware final : public Wrapper {
 public:
  NodeTokenAware(std::unique_ptr<Policy> child, nodejs::ReplicaSource src) : Wrapper(std::move(child)), src_(std::move(src)) {}

  void init(const ClusterView& view, Rng& rng) override {
    view_ = &view;
    child_->init(view, rng);
    if (src_.nodejs) map_ = std::make_unique<nodejs::ReplicaMap>(view.topology(), *src_.nodejs);
    refresh();
  }
  Distance distance(HostId h) const override { return child_->distance(h); }

  Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) override {
    if (!req.routed) return child_->new_plan(req, rnd, arena);
    const std::span<const HostId> replicas = nodejs::replicas_for(req, map_.get());
    std::span<HostId> local = arena.hosts(replicas.size());
    std::size_t k = 0;
    for (HostId h : replicas)
      if (local_[h]) local[k++] = h;
    // floor(Math.random() * k): one draw even when k is 0 (below(1) gives 0).
    const std::size_t start = rnd.below(static_cast<std::uint32_t>(std::max<std::size_t>(k, 1)), RngModel::ThreadLocal);
    Plan* child = child_->new_plan(req, rnd, arena);
    return arena.make<NodeTokenAwarePlan>(view_, local.first(k), start, child);
  }

  void child_changed() override { refresh(); }
  bool has_driver_replicas() const override { return map_ != nullptr; }
  std::span<const HostId> driver_replicas(Token t) const override {
    return map_ ? map_->replicas(t) : std::span<const HostId>{};
  }

 private:
  void refresh() {
    local_.resize(view_->size());
    for (HostId h = 0; h < view_->size(); ++h) local_[h] = child_->distance(h) == Distance::Local ? 1 : 0;
  }
  nodejs::ReplicaSource src_;
  std::unique_ptr<nodejs::ReplicaMap> map_;
  const ClusterView* view_ = nullptr;
  std::vector<std::uint8_t> local_;  // child distance == LOCAL, per host
};

// NodeDefault is token-aware itself: wrapping it (even below an allow-list) would put replicas
// first twice. The driver accepts the nesting; lbsim refuses it, as it refuses TokenAware(Default4x).
void refuse_default_below(const jsonin::Json& child, std::string path) {
  for (const jsonin::Json* cur = &child; cur->is_object();) {
    const auto t = cur->find("type");
    if (t == cur->end() || !t->is_string()) return;
    if (canonical_type(t->get<std::string>()) == "NodeDefault")
      jsonin::fail(jsonin::key_path(path, "type"),
                   "NodeTokenAware cannot wrap NodeDefault: DefaultLoadBalancingPolicy already puts the local replicas "
                   "first; use NodeDefault alone");
    const auto c = cur->find("child");
    if (c == cur->end()) return;
    cur = &*c;
    path = jsonin::key_path(path, "child");
  }
}

std::unique_ptr<Policy> make_node_token_aware(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "replica_source", "child"});
  nodejs::ReplicaSource src = nodejs::replica_source_param(o, ctx);
  if (o.has("child")) refuse_default_below(o.at("child"), o.path_of("child"));
  return std::make_unique<NodeTokenAware>(make_required_child(o, ctx, "NodeTokenAware"), std::move(src));
}

}  // namespace

LBSIM_REGISTER_POLICY(NodeTokenAware, Driver::NodeJs,
                      "Node.js driver 4.10 TokenAwarePolicy around `child`: the replicas LOCAL to the child, rotated "
                      "from a random start (k orders, not a shuffle), then the child plan built at plan creation; "
                      "replica_source nodejs-4.10 uses the driver's own NTS replica map with its bugs",
                      (std::vector<ParamInfo>{{"replica_source", nodejs::kReplicaSourceValues, "correct"},
                                              {"child", "a Node.js driver policy spec", "required"}}),
                      make_node_token_aware)

}  // namespace lbsim::policy
