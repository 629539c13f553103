// `lbsim ring`, `replicas` (load_ring_input) and `run`, `analyze` (load_scenario) must build the same
// ring from a scenario, including one without "seed" (issue 13 item 1: ring used seed 0, run 1).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/config/ring_input.hpp"
#include "sim/config/scenario.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;

void expect_same_ring(const std::string& file) {
  const Scenario sc = load_scenario(file);
  const RingInput in = load_ring_input(file);
  const TokenRing& a = *sc.ring;
  const TokenRing& b = *in.ring;
  ASSERT_EQ(a.size(), b.size()) << file;
  for (std::size_t r = 0; r < a.size(); ++r) {
    ASSERT_EQ(a.token_at(r), b.token_at(r)) << file << " range " << r;
    ASSERT_EQ(a.owner_at(r), b.owner_at(r)) << file << " range " << r;
  }
}

TEST(RingConsistency, EveryShippedScenarioGivesCommandsAndRunsTheSameRing) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(LBSIM_SOURCE_DIR) / "configs")) {
    if (e.path().extension() != ".json") continue;
    expect_same_ring(e.path().string());
    ++n;
  }
  EXPECT_GE(n, 12);
}

TEST(RingConsistency, AScenarioWithoutSeedUsesTheDefaultSeedEverywhere) {
  const fs::path f = fs::temp_directory_path() / ("lbsim-noseed-" + std::to_string(::getpid()) + ".json");
  std::ofstream(f) << R"({"name": "noseed",
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": 9}], "num_tokens": 16, "token_allocation": "random",
                "cross_shard": {"hop_ns": 3000}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}},
    "workload": {"ops": 10},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]})";
  expect_same_ring(f.string());
  fs::remove(f);
}

}  // namespace
}  // namespace lbsim
