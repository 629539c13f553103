// The Java driver 3.x PercentileSpeculativeExecutionPolicy (speculative.kind = "percentile"): the
// tracker's rules (sim/client/percentile_tracker.hpp cites datastax/java-driver 3.x
// PercentileTracker.java, PerHostPercentileTracker.java, ClusterWidePercentileTracker.java and
// PercentileSpeculativeExecutionPolicy.java) and the engine's use of them. Issue 36, mechanism 2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "sim/client/percentile_tracker.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::run_first;

// HdrHistogram with 3 significant digits: exact below 2048, then buckets of 2, 4, 8 ...
TEST(PercentileTracker, HdrHistogramBuckets) {
  EXPECT_EQ(PercentileTracker::index_of(2047), 2047u);
  EXPECT_EQ(PercentileTracker::highest_of(PercentileTracker::index_of(2047)), 2047);
  EXPECT_EQ(PercentileTracker::highest_of(PercentileTracker::index_of(2048)), 2049);  // [2048, 2049]
  EXPECT_EQ(PercentileTracker::highest_of(PercentileTracker::index_of(4097)), 4099);  // [4096, 4099]
  EXPECT_EQ(PercentileTracker::highest_of(PercentileTracker::index_of(5000)), 5003);  // [5000, 5003]
  EXPECT_EQ(PercentileTracker::highest_of(PercentileTracker::index_of(12000)), 12007);  // [12000, 12007]
  for (std::int64_t v = 0; v < 20000; v += 7) {
    const std::int64_t hi = PercentileTracker::highest_of(PercentileTracker::index_of(v));
    EXPECT_GE(hi, v);
    EXPECT_LE(static_cast<double>(hi - v), std::max(0.0, static_cast<double>(v) / 1000.0)) << v;  // 3 digits
  }
}

// Statistics only after the first interval, only with min_recorded values, then the percentile
// of the last interval, in whole milliseconds (a 0.9 ms answer records 0).
TEST(PercentileTracker, IntervalsMinimumAndPercentile) {
  PercentileTracker t(2, 99.0, 1000, 1 * kSec, 15000);
  EXPECT_EQ(t.delay_ms(0, 0), -1);  // nothing recorded: no cache entry
  SimTime now = 10 * kMs;
  for (int v = 1; v <= 1000; ++v) t.record(0, now, v * kMs + 999 * kUs);  // 1.999 .. 1000.999 ms record 1 .. 1000
  EXPECT_EQ(t.delay_ms(0, now + 999 * kMs), -1);  // the first interval: no cached histogram yet
  EXPECT_EQ(t.delay_ms(0, now + 1 * kSec), 990);  // ceil(0.99 x 1000) = 990th value
  for (int v = 0; v < 5000; ++v) t.record(0, now + 1 * kSec, 1 * kMs);
  EXPECT_EQ(t.delay_ms(0, now + 1500 * kMs), 990);  // the cache holds until it is an interval old
  EXPECT_EQ(t.delay_ms(0, now + 2 * kSec), 1);      // then the new interval's values only
  EXPECT_EQ(t.delay_ms(1, now + 2 * kSec), -1);     // the other key recorded nothing
  // Fewer than min_recorded in the last interval: no delay.
  for (int v = 0; v < 999; ++v) t.record(1, now, 7 * kMs);
  EXPECT_EQ(t.delay_ms(1, now + 2 * kSec), -1);
  // Sub-millisecond answers record 0: the delay is 0 and the next execution starts at once.
  for (int v = 0; v < 1000; ++v) t.record(1, now + 2 * kSec, 900 * kUs);
  EXPECT_EQ(t.delay_ms(1, now + 4 * kSec), 0);
  // Above highest_trackable_ms: dropped (the recorder's ArrayIndexOutOfBoundsException).
  PercentileTracker h(1, 50.0, 1, 1 * kSec, 100);
  h.record(0, 0, 101 * kMs);
  h.record(0, 0, 50 * kMs);
  EXPECT_EQ(h.delay_ms(0, 1 * kSec), 50);
}

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

}  // namespace
}  // namespace lbsim
