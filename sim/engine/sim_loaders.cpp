// The loaders (`clients`, or the one `client` as loader 0): each with its own place, load, CPU,
// pools, policy instance and streams (Impl::Loader).
#include <algorithm>
#include <memory>

#include "policies/registry.hpp"
#include "sim/engine/sim_impl.hpp"

namespace lbsim {

namespace {
// The driver whose policy `spec` is (policies/registry.hpp); Java 3.x for an unknown type.
policy::Driver driver_of(const jsonin::Json& spec) {
  const auto* t = spec.is_object() && spec.contains("type") && spec["type"].is_string() ? &spec["type"] : nullptr;
  const policy::PolicyInfo* info = t ? policy::Registry::instance().find(t->get<std::string>()) : nullptr;
  return info ? info->driver : policy::Driver::Java3;
}
}  // namespace

void Simulation::Impl::init_loaders() {
  ops_.add_column(op_loader_, std::uint8_t{0});
  crs_.add_column(cr_loader_, std::uint8_t{0});
  std::uint32_t thread = 0;
  const bool one = sc_.loaders.empty();  // the scenario's `client` is loader 0
  const WorkloadSpec& w = sc_.workload;
  for (std::size_t l = 0; l < std::max<std::size_t>(1, sc_.loaders.size()); ++l) {
    const LoaderSpec* ls = one ? nullptr : &sc_.loaders[l];
    const ClientSpec& spec = one ? sc_.client : ls->client;
    auto L = std::make_unique<Loader>();
    L->spec = &spec;
    L->open = spec.mode == LoadMode::Open || (one && w.trace && w.trace_open_loop);
    if (ls) L->name = ls->name;
    const PolicyEntry& pe = ls && ls->policy ? *ls->policy : entry_;
    L->policy_name = pe.name;
    if (l == 0 && !(ls && ls->policy)) {
      L->policy = policy_.get();
      L->view = &view_;
      L->cpu = &cpu_;
      L->plan_rng = &plan_rng_;
      L->arrival_rng = &arrival_rng_;
      L->think_rng = &think_rng_;
      L->cost_rng = &cost_rng_;
    } else {
      // Its own streams, forked by name and loader index (loader 0 keeps the one-client streams,
      // unless it runs a policy of its own).
      L->own_policy_rng = root_.fork("policy", l);
      L->own_plan_rng = root_.fork("plan", l);
      L->own_arrival_rng = root_.fork("arrivals", l);
      L->own_think_rng = root_.fork("think", l);
      L->own_cost_rng = root_.fork("driver_cost", l);
      L->plan_rng = &L->own_plan_rng;
      L->arrival_rng = &L->own_arrival_rng;
      L->think_rng = &L->own_think_rng;
      L->cost_rng = &L->own_cost_rng;
      L->own_view = std::make_unique<policy::ClusterView>(view_);  // the same initial state (joining nodes down)
      L->view = L->own_view.get();
      L->own_cpu = std::make_unique<ClientCpu>(spec);
      L->cpu = L->own_cpu.get();
      policy::BuildContext ctx;
      ctx.topology = &topo_;
      ctx.replication = &sc_.cluster.replication;
      L->own_policy = policy::make_policy(pe.spec, pe.path, ctx);
      L->policy = L->own_policy.get();
      L->policy->init(*L->view, L->own_policy_rng);
      exact_in_flight_ = exact_in_flight_ || L->policy->reads_in_flight();
    }
    L->lingers = driver_of(pe.spec) == policy::Driver::NodeJs && L->policy->reads_in_flight();
    L->first_thread = thread;
    if (!L->open) {
      thread += spec.threads;
      thread_loader_.resize(thread, static_cast<std::uint8_t>(l));
    }
    L->coordinator.assign(n_, 0);
    loaders_.push_back(std::move(L));
  }
  if (one) return;  // result_.client is the one client's (the constructor)
  result_.client.open_loop = false;
  result_.client.threads = 0;
  result_.client.rate_ops_s = 0;
  for (const auto& L : loaders_) {
    if (L->spec->mode == LoadMode::Open) {
      result_.client.open_loop = true;
      result_.client.rate_ops_s += L->spec->rate;
    } else {
      result_.client.threads += L->spec->threads;
    }
  }
}

void Simulation::Impl::start_loader_arrivals(std::uint32_t l) {
  const Loader& L = *loaders_[l];
  if (L.open) {
    schedule_next_arrival(l);
  } else {
    for (std::uint32_t t = 0; t < L.spec->threads && !finished_all_; ++t) start_op(L.first_thread + t);
  }
}

}  // namespace lbsim
