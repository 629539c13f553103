// Deep server queues (issue 14): thousands of client threads on a few shard servers. Most
// completions, and most answers of remote replicas, are then scheduled milliseconds ahead and go
// through the event queue's lanes (a server's completions; its answers to remote coordinators),
// whose next event enters the calendar only when the one before it pops. A lane that stalled
// would leave operations unfinished; a lane that let an event out early would break the closed
// loop's balance (a lane left unadvanced fails both checks; tried). With no think time each
// thread always has exactly one operation in progress, so throughput x mean latency = threads.
#include <gtest/gtest.h>

#include "sim_test_util.hpp"

namespace lbsim {
namespace {

TEST(EngineDeepQueues, EveryOperationFinishesAndLittlesLawHolds) {
  constexpr int kThreads = 4000;
  constexpr std::uint64_t kOps = 240000;
  auto doc = testing::cluster_doc(6, kThreads, kOps);
  doc["workload"]["warmup_ops"] = 20000;
  // Round robin coordinators and QUORUM: most answers come from replicas on other nodes, and an
  // operation cannot end without them.
  doc["workload"]["consistency"] = {{"read", "QUORUM"}, {"write", "QUORUM"}};
  const RunResult r = testing::run_first(testing::build(doc), "rr");
  EXPECT_EQ(r.measured_ops(), kOps);
  EXPECT_EQ(r.measured_errors(), 0u);
  // Deep queues: 4,000 operations on 12 shard servers wait tens of milliseconds (the lanes take
  // events 4 ms or more ahead).
  EXPECT_GT(r.latency.mean(), 10e6);
  // Little's law over the window. Its ends are the error: 2.1% below at this length, shrinking
  // as the window grows (the default scenario at 4,000 threads: 1.6% at 1M operations, 0.7% at
  // 3M).
  const double in_progress = r.throughput() * r.latency.mean() * 1e-9;
  EXPECT_NEAR(in_progress / kThreads, 1.0, 0.03);
}

}  // namespace
}  // namespace lbsim
