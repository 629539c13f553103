#include "sim/cluster/tablet_balance_sim.hpp"

#include <algorithm>
#include <stdexcept>

namespace lbsim {

BalanceSimResult run_balance_sim(const BalanceSimSpec& spec) {
  const Topology& topo = spec.topo;
  const Rng root(spec.seed);
  BalanceSimResult res;
  res.nodes.assign(topo.size(), BalancerNode{});
  std::vector<std::uint32_t> member_shards(topo.size(), 0);
  for (NodeId n = 0; n < topo.size(); ++n) {
    if (spec.initial[n]) res.nodes[n].shards = member_shards[n] = spec.shards[n];
    res.nodes[n].capacity = spec.capacity.empty() ? 0 : spec.capacity[n];
  }
  std::uint64_t replicas = 0;
  for (std::size_t t = 0; t < spec.tables.size(); ++t) {
    const auto& tb = spec.tables[t];
    res.maps.push_back(TabletMap::allocate(topo, member_shards, tb.rf, tb.tablets, root.fork("balance/allocate", t)));
    replicas += res.maps.back().all().size();
  }
  Rng rng = root.fork("balance/plan");
  std::vector<BalancerTable> tables(spec.tables.size());

  auto settle = [&](BalanceSimStepResult& step) {
    const std::size_t limit = 1 + replicas * 10;  // perf-load-balancing's rebalance_tablets()
    for (;;) {
      for (std::size_t t = 0; t < tables.size(); ++t) tables[t] = {&res.maps[t], spec.tables[t].tablet_size};
      const auto plan = plan_migrations(topo, tables, res.nodes, {}, spec.limits, spec.options, rng);
      ++step.rounds;
      if (plan.empty()) return;
      if (step.rounds > limit) throw std::runtime_error("balance: " + step.what + " did not converge within " +
                                                        std::to_string(limit) + " rounds");
      for (const TabletMigration& m : plan) {
        res.maps[m.table].replace_replica(m.tablet, m.from, m.to);
        ++(m.from.host == m.to.host ? step.intranode : step.internode);
      }
    }
  };
  auto finish = [&](BalanceSimStepResult step) {
    for (std::size_t t = 0; t < res.maps.size(); ++t) {
      const BalanceStats s = balance_stats(topo, res.maps[t], res.nodes);
      step.tables.push_back(s);
      if (res.worst.size() <= t) res.worst.resize(t + 1);
      BalanceStats& w = res.worst[t];
      w.node_overcommit = std::max(w.node_overcommit, s.node_overcommit);
      w.shard_overcommit = std::max(w.shard_overcommit, s.shard_overcommit);
      w.best_node = std::max(w.best_node, s.best_node);
      w.best_shard = std::max(w.best_shard, s.best_shard);
    }
    res.steps.push_back(std::move(step));
  };

  BalanceSimStepResult init;
  init.what = "initial";
  settle(init);
  finish(std::move(init));
  for (const BalanceSimStep& st : spec.steps) {
    BalanceSimStepResult step;
    step.what = st.kind == BalanceSimStep::Kind::Bootstrap ? "bootstrap" : "decommission";
    for (NodeId n : st.nodes) step.what += " " + topo.nodes[n].id;
    for (NodeId n : st.nodes) {
      if (st.kind == BalanceSimStep::Kind::Bootstrap) res.nodes[n].shards = spec.shards[n];
      else res.nodes[n].draining = true;
    }
    settle(step);
    if (st.kind == BalanceSimStep::Kind::Decommission)
      for (NodeId n : st.nodes) {
        for (const TabletMap& m : res.maps)
          for (const TabletReplica& r : m.all())
            if (r.host == n) throw std::runtime_error("balance: " + step.what + " could not empty " + topo.nodes[n].id);
        res.nodes[n] = {0, false, res.nodes[n].capacity};
      }
    finish(std::move(step));
  }
  return res;
}

}  // namespace lbsim
