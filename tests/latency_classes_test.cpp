// LatencyClasses (sim/engine/latency_classes.hpp) against the plain definition that the engine's
// n x n table held before: every pair of nodes, and the client, on random topologies of up to 16
// DCs with random dc_pairs entries (repeated pairs, both directions, a DC paired with itself).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/engine/latency_classes.hpp"

namespace lbsim::latency_classes_test {
namespace {

// The definition: the same node 0, the same rack 1, else the first dc_pairs entry naming the two
// DCs (4 + its index), else 2 within a DC and 3 across.
std::uint8_t dc_ref(const NetworkSpec& net, std::uint32_t x, std::uint32_t y) {
  for (std::size_t k = 0; k < net.dc_pairs.size(); ++k) {
    const auto& p = net.dc_pairs[k];
    if ((p.from == x && p.to == y) || (p.from == y && p.to == x)) return static_cast<std::uint8_t>(4 + k);
  }
  return x == y ? 2 : 3;
}
std::uint8_t between_ref(const Topology& t, const NetworkSpec& net, NodeId a, NodeId b) {
  if (a == b) return 0;
  if (t.node_rack[a] == t.node_rack[b]) return 1;
  return dc_ref(net, t.node_dc[a], t.node_dc[b]);
}

Topology random_topology(Rng& rng, std::uint32_t dcs) {
  std::vector<NodeSpec> nodes;
  const auto n = static_cast<std::uint32_t>(1 + rng.below(60));
  for (std::uint32_t i = 0; i < n; ++i) {
    // DC names are drawn so that DCs appear out of order; racks repeat across DCs by name.
    const auto dc = static_cast<std::uint32_t>(rng.below(dcs));
    nodes.push_back({"n" + std::to_string(i), "dc" + std::to_string(dc), "r" + std::to_string(rng.below(3)),
                     {static_cast<Token>(i) * 1000 - 30000}});
  }
  return Topology::build(nodes);
}

TEST(LatencyClasses, EveryPairAndTheClientMatchThePlainDefinition) {
  Rng rng(2026);
  std::size_t pairs = 0, by_class[4 + 8] = {};
  for (int round = 0; round < 400; ++round) {
    const Topology t = random_topology(rng, static_cast<std::uint32_t>(1 + rng.below(16)));
    const auto d = static_cast<std::uint32_t>(t.dcs.size());
    NetworkSpec net;
    const auto np = rng.below(9);
    for (std::uint64_t k = 0; k < np; ++k)
      net.dc_pairs.push_back({static_cast<std::uint32_t>(rng.below(d)), static_cast<std::uint32_t>(rng.below(d)), {}});
    const LatencyClasses lc(t, net);
    for (NodeId a = 0; a < t.size(); ++a) {
      for (NodeId b = 0; b < t.size(); ++b) {
        const std::uint8_t want = between_ref(t, net, a, b);
        ASSERT_EQ(lc.between(a, b), want) << "round " << round << " nodes " << a << ", " << b;
        ++by_class[want];
        ++pairs;
      }
      for (std::uint32_t cdc = 0; cdc < d; ++cdc) {
        ASSERT_EQ(lc.client(-1, cdc, a), dc_ref(net, cdc, t.node_dc[a]));
        for (std::uint32_t rack = 0; rack < t.racks.size(); ++rack) {
          if (t.rack_dc[rack] != cdc) continue;
          const std::uint8_t want = rack == t.node_rack[a] ? 1 : dc_ref(net, cdc, t.node_dc[a]);
          ASSERT_EQ(lc.client(static_cast<std::int32_t>(rack), cdc, a), want);
        }
      }
    }
  }
  // Every kind of class was exercised.
  EXPECT_GT(pairs, 100000u);
  for (int c = 0; c < 6; ++c) EXPECT_GT(by_class[c], 100u) << "class " << c;
}

}  // namespace
}  // namespace lbsim::latency_classes_test
