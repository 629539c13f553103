// The shared java.util.Random as a measured critical section against thread-local draws
// (issue 9 section 1): the unit semantics of ClientCpu, equality at one thread, throughput that
// never rises with the line-transfer cost, the generator's own saturation bound, and the seed
// scenario at the measured cost staying within [0.99, 1.03] from 2 to 64 client cores.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "sim/client/client_cpu.hpp"
#include "sim/config/scenario.hpp"
#include "sim_test_util.hpp"
#include "test_scale.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::run_first;

// TokenAware RANDOM (2 shared or 2 thread-local draws per plan) on a fast cluster so that the
// client is what limits throughput.
Scenario rng_scenario(int threads, int cores, const std::vector<std::string>& extra = {}) {
  auto doc = testing::cluster_doc(6, threads, 40000);
  doc["policies"] = jsonin::Json::parse(R"([
    {"name": "shared", "policy": {"type": "TokenAware", "ordering": "RANDOM", "shuffle_rng": "shared",
                                  "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}},
    {"name": "thread_local", "policy": {"type": "TokenAware", "ordering": "RANDOM", "shuffle_rng": "thread_local",
                                        "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}}])");
  std::vector<std::string> sets = {"client.cores=" + std::to_string(cores), "client.driver_cost=10",
                                   "cluster.shards=16", "network={\"same_rack\": 20, \"same_dc\": 20}",
                                   "cluster.speed={\"n1\": 10, \"n2\": 10, \"n3\": 10, \"n4\": 10, \"n5\": 10, \"n6\": 10}"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return build(doc, sets);
}

TEST(ClientCpu, TheLineMovesOnlyBetweenCoresAndOverlapsSpin) {
  ClientSpec spec;
  spec.cores = 2;
  spec.shared_draw_ns = 10;
  spec.thread_local_draw_ns = 3;
  spec.line_transfer_ns = 50;
  ClientCpu cpu(spec);
  // Core 0 takes the line (first use: a transfer): 2 x 10 + 50 = 70 ns, then 1000 ns of work.
  EXPECT_EQ(cpu.run(0, 1000, 2, 0), 1070);
  // Core 1 at the same instant overlaps: it spins until 70, pulls the line (50) and draws (20).
  EXPECT_EQ(cpu.run(0, 1000, 2, 0), 70 + 70 + 1000);
  EXPECT_EQ(cpu.shared_rng_time(), 70 + 140);
  EXPECT_EQ(cpu.line_transfers(), 2u);
  // At 2000 both cores are idle; the lowest-numbered (core 0) runs the burst, the line was last on
  // core 1: a transfer but no spinning.
  EXPECT_EQ(cpu.run(2000, 100, 2, 0), 2000 + 70 + 100);
  // Core 0 again, nobody else drew: the line is local, draws only.
  EXPECT_EQ(cpu.run(3000, 100, 2, 0), 3000 + 20 + 100);
  EXPECT_EQ(cpu.line_transfers(), 3u);
  // Thread-local draws never touch the line: 4 x 3 ns added to the burst.
  EXPECT_EQ(cpu.run(4000, 100, 0, 4), 4000 + 100 + 12);
  EXPECT_EQ(cpu.line_transfers(), 3u);
}

TEST(ClientCpu, BusyTimeLeavesOutWorkScheduledAfterTheInstant) {
  ClientSpec spec;
  spec.cores = 1;
  spec.line_transfer_ns = 0;
  ClientCpu cpu(spec);
  EXPECT_EQ(cpu.run(0, 1000, 0, 0), 1000);
  EXPECT_EQ(cpu.run(0, 1000, 0, 0), 2000);  // queued behind the first
  EXPECT_EQ(cpu.busy_until(0), 0);
  EXPECT_EQ(cpu.busy_until(500), 500);
  EXPECT_EQ(cpu.busy_until(1500), 1500);
  EXPECT_EQ(cpu.busy_until(5000), 2000);  // never more than the elapsed time on one core
}

TEST(ClientCpu, UnlimitedCoresKeepOneLinePerThread) {
  ClientSpec spec;
  spec.cores = 0;
  spec.shared_draw_ns = 5;
  spec.line_transfer_ns = 40;
  ClientCpu cpu(spec);
  EXPECT_EQ(cpu.run(0, 0, 1, 0, 7), 45);    // first owner: transfer
  EXPECT_EQ(cpu.run(100, 0, 1, 0, 7), 105);  // same thread: local
  EXPECT_EQ(cpu.run(200, 0, 1, 0, 8), 245);  // another thread: transfer
  EXPECT_EQ(cpu.run(300, 0, 1, 0), 345);     // no identity: a core of its own
  EXPECT_EQ(cpu.run(400, 0, 1, 0), 445);
}

TEST(ClientRng, OneThreadIsIdenticalWhenUncontendedDrawsCostTheSame) {
  // A lone thread never moves the line, so with equal per-draw costs the generators are the same
  // machine: every number of the run is equal.
  const Scenario sc = rng_scenario(1, 4, {"client.shared_draw_ns=4", "client.thread_local_draw_ns=4",
                                          "client.line_transfer_ns=1000"});
  const RunResult s = run_first(sc, "shared"), t = run_first(sc, "thread_local");
  EXPECT_EQ(s.measured_ops(), t.measured_ops());
  EXPECT_EQ(s.window, t.window);
  EXPECT_EQ(s.latency.percentile(50), t.latency.percentile(50));
  EXPECT_EQ(s.latency.max(), t.latency.max());
}

TEST(ClientRng, OneThreadAtTheMeasuredCostsDiffersOnlyByTheUncontendedCas) {
  // With the measured defaults the only difference is shared_draw_ns - thread_local_draw_ns per
  // draw (1.8 ns x 2 draws per plan), against a ~30 us operation: the ratio is 1 within 2e-4.
  const Scenario sc = rng_scenario(1, 4);
  const RunResult s = run_first(sc, "shared"), t = run_first(sc, "thread_local");
  const double ratio = t.throughput() / s.throughput();
  std::printf("one thread, measured costs: ratio %.6f\n", ratio);
  EXPECT_GE(ratio, 1.0);
  EXPECT_LT(ratio, 1.0002);
}

TEST(ClientRng, SharedThroughputNeverRisesAsTheTransferCostRises) {
  // 64 threads on 4 saturated cores. Common random numbers: the same seed for every cost.
  double previous = 0;
  for (const double cost : {0.0, 15.0, 100.0, 400.0, 1600.0, 6400.0, 25600.0}) {
    const Scenario sc = rng_scenario(64, 4, {fmt::format("client.line_transfer_ns={}", cost)});
    const double tput = run_first(sc, "shared").throughput();
    std::printf("line_transfer_ns %7.0f: shared %.0f op/s\n", cost, tput);
    if (previous > 0) {
      EXPECT_LE(tput, previous * (1 + 1e-3)) << "at line_transfer_ns " << cost;
    }
    previous = tput;
  }
  // And the thread-local generator does not care.
  const double a = run_first(rng_scenario(64, 4, {"client.line_transfer_ns=0"}), "thread_local").throughput();
  const double b = run_first(rng_scenario(64, 4, {"client.line_transfer_ns=25600"}), "thread_local").throughput();
  EXPECT_EQ(a, b);
}

TEST(ClientRng, AHotGeneratorSaturatesAtOnePlanPerHold) {
  // With a 50 us transfer the line, moving on nearly every plan, is the bottleneck: throughput
  // approaches 1 / (2 x shared_draw_ns + line_transfer_ns) = 1e9 / 50,009 op/s and cannot pass it.
  const Scenario sc = rng_scenario(64, 8, {"client.line_transfer_ns=50000", "client.shared_draw_ns=4.5"});
  const RunResult r = run_first(sc, "shared");
  const double bound = 1e9 / (2 * 4.5 + 50000);
  std::printf("hot generator: %.0f op/s, bound %.0f\n", r.throughput(), bound);
  EXPECT_LE(r.throughput(), bound * 1.001);
  EXPECT_GE(r.throughput(), bound * 0.9);
}

double seed_ratio(int cores, int threads, double line_transfer_ns = -1) {
  std::vector<std::string> sets = {"workload.ops=200000", "client.cores=" + std::to_string(cores),
                                   "client.threads=" + std::to_string(threads)};
  if (line_transfer_ns >= 0) sets.push_back(fmt::format("client.line_transfer_ns={}", line_transfer_ns));
  const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/seed-shared-rng.json", sets);
  const RunResult s = run_first(sc, "random-shared"), t = run_first(sc, "random-thread-local");
  const double ratio = t.throughput() / s.throughput();
  std::printf("seed scenario, %2d cores, %3d threads, transfer %s: shared %.0f, thread-local %.0f op/s, ratio %.4f, client cpu %.0f%%\n",
              cores, threads, line_transfer_ns >= 0 ? fmt::format("{} ns", line_transfer_ns).c_str() : "default",
              s.throughput(), t.throughput(), ratio, 100 * s.client.cpu_utilization);
  return ratio;
}

TEST(ClientRng, SeedScenarioAtTheMeasuredCostStaysFlatFromTwoTo64Cores) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  // configs/seed-shared-rng.json (16 threads) with its measured defaults, and at least 2 threads
  // per core (16 threads on 16 or 64 cores would be the same run: the extra cores idle). Both ends
  // of the measured line transfer: the default (near cores) and 125 ns (distant cores,
  // configs/README.md "client"). The fitted model gave 1.07, 1.40, 5.2 and 14 at 4, 8, 16 and 32 cores.
  for (const double transfer : {-1.0, 125.0}) {
    for (const int cores : {2, 4, 8, 16, 32, 64}) {
      const double ratio = seed_ratio(cores, std::max(16, 2 * cores), transfer);
      EXPECT_GE(ratio, 0.99) << cores << " cores, transfer " << transfer;
      EXPECT_LE(ratio, 1.03) << cores << " cores, transfer " << transfer;
    }
  }
  // Kept CPU-bound (4 threads per core, where contention would show first) up to the point where
  // the 3-node cluster saturates.
  for (const int cores : {2, 4, 8, 16}) {
    const double ratio = seed_ratio(cores, 4 * cores);
    EXPECT_GE(ratio, 0.99) << cores << " cores, CPU-bound";
    EXPECT_LE(ratio, 1.03) << cores << " cores, CPU-bound";
  }
}

}  // namespace
}  // namespace lbsim
