// The core harness (issue 45): a simulation's core (Simulation::Impl, sim/engine/sim_impl.hpp)
// built on a small scenario and never run, so that a test can fire one hook point or call one
// strategy of a mechanism (sim/engine/mechanism.hpp) directly, with chosen requests, replicas and
// times, instead of reading its effect off a whole run.
#pragma once
#include <memory>
#include <utility>

#include "policies/registry.hpp"
#include "sim/engine/sim_impl.hpp"
#include "sim_test_util.hpp"

namespace lbsim::testing {

class CoreHarness {
 public:
  explicit CoreHarness(Scenario sc, std::uint64_t seed = 1) : sc_(std::make_unique<Scenario>(std::move(sc))) {
    const PolicyEntry& entry = sc_->policies.front();
    policy::BuildContext ctx;
    ctx.topology = &sc_->topology();
    ctx.replication = &sc_->cluster.replication;
    core_ = std::make_unique<Simulation::Impl>(*sc_, entry, policy::make_policy(entry.spec, entry.path, ctx), seed);
  }
  Simulation::Impl& core() { return *core_; }
  // The scenario's mechanism of type M (null when the scenario does not use it).
  template <class M>
  M* mechanism() {
    for (const auto& m : core_->mechs_)
      if (auto* p = dynamic_cast<M*>(m.get())) return p;
    return nullptr;
  }
  // A read request coordinated by `coordinator`, and one replica job of it on `replica`: their slots.
  std::pair<std::uint32_t, std::uint32_t> read_job(NodeId coordinator, NodeId replica) {
    const std::uint32_t cr = core_->crs_.alloc();
    core_->crs_[cr].kind = OpKind::Read;
    core_->crs_[cr].node = coordinator;
    const std::uint32_t job = core_->jobs_.alloc();
    core_->jobs_[job].cr = cr;
    core_->jobs_[job].node = replica;
    return {cr, job};
  }
  void set_now(SimTime t) { core_->now_ = t; }

 private:
  std::unique_ptr<Scenario> sc_;  // the core keeps references into it
  std::unique_ptr<Simulation::Impl> core_;
};

}  // namespace lbsim::testing
