// The engine against queueing theory. Fixed seeds; each tolerance is stated next to its assertion.
// The closed forms are textbook results: M/M/1 (mean sojourn 1/(mu - lambda), sojourn time
// exponential) and M/M/c with the Erlang C formula, e.g. L. Kleinrock, "Queueing Systems, Volume 1:
// Theory" (Wiley, 1975), chapter 3; Little's law, J. D. C. Little, "A Proof for the Queuing Formula
// L = lambda W", Operations Research 9(3), 1961. The M/M/1+D goodput is derived in sim_test_util.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim_test_util.hpp"
#include "test_scale.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::mm1d_goodput;
using testing::queue_doc;
using testing::run_first;

double erlang_c_wait(int c, double lambda, double mu) {
  const double a = lambda / mu;
  double sum = 0, term = 1;
  for (int k = 0; k < c; ++k) {
    if (k > 0) term *= a / k;
    sum += term;
  }
  const double last = term * a / c * c / (c - a);  // a^c / c! * c / (c - a)
  const double pwait = last / (sum + last);
  return 1.0 / mu + pwait / (c * mu - lambda);
}

// M/M/1: sojourn time is Exp(mu - lambda): mean 1/(mu-lambda), p99 4.605/(mu-lambda).
void check_mm1(double rho, std::uint64_t ops) {
  const double service_us = 100, mu = 1e6 / service_us, lambda = rho * mu;
  const RunResult r = run_first(build(queue_doc(lambda, service_us, ops)));
  const double w_us = 1e6 / (mu - lambda);
  const double mean_us = r.latency.mean() / 1e3;
  const double p99_us = static_cast<double>(r.latency.percentile(99)) / 1e3;
  EXPECT_EQ(r.measured_errors(), 0u);
  std::printf("M/M/1 rho %.1f: mean %.2f us (theory %.2f, %+.2f%%), p99 %.1f us (theory %.1f, %+.2f%%)\n", rho, mean_us,
              w_us, 100 * (mean_us / w_us - 1), p99_us, -std::log(0.01) * w_us,
              100 * (p99_us / (-std::log(0.01) * w_us) - 1));
  EXPECT_NEAR(mean_us / w_us, 1.0, 0.02) << "rho " << rho << ": mean " << mean_us << " us vs " << w_us;  // 2 %
  EXPECT_NEAR(p99_us / (-std::log(0.01) * w_us), 1.0, 0.02) << "rho " << rho << ": p99 " << p99_us;    // 2 %
  // Utilization = rho within 1 %; the time-averaged number in system L = rho / (1 - rho) within 3 %.
  EXPECT_NEAR(r.nodes[0].utilization / rho, 1.0, 0.01);
  const double l = rho / (1 - rho);
  std::printf("M/M/1 rho %.1f: utilization %.4f, mean number in system %.4f (theory %.4f, %+.2f%%)\n", rho,
              r.nodes[0].utilization, r.nodes[0].mean_queue, l, 100 * (r.nodes[0].mean_queue / l - 1));
  EXPECT_NEAR(r.nodes[0].mean_queue / l, 1.0, 0.03);
}

TEST(QueueingValidation, MM1AtRhoHalfMatchesClosedForm) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  check_mm1(0.5, 1'000'000);
}
TEST(QueueingValidation, MM1AtRhoPointEightMatchesClosedForm) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  check_mm1(0.8, 3'000'000);
}

