// The small two-datacenter topology of the analytic routing tests (load_model_test.cpp,
// driver_routing_test.cpp): dc1 a0..a5 on racks r0, r1, r2; dc2 b0..b3 on racks r0, r1; 8 random
// tokens per node from a fixed seed.
#pragma once
#include <vector>

#include <fmt/format.h>

#include "sim/cluster/topology.hpp"
#include "sim/config/cluster_config.hpp"
#include "sim/core/rng.hpp"

namespace lbsim::testing {

inline Topology two_dcs_topology() {
  std::vector<NodeSpec> nodes;
  for (int i = 0; i < 6; ++i) nodes.push_back({fmt::format("a{}", i), "dc1", fmt::format("r{}", i % 3), {}});
  for (int i = 0; i < 4; ++i) nodes.push_back({fmt::format("b{}", i), "dc2", fmt::format("r{}", i % 2), {}});
  const auto toks = random_tokens(nodes.size(), 8, Rng(11).fork("tokens"));
  for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i].tokens = toks[i];
  return Topology::build(nodes);
}

}  // namespace lbsim::testing
