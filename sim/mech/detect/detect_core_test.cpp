// The drivers' own failure detection through the core harness (tests/core/harness.hpp): the
// host timer's handler is called at the times the mechanism armed, with the node's state chosen,
// and the hook points are fired as the request path fires them.
#include <gtest/gtest.h>

#include <string>

#include "core/harness.hpp"
#include "sim/mech/detect/detect.hpp"

namespace lbsim {
namespace {

Scenario detect_core_scenario(const std::string& driver) {
  auto d = jsonin::Json::parse(R"({
    "name": "detect-core", "seed": 3,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 16, "shards": 1, "service": {"coordinator": 20, "read": 100, "write": 50}},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "client": {"dc": "dc1", "rate_ops_s": 300},
    "workload": {"ops": 10, "mix": {"read": 1}},
    "faults": {"driver_detection": "driver", "heartbeat": {"driver": "java3"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  d["faults"]["heartbeat"]["driver"] = driver;
  return testing::build(d);
}

// Java 3.x: a reader-idle heartbeat 30 s after the last read, answered at once by a live node;
// once the node is dead, the next one (60 s) waits readTimeoutMillis (the client timeout, 12 s by
// default) and its timeout marks the host down at 72 s.
TEST(DetectCore, Java3ReaderIdleHeartbeatThenItsTimeout) {
  testing::CoreHarness h(detect_core_scenario("java3"));
  auto* d = h.mechanism<DriverDetect>();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->params().interval, 30 * kSec);
  EXPECT_EQ(d->params().timeout, 12 * kSec);
  Simulation::Impl& core = h.core();
  h.set_now(30 * kSec);
  d->on_event(0, 1);  // the heartbeat: b is alive and answers
  EXPECT_TRUE(core.view_.is_up(1));
  core.nodes_.set_down(1, 30 * kSec);
  h.set_now(59 * kSec);
  d->on_event(0, 1);  // not the armed time (60 s): a stale timer does nothing
  h.set_now(60 * kSec);
  d->on_event(0, 1);  // the next heartbeat, unanswered
  EXPECT_TRUE(core.view_.is_up(1));
  h.set_now(72 * kSec);
  d->on_event(0, 1);
  EXPECT_FALSE(core.view_.is_up(1));
  RunResult r;
  d->collect(r);
  ASSERT_TRUE(r.detection.has_value());
  ASSERT_EQ(r.detection->events.size(), 1u);
  EXPECT_EQ(r.detection->events[0].by, "heartbeat");
  EXPECT_DOUBLE_EQ(r.detection->events[0].at_s, 72.0);
  EXPECT_FALSE(r.detection->events[0].up);
}

// Node.js: more than defunctReadTimeoutThreshold (64) requests timed out and unanswered remove the
// connection; a late answer takes one off the count.
TEST(DetectCore, NodejsCountsTimedOutRequestsThroughTheHooks) {
  testing::CoreHarness h(detect_core_scenario("nodejs"));
  Simulation::Impl& core = h.core();
  ASSERT_NE(h.mechanism<DriverDetect>(), nullptr);
  h.set_now(5 * kSec);
  for (int i = 0; i < 64; ++i) core.hooks_.client_timeout.fire(2);
  EXPECT_TRUE(core.view_.is_up(2));
  core.hooks_.answer_read.fire(2, true);  // a late answer: 63 outstanding
  core.hooks_.client_timeout.fire(2);     // 64: not more than 64
  EXPECT_TRUE(core.view_.is_up(2));
  core.hooks_.client_timeout.fire(2);     // 65
  EXPECT_FALSE(core.view_.is_up(2));
}

// gocql: the cluster's DOWN event marks the host down after the 1 s event debounce, even while the
// node still answers.
TEST(DetectCore, GocqlMarksDownOnTheClusterEvent) {
  testing::CoreHarness h(detect_core_scenario("go"));
  Simulation::Impl& core = h.core();
  auto* d = h.mechanism<DriverDetect>();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->params().first_tick, kSec);  // the first OPTIONS 1 s after the connection opens
  h.set_now(kSec);
  d->on_event(0, 0);  // answered; the next keepalive at 31 s
  h.set_now(10 * kSec);
  core.hooks_.status_event.fire(0, false);
  EXPECT_TRUE(core.view_.is_up(0));
  h.set_now(11 * kSec);
  d->on_event(0, 0);
  EXPECT_FALSE(core.view_.is_up(0));
}

TEST(DetectCore, AbsentWithTheFixedRule) {
  auto sc = detect_core_scenario("java3");
  sc.mech.clear(MechSpecs::k_detect);
  sc.mech.claims.driver_detection = false;
  testing::CoreHarness h(std::move(sc));
  EXPECT_EQ(h.mechanism<DriverDetect>(), nullptr);
  EXPECT_EQ(h.core().hooks_.client_timeout.size(), 0u);
}

}  // namespace
}  // namespace lbsim
