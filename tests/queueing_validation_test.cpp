// The engine against queueing theory (../shared/docs/queueing.md section 3). Fixed seeds; each
// tolerance is stated next to its assertion.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
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
  // Utilization = rho within 1 %.
  EXPECT_NEAR(r.nodes[0].utilization / rho, 1.0, 0.01);
}

TEST(QueueingValidation, MM1AtRhoHalfMatchesClosedForm) { check_mm1(0.5, 1'000'000); }
TEST(QueueingValidation, MM1AtRhoPointEightMatchesClosedForm) { check_mm1(0.8, 3'000'000); }

// The shared discipline with c threads is M/M/c: mean sojourn from Erlang C, within 2 %.
TEST(QueueingValidation, SharedDisciplineMatchesErlangC) {
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
  // The formula itself against the table in queueing.md (mu = 1, c = 4, rho 0.8 -> 1.7455).
  EXPECT_NEAR(erlang_c_wait(4, 3.2, 1.0), 1.7455, 1e-4);
  EXPECT_NEAR(erlang_c_wait(2, 1.6, 1.0), 2.7778, 1e-4);
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

}  // namespace
}  // namespace lbsim
