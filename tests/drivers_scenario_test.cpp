// configs/drivers.json (issue 12): the drivers' default policies on one cluster with a slow node
// and a down node. The in-flight-aware defaults (Java 4.x, Node.js) steer around the slow node;
// the shuffling token-aware defaults (Java 3.x, Python, Rust, Go) keep sending it a third of its
// replicas' requests, which queue past the client timeout.
#include <gtest/gtest.h>

#include "sim/config/scenario.hpp"
#include "sim_test_util.hpp"
#include "test_scale.hpp"

namespace lbsim::drivers_scenario_test {

TEST(DriversScenario, OnlyTheInFlightAwareDefaultsAvoidTheSlowNode) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/drivers.json");
  ASSERT_EQ(sc.policies.size(), 6u);
  for (const char* fast : {"java4", "nodejs"}) {
    const RunResult r = testing::run_first(sc, fast);
    EXPECT_LT(to_ms(r.latency.percentile(99)), 10.0) << fast;
    EXPECT_EQ(r.measured_errors(), 0u) << fast;
  }
  for (const char* slow : {"java3", "rust"}) {
    const RunResult r = testing::run_first(sc, slow);
    EXPECT_GT(to_ms(r.latency.percentile(99)), 500.0) << slow;  // requests stuck behind n2 time out (2 s) and retry
  }
}

}  // namespace lbsim::drivers_scenario_test
