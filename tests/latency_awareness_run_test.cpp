// What the drivers' latency awareness measures in a run: the engine reports a driver-side timeout
// to the policy as ResponseKind::ClientTimeout (policies/policy.hpp), which the Rust driver does
// not measure (its request future is dropped on request_timeout: policies/rust/default.cpp) and
// the Java 3.x LatencyAwarePolicy does (OperationTimedOutException is not in EXCLUDED_EXCEPTIONS:
// policies/java3/latency_aware.cpp).
#include <gtest/gtest.h>

#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::run_first;

// 3 nodes, RF 3, an open loop of 2,000 op/s, LOCAL_ONE reads; n1 dies silently at 5 s and the
// driver learns it at 35 s (faults.driver_detection_ms); each attempt sent to n1 meanwhile times out
// after 1 s on the client.
jsonin::Json doc(const std::string& with, const std::string& without) {
  auto d = jsonin::Json::parse(R"({
    "name": "la-timeouts", "seed": 9,
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": 3}], "num_tokens": 16,
                "service": {"coordinator": {"dist": "exponential", "mean_us": 20},
                            "read": {"dist": "exponential", "mean_us": 100},
                            "write": {"dist": "exponential", "mean_us": 50}}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}},
    "client": {"dc": "dc1", "rate_ops_s": 2000},
    "workload": {"duration_s": 30, "mix": {"read": 1}, "keys": {"count": 100000}},
    "timeouts": {"client_ms": 1000},
    "faults": {"driver_detection_ms": 30000, "events": [{"at_s": 5, "node": "n1", "kind": "down"}]},
    "policies": []
  })");
  d["policies"].push_back({{"name", "with"}, {"policy", jsonin::Json::parse(with)}});
  d["policies"].push_back({{"name", "without"}, {"policy", jsonin::Json::parse(without)}});
  return d;
}

// Attempts that timed out: each is retried on the next host (lbsim's default retry), and succeeds.
std::uint64_t timeouts(const RunResult& r) { return r.client.retries + r.measured_errors(); }

TEST(LatencyAwarenessRun, RustIgnoresDriverTimeoutsSoASilentlyDeadNodeKeepsItsShare) {
  const Scenario sc = build(doc(R"({"type": "RustDefault", "latency_awareness": true})", R"({"type": "RustDefault"})"));
  const RunResult with = run_first(sc, "with"), without = run_first(sc, "without");
  // A third of the 2,000 op/s x 25 s after the death go to n1 and time out (16,605), with latency
  // awareness or without: it never sees a sample from n1 after 5 s, so never penalises it. (When
  // the engine reported these as server timeouts, the latency-aware run timed out 2,000.)
  EXPECT_GT(timeouts(without), 14000u);
  EXPECT_LT(timeouts(without), 19000u);
  EXPECT_EQ(timeouts(with), timeouts(without));
}

TEST(LatencyAwarenessRun, Java3CountsDriverTimeoutsAndMovesTheDeadNodeLast) {
  const Scenario sc = build(doc(
      R"({"type": "TokenAware", "ordering": "NEUTRAL", "child": {"type": "LatencyAware", "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}})",
      R"({"type": "TokenAware", "ordering": "NEUTRAL", "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}})"));
  const RunResult with = run_first(sc, "with"), without = run_first(sc, "without");
  EXPECT_GT(timeouts(without), 14000u);
  // The 1 s timeouts raise n1's average past 2x the others' within a few seconds (scale 100 ms);
  // it then gets requests only when its last sample is 10 s old (retry_period): 1,982 of 16,626.
  EXPECT_LT(timeouts(with) * 4, timeouts(without));
}

}  // namespace
}  // namespace lbsim
