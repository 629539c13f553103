// Policy benchmarks (issue 3): first-host decisions per second on a 1-DC, RF=3 cluster with 256
// vnodes per node, 6 nodes (the argument) or 3,000 (issue 14: NEUTRAL, Default4x and LatencyAware
// must stay within 1.3x of RANDOM there, i.e. O(RF) per plan), for TokenAware(RANDOM,
// DCAwareRoundRobin) and the others, plus the full plan of TokenAware(RANDOM). Each iteration is one request: arena reset, new_plan, next().
// The key tokens are precomputed (the ring lookup is benchmarked in bench_ring.cpp). The
// "arena_chunks" counter is the arena's chunk count at the end: 1 means no allocation per plan.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "policies/registry.hpp"
#include "sim/cluster/ring.hpp"
#include "sim/cluster/routing_key.hpp"
#include "sim/config/cluster_config.hpp"

namespace lbsim::policy {
namespace {

struct Setup {
  TokenRing ring;
  ClusterView view;
  std::unique_ptr<Policy> policy;
  std::vector<Request> requests;

  Setup(const char* spec, std::size_t nodes)
      : ring(make_topology(nodes), Replication{StrategyKind::Simple, 3, {}, {}}), view(ring.topology()) {
    policy = make_policy(nlohmann::json::parse(spec), "", BuildContext{&ring.topology(), &ring.replication()});
    Rng init(1);
    policy->init(view, init);
    Rng keys(2);
    for (int i = 0; i < 4096; ++i) {
      Request r;
      r.routed = true;
      r.token = token_of_key_id(static_cast<std::int64_t>(keys.below(1125000)));
      r.replicas = ring.replicas(r.token, ReplicaOrder::Driver);
      requests.push_back(r);
    }
    for (HostId h = 0; h < view.size(); ++h) view.set_in_flight(h, static_cast<std::int32_t>(h * 3));
  }
  static Topology make_topology(std::size_t nodes) {
    const auto toks = random_tokens(nodes, 256, Rng(1).fork("tokens"));
    std::vector<NodeSpec> specs;
    for (std::size_t i = 0; i < nodes; ++i) specs.push_back({"n" + std::to_string(i + 1), "dc1", "r" + std::to_string(i % 3), toks[i]});
    return Topology::build(std::move(specs));
  }
};

void run_first_host(benchmark::State& state, const char* spec) {
  Setup s(spec, static_cast<std::size_t>(state.range(0)));
  Rng rng(3);
  PlanRandom rnd(rng);
  PlanArena arena;
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    arena.reset();
    Request& r = s.requests[i++ & 4095];
    r.now += 1000;
    sum += s.policy->new_plan(r, rnd, arena)->next();
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
  state.counters["decisions_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["arena_chunks"] = static_cast<double>(arena.chunk_count());
  state.counters["draws_per_plan"] =
      static_cast<double>(rnd.shared_draws + rnd.thread_local_draws) / static_cast<double>(state.iterations());
}

void BM_FirstHost_TokenAwareRandom_DcAware(benchmark::State& state) {
  run_first_host(state, R"({"type":"TokenAware","ordering":"RANDOM","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})");
}
void BM_FirstHost_TokenAwareTopological_DcAware(benchmark::State& state) {
  run_first_host(state, R"({"type":"TokenAware","ordering":"TOPOLOGICAL","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})");
}
void BM_FirstHost_TokenAwareNeutral_DcAware(benchmark::State& state) {
  run_first_host(state, R"({"type":"TokenAware","ordering":"NEUTRAL","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})");
}
void BM_FirstHost_Default4x(benchmark::State& state) { run_first_host(state, R"({"type":"Default4x","local_dc":"dc1"})"); }
void BM_FirstHost_LatencyAware_TokenAwareRandom(benchmark::State& state) {
  run_first_host(state, R"({"type":"LatencyAware","child":{"type":"TokenAware","ordering":"RANDOM",)"
                        R"("child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}}})");
}
void BM_FirstHost_TokenAwareRandom_LatencyAware(benchmark::State& state) {
  run_first_host(state, R"({"type":"TokenAware","ordering":"RANDOM","child":{"type":"LatencyAware",)"
                        R"("child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}}})");
}
// configs/slow-node.json's LatencyAware: under NEUTRAL, which jumps through its rotation (no
// host has latency samples here, so none is excluded).
void BM_FirstHost_TokenAwareNeutral_LatencyAware(benchmark::State& state) {
  run_first_host(state, R"({"type":"TokenAware","ordering":"NEUTRAL","child":{"type":"LatencyAware",)"
                        R"("child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}}})");
}

void BM_FullPlan_TokenAwareRandom_DcAware(benchmark::State& state) {
  Setup s(R"({"type":"TokenAware","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})", 6);
  Rng rng(3);
  PlanRandom rnd(rng);
  PlanArena arena;
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    arena.reset();
    Plan* p = s.policy->new_plan(s.requests[i++ & 4095], rnd, arena);
    for (HostId h = p->next(); h != kNoHost; h = p->next()) sum += h;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
  state.counters["arena_chunks"] = static_cast<double>(arena.chunk_count());
}

BENCHMARK(BM_FirstHost_TokenAwareRandom_DcAware)->Arg(6)->Arg(3000);
BENCHMARK(BM_FirstHost_TokenAwareTopological_DcAware)->Arg(6)->Arg(3000);
BENCHMARK(BM_FirstHost_TokenAwareNeutral_DcAware)->Arg(6)->Arg(3000);
BENCHMARK(BM_FirstHost_Default4x)->Arg(6)->Arg(3000);
BENCHMARK(BM_FirstHost_LatencyAware_TokenAwareRandom)->Arg(6)->Arg(3000);
BENCHMARK(BM_FirstHost_TokenAwareRandom_LatencyAware)->Arg(6)->Arg(3000);
BENCHMARK(BM_FirstHost_TokenAwareNeutral_LatencyAware)->Arg(6)->Arg(3000);
BENCHMARK(BM_FullPlan_TokenAwareRandom_DcAware);

}  // namespace
}  // namespace lbsim::policy
