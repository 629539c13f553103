// The drivers' speculative executions (sim/mech/driver_spec) in whole runs: the Java driver 3.x
// PercentileSpeculativeExecutionPolicy (speculative.kind = "percentile"; the tracker's own rules
// are tested in tests/percentile_tracker_test.cpp, sim/client/percentile_tracker.hpp cites
// datastax/java-driver 3.x PercentileTracker.java, PerHostPercentileTracker.java,
// ClusterWidePercentileTracker.java and PercentileSpeculativeExecutionPolicy.java) and
// speculative.host (gocql before apache/cassandra-gocql-driver#1531). Issue 36, mechanisms 1 and
// 2. Small scenarios built in memory, fixed seeds; each tolerance is stated next to its assertion.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "sim_test_util.hpp"

namespace lbsim::driver_spec_scenarios_test {
namespace {

using testing::build;
using testing::run_first;

// Three nodes a, b, c in one rack, RF 3, CL ONE, RoundRobin, no network or client cost; replica
// reads exponential, a and c 5 ms mean, b 20 ms. A speculative execution goes to the plan's next
// host: from a to b, from b to c, from c to a; so a node's extra coordinator requests count the
// speculations of the node before it. 6 reads/s (b busy 4 % of the time, so latencies are the
// service times); the tracker's interval is 100 s, so each host records about 200 values per
// interval; the window starts after 500 s (5 intervals) to leave out the first interval, which has
// no statistics, and the convergence from it.
jsonin::Json slow_b(const std::string& tracker, double pct, std::uint32_t min_recorded) {
  auto doc = jsonin::Json::parse(R"({
    "name": "pct", "seed": 3,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 4, "shards": 1,
                "service": {"coordinator": 0, "read": {"dist": "exponential", "mean_us": 1000}, "write": 1000},
                "speed": {"a": 0.2, "b": 0.05, "c": 0.2}},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "network": {"same_rack": 0, "same_dc": 0, "cross_dc": 0},
    "client": {"dc": "dc1", "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0, "rate_ops_s": 6,
               "thread_local_draw_ns": 0, "shared_draw_ns": 0, "line_transfer_ns": 0, "max_in_flight": 1000000},
    "workload": {"ops": 6000, "warmup_ops": 3000, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  doc["speculative"] = {{"kind", "percentile"}, {"percentile", pct}, {"tracker", tracker},
                        {"min_recorded", min_recorded}, {"interval_ms", 100000}, {"max_speculative", 1}};
  return doc;
}

// The share of a host's executions that speculate, at the steady state of the driver's rules, for
// exponential latencies (a and c 5 ms, b 20 ms). An execution that outlasts the delay d races the
// speculative one on the next host; it is recorded only if it wins (the loser is cancelled and
// PercentileTracker.include drops CancelledSpeculativeExecutionException), which it does with
// probability w = r / (r + r_next) for rates r = 1 / mean. So of a host's executions a fraction
// F(d) = e^(-d / mean) speculate, and the recorded ones above d are w F of them, below d 1 - F.
// The delay is the p-th percentile of what was recorded: w F = (1 - p) (1 - (1 - w) F) per host,
// and summed over the hosts cluster-wide. (Speculative executions that win are recorded on their
// own host too; this model leaves them out, and the percentile truncated to whole ms makes the
// delay up to 1 ms shorter: the tolerances below.)
struct Steady {
  double a, b, c;  // the share of each host's executions that speculate
};
Steady steady_state(bool per_host, double p) {
  const double q = 1 - p / 100;
  const double mean[3] = {5, 20, 5};
  const double w[3] = {0.2 / (0.2 + 0.05), 0.05 / (0.05 + 0.2), 0.2 / (0.2 + 0.2)};  // a vs b, b vs c, c vs a
  double f[3];
  if (per_host) {
    for (int i = 0; i < 3; ++i) f[i] = q / (w[i] + q * (1 - w[i]));
  } else {
    double lo = 0, hi = 500;  // bisection on the shared delay d (ms)
    for (int it = 0; it < 100; ++it) {
      const double d = (lo + hi) / 2;
      double above = 0, all = 0;
      for (int i = 0; i < 3; ++i) {
        const double fi = std::exp(-d / mean[i]);
        above += w[i] * fi;
        all += 1 - (1 - w[i]) * fi;
      }
      (above > q * all ? lo : hi) = d;
    }
    for (int i = 0; i < 3; ++i) f[i] = std::exp(-(lo + hi) / 2 / mean[i]);
  }
  return {f[0], f[1], f[2]};
}

// Per host each node is compared to itself; cluster-wide the slow node b fills the high
// percentiles, so it speculates far more and a and c less ("latencies of slower hosts will tend to
// appear in higher percentiles", ClusterWidePercentileTracker's Javadoc). Both are above the
// nominal 1 - p = 10 % for the hosts whose tail is cut off by the speculation they trigger.
TEST(PercentileSpeculation, PerHostAgainstClusterWide) {
  for (const bool per_host : {true, false}) {
    const RunResult r = run_first(build(slow_b(per_host ? "per_host" : "cluster_wide", 90, 50)));
    const double base = 6000.0 / 3;  // each node coordinates a third of the window's first executions
    auto extra = [&](std::size_t n) { return (static_cast<double>(r.nodes[n].coordinator_ops) - base) / base; };
    const Steady m = steady_state(per_host, 90);
    ASSERT_TRUE(r.client.speculative_no_delay.has_value());
    std::printf("%s: speculative %llu, share from a %.3f (model %.3f), from b %.3f (%.3f), from c %.3f (%.3f)\n",
                per_host ? "per host" : "cluster-wide", static_cast<unsigned long long>(r.client.speculative), extra(1),
                m.a, extra(2), m.b, extra(0), m.c);
    // Counted over the whole run: only the first interval (100 s x 6 op/s) has no statistics. The
    // arrivals are Poisson: sd 24.5 at 600, 75 is 3 of them.
    EXPECT_NEAR(static_cast<double>(*r.client.speculative_no_delay), 600, 75);
    // Measured 2 to 3 points above the model (the whole-ms delay is shorter); the binomial spread of
    // a share near 0.4 over 2,000 operations is 1.1 points: 0.05 covers both.
    EXPECT_NEAR(extra(2), m.b, 0.05);  // b's speculations land on c
    EXPECT_NEAR(extra(1), m.a, 0.05);  // a's on b
    EXPECT_NEAR(extra(0), m.c, 0.05);  // c's on a
  }
  // The two trackers differ where the model says: b speculates 0.36 per host, 0.57 cluster-wide.
  EXPECT_GT(steady_state(false, 90).b - steady_state(true, 90).b, 0.15);
}

// No speculation before the tracker has min_recorded values in an interval, nor during the first
// interval (the default 5 minutes outlasts this 1,000 s run only with the interval set longer).
TEST(PercentileSpeculation, NothingBeforeTheMinimumOrTheFirstInterval) {
  auto doc = slow_b("per_host", 90, 1000000);
  RunResult r = run_first(build(doc));
  EXPECT_EQ(r.client.speculative, 0u);
  EXPECT_EQ(*r.client.speculative_no_delay, 9000u);  // every execution of the run asked, none got a delay
  doc["speculative"]["min_recorded"] = 1;
  doc["speculative"]["interval_ms"] = 2e6;  // longer than the run (1,500 s)
  r = run_first(build(doc));
  EXPECT_EQ(r.client.speculative, 0u);
  doc["speculative"].erase("interval_ms");  // the driver's 5 minutes, from the first answer
  doc["workload"]["warmup_ops"] = 0;
  r = run_first(build(doc));
  EXPECT_GT(r.client.speculative, 200u);
  // 300 s x 6 op/s of Poisson arrivals: sd 42, 130 is 3 of them.
  EXPECT_NEAR(static_cast<double>(*r.client.speculative_no_delay), 1800, 130);
}

// The constant policy's reports carry no percentile field (byte-identical reports elsewhere).
TEST(PercentileSpeculation, ConstantPolicyReportsUnchanged) {
  auto doc = slow_b("per_host", 90, 50);
  doc["speculative"] = {{"delay_ms", 30}};
  const RunResult r = run_first(build(doc));
  EXPECT_FALSE(r.client.speculative_no_delay.has_value());
  EXPECT_GT(r.client.speculative, 0u);
  doc["speculative"] = {{"kind", "percentile"}, {"delay_ms", 30}};
  EXPECT_THROW(build(doc), ConfigError);
  doc["speculative"] = {{"percentile", 99}};
  EXPECT_THROW(build(doc), ConfigError);
}

// Three nodes a, b, c in one rack, RF 3, reads at CL ONE only, coordinator cost 0, no network
// latency, no client cost; replica reads take a constant 1 ms, node b's 20 ms (speed 0.05). An
// open loop of `rate` reads/s (the test sets the policies). The scenario of the coordinators'
// speculative retry (sim/mech/spec_retry/spec_retry_scenarios_test.cpp), without it.
jsonin::Json slow_constant_b(double rate, std::uint64_t ops) {
  auto doc = jsonin::Json::parse(R"({
    "name": "spec", "seed": 5,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 4, "shards": 1,
                "service": {"coordinator": 0, "read": 1000, "write": 1000},
                "speed": {"b": 0.05}},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "network": {"same_rack": 0, "same_dc": 0, "cross_dc": 0},
    "client": {"dc": "dc1", "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0,
               "thread_local_draw_ns": 0, "shared_draw_ns": 0, "line_transfer_ns": 0, "max_in_flight": 1000000},
    "workload": {"ops": 3000, "warmup_ops": 0, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  doc["client"]["rate_ops_s"] = rate;
  doc["workload"]["ops"] = ops;
  return doc;
}

// The drivers' speculative executions: a token-aware plan without shuffling puts the same replica
// first in every plan. Through the shared plan (Java, gocql after #1531) the speculative execution
// goes to the next host; with gocql before the fix (speculative.host = new_plan) it starts a plan of
// its own and lands on the same host every time. With shuffle_replicas (RF 3) a third of the time.
TEST(DriverSpeculation, GocqlBeforeTheFixHitsTheSameHost) {
  auto doc = slow_constant_b(60, 1500);
  doc["speculative"] = {{"enabled", true}, {"delay_ms", 5}, {"max_speculative", 1}};
  auto policy = [](bool shuffle) {
    return jsonin::Json::parse(std::string(R"([{"name": "go", "policy": {"type": "GoTokenAware", "shuffle_replicas": )") +
                               (shuffle ? "true" : "false") + R"(, "child": {"type": "GoRoundRobin"}}}])");
  };
  struct Case {
    const char* host;
    bool shuffle;
    double same;  // expected share of speculative executions on the first execution's host
    double tol;
  };
  for (const Case k : {Case{"plan", false, 0.0, 0.0}, Case{"new_plan", false, 1.0, 0.0}, Case{"new_plan", true, 1.0 / 3, 0.06}}) {
    doc["policies"] = policy(k.shuffle);
    doc["speculative"]["host"] = k.host;
    const RunResult r = run_first(build(doc));
    ASSERT_TRUE(r.client.speculative_same_host.has_value());
    const double share = static_cast<double>(*r.client.speculative_same_host) / static_cast<double>(r.client.speculative);
    std::printf("host %s, shuffle %d: %llu speculative executions, same host %.3f\n", k.host, k.shuffle,
                static_cast<unsigned long long>(r.client.speculative), share);
    // Only the operations whose first replica is b (20 ms) outlast the 5 ms delay: about a third.
    EXPECT_GT(r.client.speculative, 300u);
    // Binomial sd at about 500 speculative executions with p = 1/3: 0.021; 0.06 is nearly three.
    EXPECT_NEAR(share, k.same, k.tol) << k.host;
  }
}

}  // namespace
}  // namespace lbsim::driver_spec_scenarios_test
