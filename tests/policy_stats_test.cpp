// Statistical behaviour of the TokenAware orderings, with fixed seeds and tolerances derived from
// the sample size; and LatencyAware's exclusion, on a small deterministic feed.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "policies/plan_util.hpp"
#include "policy_test_util.hpp"

namespace lbsim::policy {
namespace {

using namespace testing;

TEST(PolicyStats, RandomSpreadsFirstHostsEvenlyOverTheUpLocalReplicas) {
  Harness h(scassandra({6}), simple(3), R"({"type":"TokenAware","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})", 9);
  const Request req = h.routed(4874351301193663061);
  for (int down = 0; down < 2; ++down) {
    if (down) h.down(req.replicas[1]);
    const double k = down ? 2.0 : 3.0;
    constexpr int kN = 60000;
    std::map<HostId, int> counts;
    const auto draws_before = h.rnd.shared_draws;
    for (int i = 0; i < kN; ++i) ++counts[h.first(req)];
    EXPECT_EQ(h.rnd.shared_draws - draws_before, 2u * kN) << "RF-1 = 2 shared draws per plan";
    ASSERT_EQ(counts.size(), static_cast<std::size_t>(k));
    const double p = 1.0 / k, sigma = std::sqrt(kN * p * (1 - p));
    for (const auto& [host, c] : counts) {
      EXPECT_TRUE(contains(req.replicas, host));
      EXPECT_NEAR(c, kN * p, 5 * sigma) << h.name(host);  // 5 sigma: false alarm < 1e-6
    }
  }
}

TEST(PolicyStats, TopologicalAlwaysPicksTheFirstReplicaInDriverOrder) {
  Harness h(scassandra({6}), simple(3),
            R"({"type":"TokenAware","ordering":"TOPOLOGICAL","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})");
  Rng keys(4);
  for (int i = 0; i < 5000; ++i) {
    const Request req = h.routed(static_cast<Token>(keys.next_u64()));
    ASSERT_EQ(h.first(req), req.replicas[0]);
  }
  EXPECT_EQ(h.rnd.shared_draws + h.rnd.thread_local_draws, 0u);
}

// NEUTRAL over DCAware: the child's plan is the local live list rotated by one per plan, so the
// first host is replica k for as many start positions as the gap between replica k and the
// replica before it in the child's order.
TEST(PolicyStats, NeutralPicksEachReplicaInProportionToItsGapInTheChildRotation) {
  const int n = 6;
  Harness h(scassandra({n}), simple(3),
            R"({"type":"TokenAware","ordering":"NEUTRAL","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})");
  // Replicas chosen with uneven gaps in the child's host order 0..5: positions 0, 1, 4.
  const Request req = h.with_replicas({0, 1, 4});
  std::map<HostId, int> expected;
  for (HostId r : {0u, 1u, 4u}) {
    int gap = 1;
    for (int back = 1; back < n; ++back) {
      const auto prev = static_cast<HostId>((static_cast<int>(r) - back + n) % n);
      if (prev == 0 || prev == 1 || prev == 4) break;
      ++gap;
    }
    expected[r] = gap;
  }
  EXPECT_EQ(expected, (std::map<HostId, int>{{0, 2}, {1, 1}, {4, 3}}));
  constexpr int kRounds = 1000;
  std::map<HostId, int> counts;
  for (int i = 0; i < n * kRounds; ++i) ++counts[h.first(req)];
  for (auto& [r, gap] : expected) gap *= kRounds;  // every start position occurs kRounds times
  EXPECT_EQ(counts, expected);
}

TEST(PolicyStats, LatencyAwareMovesASlowHostToTheEndAfterWarmUp) {
  // min_measure 10: samples 1-2 are discarded (30% of 10 = 3), the host is judged from sample 10.
  Harness h(scassandra({3}), simple(1),
            R"({"type":"LatencyAware","min_measure":10,"update_rate_ms":100,"child":{"type":"RoundRobin"}})");
  const Request req = h.unrouted();
  SimTime now = 0;
  auto feed = [&](int samples) {
    for (int i = 0; i < samples; ++i) {
      now += kMs;
      for (HostId x = 0; x < 3; ++x) h.policy().on_response(x, now, (x == 2 ? 30 : 3) * kMs, ResponseKind::Success);
    }
  };
  feed(9);
  now = 200 * kMs;
  std::map<std::string, int> firsts;
  for (int i = 0; i < 30; ++i) ++firsts[h.name(h.plan(h.routed(0, ConsistencyLevel::One, now)).front())];
  EXPECT_EQ(firsts.size(), 3u) << "fewer than min_measure samples: nobody is excluded";
  feed(1);
  now = 300 * kMs;  // an update tick has passed since the 10th sample
  for (int i = 0; i < 30; ++i) {
    Request r = req;
    r.now = now;
    const auto plan = h.plan(r);
    ASSERT_EQ(plan.size(), 3u);
    EXPECT_EQ(plan.back(), 2u) << "the slow host is moved to the end, never dropped";
  }
  now += 11 * kSec;  // past retry_period without samples: the host is retried
  Request r = req;
  r.now = now;
  int slow_first = 0;
  for (int i = 0; i < 30; ++i) slow_first += h.plan(r).front() == 2u;
  EXPECT_EQ(slow_first, 10);
}