// The shared discipline with c threads is M/M/c: mean sojourn from Erlang C, within 2 %.
TEST(QueueingValidation, SharedDisciplineMatchesErlangC) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  const double service_us = 100, mu = 1e6 / service_us;
  for (const int c : {2, 4}) {
    const double lambda = 0.8 * c * mu;
    auto doc = queue_doc(lambda, service_us, 1'500'000);
    const RunResult r = run_first(build(doc, {"cluster.shards=" + std::to_string(c), "cluster.discipline=shared"}));
    const double w = erlang_c_wait(c, lambda, mu) * 1e6;
    std::printf("M/M/%d rho 0.8: mean %.2f us (Erlang C %.2f, %+.2f%%)\n", c, r.latency.mean() / 1e3, w,
                100 * (r.latency.mean() / 1e3 / w - 1));
    EXPECT_NEAR(r.latency.mean() / 1e3 / w, 1.0, 0.02) << "c " << c;  // 2 %
  }
  // The formula itself against values computed independently from Erlang C (mu = 1: c = 4 at
  // rho 0.8 -> 1.7455; c = 2 at rho 0.8 -> 2.7778).
  EXPECT_NEAR(erlang_c_wait(4, 3.2, 1.0), 1.7455, 1e-4);
  EXPECT_NEAR(erlang_c_wait(2, 1.6, 1.0), 2.7778, 1e-4);
}

// A tablet keyspace on one node (RF 1, 3 shards): 32 tablets, placed 11 / 11 / 10 on the shards
// (least-loaded shard first), so each shard is an M/M/1 queue fed the Poisson share of its
// tablets' keys: mean sojourn = sum_s p_s / (mu - lambda p_s), within 2 %; the shards' utilizations
// are lambda p_s / mu within 2 %.
TEST(QueueingValidation, TabletShardsAreMM1QueuesFedByTheirTabletsShare) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  const double service_us = 100, mu = 1e6 / service_us;
  const double lambda = 0.8 * mu * 32 / 11;  // the busiest shards at rho 0.8
  auto doc = queue_doc(lambda, service_us, 2'000'000);
  doc["keyspace"] = jsonin::Json::parse(R"({"class": "NetworkTopologyStrategy", "rf": {"dc1": 1}, "tablets": true})");
  doc["workload"]["keys"] = jsonin::Json::parse(R"({"count": 100000000})");
  const Scenario sc = build(doc, {"cluster.shards=3", "cluster.num_tokens=8"});
  ASSERT_TRUE(sc.tablet_map);
  ASSERT_EQ(sc.tablet_map->count(), 32u);
  std::vector<double> share(3, 0.0);
  for (std::uint64_t t = 0; t < 32; ++t) share[sc.tablet_map->replicas(t)[0].shard] += 1.0 / 32;
  std::vector<double> sorted = share;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_DOUBLE_EQ(sorted[0], 10.0 / 32);
  EXPECT_DOUBLE_EQ(sorted[2], 11.0 / 32);
  const RunResult r = run_first(sc);
  double w = 0;
  for (double p : share) w += p / (mu - lambda * p);
  w *= 1e6;
  const double mean_us = r.latency.mean() / 1e3;
  std::printf("tablet shards 11/11/10: mean %.2f us (theory %.2f, %+.2f%%)\n", mean_us, w, 100 * (mean_us / w - 1));
  EXPECT_NEAR(mean_us / w, 1.0, 0.02);
  ASSERT_EQ(r.nodes[0].shards.size(), 3u);
  for (std::size_t s = 0; s < 3; ++s)
    EXPECT_NEAR(r.nodes[0].shards[s].utilization / (lambda * share[s] / mu), 1.0, 0.02) << s;
}

// Little's law for a closed loop: throughput X = N / (R + Z), within 0.5 %.
TEST(QueueingValidation, ClosedLoopObeysLittlesLaw) {
  auto doc = testing::cluster_doc(6, 48, 200000);
  const RunResult r = run_first(build(doc, {"client.think=1000"}));
  const double n = 48, z = 1e-3, rt = r.latency.mean() / 1e9;
  const double x = r.throughput();
  std::printf("Little: X %.1f op/s, R %.4f ms, N/(R+Z) %.1f (%+.3f%%)\n", x, rt * 1e3, n / (rt + z),
              100 * (x * (rt + z) / n - 1));
  EXPECT_NEAR(x * (rt + z) / n, 1.0, 0.005) << "X " << x << " R " << rt;  // 0.5 %
}

