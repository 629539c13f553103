// RandomTwoChoice: semantics of the Scylla Java driver 3.x RandomTwoChoicePolicy
// (scylladb/java-driver#198, policies/RandomTwoChoicePolicy.java), a wrapper usually placed
// around TokenAware(RANDOM):
// - distance() is the child's.
// - A request without a routing key gets the child plan unchanged.
// - Otherwise the first two hosts of the child plan are compared by the in-flight requests on the
//   token's shard of each (Metrics.getPerShardInflightRequestInfo, ClusterView::in_flight_on_shard);
//   the first comes first only when it has strictly fewer, so a tie puts the second host first.
//   The rest of the child plan follows unchanged.
// - Where the driver would put a null host first (a one-host plan whose host is busier than
//   "nobody"), lbsim skips the missing host.
#include "policies/plan_util.hpp"
#include "policies/wrapper.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

class TwoChoicePlan final : public Plan {
 public:
  TwoChoicePlan(HostId first, HostId second, Plan* rest) : first_(first), second_(second), rest_(rest) {}
  HostId next() override {
    while (pos_ < 2) {
      const HostId h = pos_++ == 0 ? first_ : second_;
      if (h != kNoHost) return h;
    }
    return rest_->next();
  }

 private:
  HostId first_, second_;
  Plan* rest_;
  int pos_ = 0;
};

class RandomTwoChoice final : public Wrapper {
 public:
  explicit RandomTwoChoice(std::unique_ptr<Policy> child) : Wrapper(std::move(child)) {}
  void init(const ClusterView& view, Rng& rng) override {
    view_ = &view;
    child_->init(view, rng);
  }
  Distance distance(HostId h) const override { return child_->distance(h); }
  Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) override {
    Plan* child = child_->new_plan(req, rnd, arena);
    if (!req.routed) return child;
    const std::uint32_t shard = shard_of(req.token, view_->sharding());
    const HostId h1 = child->next();
    const HostId h2 = h1 == kNoHost ? kNoHost : child->next();
    const std::int32_t f1 = h1 == kNoHost ? 0 : view_->in_flight_on_shard(h1, shard);
    const std::int32_t f2 = h2 == kNoHost ? 0 : view_->in_flight_on_shard(h2, shard);
    const bool first_wins = f1 < f2;
    return arena.make<TwoChoicePlan>(first_wins ? h1 : h2, first_wins ? h2 : h1, child);
  }
  bool adaptive() const override { return true; }
  bool reads_in_flight() const override { return true; }

 private:
  const ClusterView* view_ = nullptr;
};

std::unique_ptr<Policy> make_random_two_choice(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path, {"type", "child"});
  return std::make_unique<RandomTwoChoice>(make_required_child(o, ctx, "RandomTwoChoice"));
}

}  // namespace

LBSIM_REGISTER_POLICY(RandomTwoChoice, Driver::Java3,
                      "Scylla Java 3.x RandomTwoChoicePolicy around `child` (usually TokenAware RANDOM): of the "
                      "child's first two hosts, the one with fewer requests in flight on the token's shard goes "
                      "first (a tie: the second)",
                      (std::vector<ParamInfo>{{"child", "a Java 3.x policy spec", "required"}}), make_random_two_choice)

}  // namespace lbsim::policy
