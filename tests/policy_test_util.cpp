#include "policy_test_util.hpp"

#include <algorithm>
#include <stdexcept>

#include <gtest/gtest.h>

#include "policies/plan_util.hpp"

namespace lbsim::policy::testing {

Plan* FixedChild::new_plan(const Request&, PlanRandom&, PlanArena& arena) {
  ++plans_made;
  return arena.make<FixedPlan>(std::span<const HostId>(plan_));
}

void SortingChild::init(const ClusterView& view, Rng&) {
  hosts_.clear();
  for (HostId h = 0; h < view.size(); ++h)
    if (view.is_up(h)) hosts_.push_back(h);
}
Plan* SortingChild::new_plan(const Request&, PlanRandom&, PlanArena& arena) {
  auto copy = arena.hosts(hosts_.size());
  std::copy(hosts_.begin(), hosts_.end(), copy.begin());
  return arena.make<FixedPlan>(copy);
}
void SortingChild::on_up(HostId h) {
  if (!contains(hosts_, h)) hosts_.insert(std::upper_bound(hosts_.begin(), hosts_.end(), h), h);
}
void SortingChild::on_down(HostId h) { hosts_.erase(std::remove(hosts_.begin(), hosts_.end(), h), hosts_.end()); }

Harness::Harness(Topology topo, Replication repl, std::unique_ptr<Policy> p, std::uint64_t seed)
    : rng(Rng(seed).fork("policy")),
      ring_(std::make_unique<TokenRing>(std::move(topo), std::move(repl))),
      view_(std::make_unique<ClusterView>(ring_->topology())),
      policy_(std::move(p)) {
  Rng init_rng = Rng(seed).fork("policy-init");
  policy_->init(*view_, init_rng);
}

Harness::Harness(Topology topo, Replication repl, const std::string& spec_json, std::uint64_t seed)
    : rng(Rng(seed).fork("policy")),
      ring_(std::make_unique<TokenRing>(std::move(topo), std::move(repl))),
      view_(std::make_unique<ClusterView>(ring_->topology())) {
  BuildContext ctx{&ring_->topology(), &ring_->replication()};
  policy_ = make_policy(nlohmann::json::parse(spec_json), "", ctx);
  Rng init_rng = Rng(seed).fork("policy-init");
  policy_->init(*view_, init_rng);
}

HostId Harness::id(const std::string& n) const {
  const auto i = ring_->topology().node_index(n);
  if (!i) throw std::invalid_argument("no node " + n);
  return *i;
}

Request Harness::routed(Token t, ConsistencyLevel cl, SimTime now) const {
  Request r;
  r.routed = true;
  r.token = t;
  r.replicas = ring_->replicas(t, ReplicaOrder::Driver);
  r.cl = cl;
  r.now = now;
  return r;
}

Request Harness::unrouted(ConsistencyLevel cl) const {
  Request r;
  r.cl = cl;
  return r;
}

Request Harness::with_replicas(const std::vector<HostId>& replicas, SimTime now) {
  replica_lists_.push_back(replicas);
  Request r;
  r.routed = true;
  r.replicas = replica_lists_.back();
  r.now = now;
  return r;
}

std::vector<HostId> Harness::plan(const Request& req) {
  arena.reset();
  std::vector<HostId> out;
  Plan* p = policy_->new_plan(req, rnd, arena);
  for (HostId h = p->next(); h != kNoHost; h = p->next()) {
    out.push_back(h);
    if (out.size() > 10 * view_->size() + 10) break;  // a broken plan must not hang the test
  }
  EXPECT_EQ(p->next(), kNoHost) << "an exhausted plan must stay exhausted";
  return out;
}

std::vector<std::string> Harness::plan_names(const Request& req) { return names(*this, plan(req)); }

HostId Harness::first(const Request& req) {
  arena.reset();
  return policy_->new_plan(req, rnd, arena)->next();
}

void Harness::down(HostId h) {
  view_->set_up(h, false);
  policy_->on_down(h);
}

void Harness::up(HostId h) {
  view_->set_up(h, true);
  policy_->on_up(h);
}

std::vector<std::string> names(const Harness& h, const std::vector<HostId>& ids) {
  std::vector<std::string> out;
  for (HostId x : ids) out.push_back(h.name(x));
  return out;
}

std::string error_of(const std::string& spec, const Topology* topo, const Replication* repl) {
  try {
    make_policy(nlohmann::json::parse(spec), "/p", BuildContext{topo, repl});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::map<std::string, int> first_counts(Harness& h, const Request& req, int plans) {
  std::map<std::string, int> c;
  for (int i = 0; i < plans; ++i)
    if (const HostId f = h.first(req); f != kNoHost) ++c[h.name(f)];
  return c;
}

}  // namespace lbsim::policy::testing
