// The driver side of the engine (issue 9 section 4): a policy that reads in-flight counts sees a
// request counted from its write to the connection (after the client CPU) to its answer, as the
// Java 4.x driver's in-flight counter does; response decoding is charged on the client CPU after
// the answer arrives.
#include <gtest/gtest.h>

#include <vector>

#include "policies/policy.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using policy::HostId;

// Plans every host in order; records, at each plan, the total in-flight count it sees.
class InFlightProbe final : public policy::Policy {
 public:
  struct Seen {
    SimTime now;
    std::int32_t in_flight;
  };
  void init(const policy::ClusterView& view, Rng&) override { view_ = &view; }
  policy::Distance distance(HostId) const override { return policy::Distance::Local; }
  policy::Plan* new_plan(const policy::Request& req, policy::PlanRandom&, policy::PlanArena& arena) override {
    std::int32_t total = 0;
    for (HostId h = 0; h < view_->size(); ++h) total += view_->in_flight(h);
    seen.push_back({req.now, total});
    return arena.make<Order>(static_cast<HostId>(view_->size()));
  }
  bool reads_in_flight() const override { return reads_; }

  explicit InFlightProbe(bool reads) : reads_(reads) {}
  std::vector<Seen> seen;

 private:
  class Order final : public policy::Plan {
   public:
    explicit Order(HostId n) : n_(n) {}
    HostId next() override { return i_ < n_ ? i_++ : policy::kNoHost; }

   private:
    HostId n_, i_ = 0;
  };
  const policy::ClusterView* view_ = nullptr;
  bool reads_;
};

// Four threads on one client core with 1 ms of request-side driver CPU each: at t = 0 all four
// plan at once, and their sends leave at 1, 2, 3 and 4 ms.
Scenario busy_client() {
  auto doc = testing::cluster_doc(3, 4, 200);
  doc["workload"]["warmup_ops"] = 0;
  return testing::build(doc, {"client.cores=1", "client.driver_cost=1000", "client.response_share=0",
                              "client.plan_ns=0", "client.plan_host_ns=0"});
}

// The total in-flight counts a probe policy saw at each plan of the busy-client run.
std::vector<InFlightProbe::Seen> probe_run(bool reads_in_flight) {
  const Scenario sc = busy_client();
  auto probe = std::make_unique<InFlightProbe>(reads_in_flight);
  InFlightProbe* p = probe.get();
  Simulation sim(sc, sc.policies.front(), std::move(probe), 1);  // owns the probe
  sim.run({});
  return p->seen;
}

TEST(EngineClient, InFlightCountsStartWhenTheRequestIsWrittenNotWhenItIsPlanned) {
  const auto seen = probe_run(true);
  ASSERT_GE(seen.size(), 4u);
  // The four plans at t = 0 see nothing in flight: no request has been written yet. (Counting
  // from the plan, as before, they saw 0, 1, 2, 3.)
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(seen[i].now, 0);
    EXPECT_EQ(seen[i].in_flight, 0) << "plan " << i;
  }
  // Later plans never see more than the four threads' requests.
  for (const auto& s : seen) EXPECT_LE(s.in_flight, 4);
}

TEST(EngineClient, PoliciesThatDoNotReadTheCountKeepTheOldCheapAccounting) {
  const auto seen = probe_run(false);
  ASSERT_GE(seen.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(seen[i].in_flight, i) << "plan " << i;
}

TEST(EngineClient, DecodingAfterTheAnswerAddsToLatencyAndQueuesWithDriverWork) {
  // One thread, unlimited server speed and no network: latency is the client CPU alone.
  auto doc = testing::cluster_doc(3, 1, 1000);
  doc["workload"]["warmup_ops"] = 0;
  const std::vector<std::string> base = {"client.cores=1", "client.driver_cost=100", "client.plan_ns=0",
                                         "client.plan_host_ns=0", "client.thread_local_draw_ns=0", "cluster.service={\"coordinator\": 0, \"read\": 0, \"write\": 0}",
                                         "network={\"same_rack\": 0, \"same_dc\": 0}"};
  auto with = [&](const std::string& share) {
    auto sets = base;
    sets.push_back("client.response_share=" + share);
    return testing::run_first(testing::build(doc, sets));
  };
  // The 100 us of driver CPU is on the critical path whichever side it is charged to.
  for (const char* share : {"0", "0.3", "1"}) {
    const RunResult r = with(share);
    EXPECT_NEAR(r.latency.mean(), 100000, 1) << "share " << share;
    EXPECT_NEAR(r.client.cpu_utilization, 1.0, 1e-3) << "share " << share;
  }
  // Two threads on one core: a decode queues behind the other thread's request work, so the
  // operation takes both, and throughput is one operation per 100 us of CPU either way.
  doc["client"]["threads"] = 2;
  auto sets = base;
  sets.push_back("client.response_share=0.5");
  const RunResult r = testing::run_first(testing::build(doc, sets));
  EXPECT_NEAR(r.throughput(), 10000, 10);
  EXPECT_NEAR(r.latency.mean(), 200000, 200);
}

// Closed-loop threads whose operations all fail at once (every connection full: BusyPoolException)
// start the next one at the same instant. 60,000 such failures in a row used to nest as many
// start_op calls and overflow the stack (found on configs/busy-connection.json with 128 requests
// per connection); the run now completes and counts them.
TEST(EngineClient, ImmediateFailuresInARowDoNotNestWithoutBound) {
  const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/busy-connection.json",
                                    {"client.max_requests_per_connection=128", "workload.ops=60000",
                                     "workload.warmup_ops=6000"});
  const RunResult r = testing::run_first(sc);
  EXPECT_EQ(r.measured_ops() + r.measured_errors(), 60000u);
  EXPECT_GT(r.measured_errors(), 0u);
}

}  // namespace
}  // namespace lbsim
