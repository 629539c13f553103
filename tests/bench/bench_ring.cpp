// Ring benchmarks (issue 2): build + precompute of a 1,000-node x 256-token, 3-DC x 4-rack NTS
// {3,3,3} ring; token-to-replicas lookups; Murmur3 of 16-byte keys.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "sim/cluster/murmur3.hpp"
#include "sim/cluster/ring.hpp"
#include "sim/config/cluster_config.hpp"

namespace lbsim {
namespace {

Topology big_topology(std::size_t nodes, std::size_t tokens) {
  const auto toks = random_tokens(nodes, tokens, Rng(1).fork("tokens"));
  std::vector<NodeSpec> specs;
  for (std::size_t i = 0; i < nodes; ++i)
    specs.push_back({"n" + std::to_string(i), "dc" + std::to_string(i % 3), "r" + std::to_string((i / 3) % 4), toks[i]});
  return Topology::build(std::move(specs));
}

const Replication kNts333{StrategyKind::NetworkTopology, 1, {{"dc0", 3}, {"dc1", 3}, {"dc2", 3}}, {}};

void BM_RingBuild1000x256Nts333(benchmark::State& state) {
  const Topology topo = big_topology(1000, 256);
  std::size_t bytes = 0;
  for (auto _ : state) {
    TokenRing ring(topo, kNts333);
    bytes = ring.memory_bytes();
    benchmark::DoNotOptimize(ring.replicas_per_range());
  }
  state.counters["ring_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_RingBuild1000x256Nts333)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_TokenToReplicas(benchmark::State& state) {
  const TokenRing ring(big_topology(static_cast<std::size_t>(state.range(0)), 256), kNts333);
  std::vector<Token> probes(1 << 16);
  Rng rng(7);
  for (auto& t : probes) t = static_cast<Token>(rng.next_u64());
  std::size_t i = 0;
  for (auto _ : state) {
    auto r = ring.replicas(probes[i++ & 0xffff], ReplicaOrder::Driver);
    benchmark::DoNotOptimize(r.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TokenToReplicas)->Arg(6)->Arg(1000);

void BM_Murmur3Of16ByteKeys(benchmark::State& state) {
  std::vector<std::uint8_t> keys(16 * 1024);
  Rng rng(3);
  for (auto& b : keys) b = static_cast<std::uint8_t>(rng.next_u64());
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(murmur3_token({keys.data() + 16 * (i++ & 1023), 16}));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Murmur3Of16ByteKeys);

}  // namespace
}  // namespace lbsim
