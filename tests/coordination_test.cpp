// cl_available and read_targets (sim/cluster/coordination.hpp): their shortcuts (a count that stops
// once it is enough; the coordinator alone when it is a live replica and one target is needed)
// against the plain definitions, on random topologies, replica lists, liveness and needs.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "sim/cluster/coordination.hpp"
#include "sim/core/rng.hpp"

namespace lbsim::coordination_test {
namespace {

// The definitions: live replicas counted per DC, then compared with the need.
bool available_ref(const ClNeed& need, const Topology& topo, std::uint32_t coordinator_dc,
                   const std::vector<NodeId>& replicas, const std::vector<bool>& up) {
  std::array<std::uint32_t, kMaxDcs> live_dc{};
  std::uint32_t live = 0;
  for (NodeId r : replicas) {
    if (!up[r]) continue;
    ++live;
    if (topo.node_dc[r] < kMaxDcs) ++live_dc[topo.node_dc[r]];
  }
  if (need.each) {
    for (std::size_t d = 0; d < topo.dcs.size(); ++d)
      if (live_dc[d] < need.per_dc[d]) return false;
    return true;
  }
  if (need.local_only) return coordinator_dc < kMaxDcs && live_dc[coordinator_dc] >= need.total;
  return live >= need.total;
}

// Closest first by tiers (the coordinator, its rack, its DC, the rest), replica order within one.
std::vector<NodeId> targets_ref(const ClNeed& need, const Topology& topo, NodeId coordinator,
                                const std::vector<NodeId>& replicas, const std::vector<bool>& up) {
  std::vector<NodeId> out;
  std::array<std::uint32_t, kMaxDcs> taken{};
  const std::uint32_t dc = topo.node_dc[coordinator], rack = topo.node_rack[coordinator];
  for (int tier = 0; tier < 4; ++tier) {
    for (NodeId r : replicas) {
      if (!up[r]) continue;
      const std::uint32_t d = topo.node_dc[r];
      const int t = r == coordinator ? 0 : topo.node_rack[r] == rack ? 1 : d == dc ? 2 : 3;
      if (t != tier) continue;
      const bool wanted = need.each         ? taken[d] < need.per_dc[d]
                          : need.local_only ? d == dc && out.size() < need.total
                                            : out.size() < need.total;
      if (!wanted) continue;
      ++taken[d];
      out.push_back(r);
    }
  }
  return out;
}

TEST(Coordination, ShortcutsAgreeWithTheDefinitions) {
  Topology topo;
  topo.dcs = {"dc1", "dc2", "dc3"};
  for (std::uint32_t i = 0; i < 12; ++i) {  // node i: DC i % 3, rack i % 6 (two racks per DC)
    topo.node_dc.push_back(i % 3);
    topo.node_rack.push_back(i % 6);
  }
  Rng rng(2026);
  int coordinator_alone = 0, stopped_early = 0, trials = 0;
  for (; trials < 200000; ++trials) {
    std::vector<NodeId> replicas;
    const std::uint64_t count = 1 + rng.below(6);
    while (replicas.size() < count) {
      const auto r = static_cast<NodeId>(rng.below(12));
      if (std::find(replicas.begin(), replicas.end(), r) == replicas.end()) replicas.push_back(r);
    }
    std::vector<bool> up(12);
    for (std::size_t i = 0; i < up.size(); ++i) up[i] = rng.below(5) != 0;
    const auto coordinator = static_cast<NodeId>(rng.below(12));
    ClNeed need;
    need.total = static_cast<std::uint32_t>(rng.below(5));
    need.local_only = rng.below(2) == 0;
    need.each = rng.below(6) == 0;
    for (std::size_t d = 0; d < 3; ++d) need.per_dc[d] = static_cast<std::uint8_t>(rng.below(3));
    auto is_up = [&](NodeId n) { return up[n]; };

    const std::uint32_t cdc = topo.node_dc[coordinator];
    ASSERT_EQ(cl_available(need, topo, cdc, replicas, is_up), available_ref(need, topo, cdc, replicas, up))
        << "trial " << trials;
    std::array<NodeId, 64> buf{};
    const std::size_t n = read_targets(need, topo, coordinator, replicas, is_up, std::span<NodeId>(buf));
    ASSERT_EQ(std::vector<NodeId>(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n)),
              targets_ref(need, topo, coordinator, replicas, up))
        << "trial " << trials;
    const bool coordinator_replica = std::find(replicas.begin(), replicas.end(), coordinator) != replicas.end();
    coordinator_alone += !need.each && need.total == 1 && up[coordinator] && coordinator_replica;
    stopped_early += !need.each && need.total >= 1 && n == need.total;
  }
  // Both shortcuts ran often, and so did the general paths.
  EXPECT_GT(coordinator_alone, 5000);
  EXPECT_GT(stopped_early, 50000);
  EXPECT_LT(coordinator_alone + stopped_early, 2 * trials);
}

}  // namespace
}  // namespace lbsim::coordination_test