// Which answers feed the average: datastax/java-driver 3.x LatencyAwarePolicy.EXCLUDED_EXCEPTIONS
// (Unavailable, Overloaded, Bootstrapping, Unprepared, QueryValidation: "fast" errors that "tend
// to make the host's score look better than it actually is"; read at scylladb/java-driver
// 115a4451); every other error counts, timeouts included. Netflix/astyanax#17 is what counting
// fast errors does: the failing host's score falls and it gets more traffic.
TEST(PolicyStats, LatencyAwareIgnoresTheFastErrorsItExcludes) {
  for (const ResponseKind fast : {ResponseKind::Unavailable, ResponseKind::Overloaded, ResponseKind::OtherError}) {
    Harness h(scassandra({3}), simple(1),
              R"({"type":"LatencyAware","min_measure":10,"update_rate_ms":100,"child":{"type":"RoundRobin"}})");
    SimTime now = 0;
    for (int i = 0; i < 20; ++i) {
      now += kMs;
      for (HostId x = 0; x < 3; ++x) h.policy().on_response(x, now, (x == 2 ? 30 : 3) * kMs, ResponseKind::Success);
    }
    // Host 2 now fails fast (0.1 ms) for 1 s while the others keep answering in 3 ms (1 ms
    // apart, each sample keeps w = ln(1.01)/0.01 = 0.995 of the average: 0.995^1000 < 0.01).
    for (int i = 0; i < 1000; ++i) {
      now += kMs;
      h.policy().on_response(2, now, 100 * kUs, fast);
      for (HostId x = 0; x < 2; ++x) h.policy().on_response(x, now, 3 * kMs, ResponseKind::Success);
    }
    Request r = h.unrouted();
    r.now = now + 100 * kMs;
    int slow_first = 0;
    for (int i = 0; i < 30; ++i) slow_first += h.plan(r).front() == 2u;
    // Excluded errors leave host 2 at 30 ms, last in every plan; counted ones bring its average
    // down to about 0.1 ms, the minimum, so the healthy hosts (3 ms > 2 x 0.1 ms) are the ones
    // moved to the end and the failing host is first in every plan.
    EXPECT_EQ(slow_first, fast == ResponseKind::OtherError ? 30 : 0) << static_cast<int>(fast);
  }
}

// min_updates false, the C++ driver before CPP-935 (apache/cassandra-cpp-driver#502): the update
// timer never started, so min_average_ stayed -1 and LatencyAwareQueryPlan::compute_next returned
// every host at once: the child's plan, whatever the latencies.
TEST(PolicyStats, LatencyAwareWithoutMinimumUpdatesIsItsChild) {
  for (const bool updates : {true, false}) {
    Harness h(scassandra({3}), simple(1),
              std::string(R"({"type":"LatencyAware","min_measure":10,"child":{"type":"RoundRobin"},"min_updates":)") +
                  (updates ? "true}" : "false}"));
    SimTime now = 0;
    for (int i = 0; i < 20; ++i) {
      now += kMs;
      for (HostId x = 0; x < 3; ++x) h.policy().on_response(x, now, (x == 2 ? 30 : 3) * kMs, ResponseKind::Success);
    }
    Request r = h.unrouted();
    r.now = now + 100 * kMs;
    int slow_first = 0, slow_last = 0;
    for (int i = 0; i < 30; ++i) {
      const auto plan = h.plan(r);
      slow_first += plan.front() == 2u;
      slow_last += plan.back() == 2u;
    }
    EXPECT_EQ(slow_first, updates ? 0 : 10) << updates;
    EXPECT_EQ(slow_last, updates ? 30 : 10) << updates;
  }
}

}  // namespace
}  // namespace lbsim::policy