// Shedding under overload (issue 9 section 2): one node, one shard, exponential 1 ms service,
// Poisson writes at 1,200/s (rho 1.2) and a 200 ms write timeout. Goodput equals M/M/1+D theory
// within 2 %; the server stays busy (utilization within [0.99, 1]) and the shed writes are counted.
TEST(QueueingValidation, SheddingExpiredWorkMatchesMM1WithDeadlines) {
  const double mu = 1000, lambda = 1200, t = 0.2;
  auto doc = queue_doc(lambda, 1000, 200'000);
  doc["workload"]["warmup_ops"] = 20000;
  doc["timeouts"] = {{"write_ms", 200}};
  const RunResult r = run_first(build(doc));
  const double theory = mm1d_goodput(lambda, mu, t);
  const NodeResult& n = r.nodes[0];
  std::printf("M/M/1+D rho 1.2, T 200 ms: goodput %.1f op/s (theory %.1f, %+.2f%%), utilization %.4f, dropped writes "
              "%llu, write timeouts %llu\n",
              r.throughput(), theory, 100 * (r.throughput() / theory - 1), n.utilization,
              static_cast<unsigned long long>(n.dropped_writes),
              static_cast<unsigned long long>(r.by_op[1].errors[static_cast<std::size_t>(ErrorKind::WriteTimeout)]));
  EXPECT_NEAR(r.throughput() / theory, 1.0, 0.02);  // 2 %
  EXPECT_GE(n.utilization, 0.99);
  EXPECT_LE(n.utilization, 1.0);
  EXPECT_GT(n.dropped_writes, 0u);
  // Every measured operation either succeeded or timed out; the shed ones are among the timeouts.
  EXPECT_GE(r.by_op[1].errors[static_cast<std::size_t>(ErrorKind::WriteTimeout)], n.dropped_writes * 9 / 10);
  // Theory at the default 2 s timeout: 83.3 % of capacity (the items that start just before their
  // deadline finish after it); far from the collapse without shedding.
  EXPECT_NEAR(mm1d_goodput(lambda, mu, 2.0) / mu, 0.8333, 0.001);
  // The formula's limits: no deadline pressure at rho 0.5 (every operation succeeds).
  EXPECT_NEAR(mm1d_goodput(500, 1000, 2.0), 500, 1e-6);
}

TEST(QueueingValidation, WithoutSheddingGoodputCollapsesUnderOverload) {
  auto doc = queue_doc(1200, 1000, 100'000);
  doc["workload"]["warmup_ops"] = 0;
  doc["timeouts"] = {{"write_ms", 200}};
  const RunResult on = run_first(build(doc));
  const RunResult off = run_first(build(doc, {"timeouts.shed_expired=false"}));
  std::printf("rho 1.2, T 200 ms: goodput %.1f op/s shedding, %.1f op/s executing everything\n", on.throughput(),
              off.throughput());
  EXPECT_GT(on.throughput(), 800);
  EXPECT_LT(off.throughput(), 200);
  EXPECT_EQ(off.nodes[0].dropped_writes, 0u);
}

// Utilization and queue are time averages over the window, so they cannot exceed their physical
// limits even when the queue grows without bound (issue 9 section 3): at rho 2 utilization lies
// within [0.99, 1] with and without shedding.
TEST(QueueingValidation, UtilizationIsATimeAverageBoundedByOne) {
  for (const bool shed : {true, false}) {
    auto doc = queue_doc(2000, 1000, 50'000);
    doc["workload"]["warmup_ops"] = 1000;
    doc["timeouts"] = {{"shed_expired", shed}};
    const RunResult r = run_first(build(doc));
    const NodeResult& n = r.nodes[0];
    std::printf("rho 2, shedding %s: utilization %.5f, mean number in system %.1f\n", shed ? "on" : "off",
                n.utilization, n.mean_queue);
    EXPECT_GE(n.utilization, 0.99);
    EXPECT_LE(n.utilization, 1.0);
  }
}

}  // namespace
}  // namespace lbsim
