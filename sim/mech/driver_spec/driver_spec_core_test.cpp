// The drivers' speculative executions through the core harness (tests/core/harness.hpp): the
// hooks attempt_sent and attempt_ended fired directly with chosen operations, hosts and send
// times, and the timers read off the core's event queue.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "core/harness.hpp"
#include "sim/mech/driver_spec/driver_spec.hpp"

namespace lbsim::driver_spec_core_test {
namespace {

Scenario three_nodes(const jsonin::Json& speculative) {
  auto doc = jsonin::Json::parse(R"({
    "name": "driver-spec-core", "seed": 11,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 8, "shards": 1, "service": {"coordinator": 0, "read": 200, "write": 200}},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "client": {"dc": "dc1", "rate_ops_s": 300},
    "workload": {"ops": 10, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  if (!speculative.is_null()) doc["speculative"] = speculative;
  return testing::build(doc);
}

// An operation with `executions` attempts started, and one attempt of it to `host` sent at `sent`.
struct Sent {
  std::uint32_t op, attempt;
};
Sent attempt(Simulation::Impl& core, NodeId host, SimTime sent, std::uint8_t executions = 1,
             OpKind kind = OpKind::Read) {
  const std::uint32_t op = core.ops_.alloc();
  core.ops_[op].kind = kind;
  core.ops_[op].executions = executions;
  const std::uint32_t a = core.attempts_.alloc();
  core.attempts_[a].op = op;
  core.attempts_[a].host = host;
  core.attempts_[a].sent = sent;
  return {op, a};
}

// Another attempt of operation `op`.
std::uint32_t another(Simulation::Impl& core, std::uint32_t op, NodeId host, SimTime sent) {
  const std::uint32_t a = core.attempts_.alloc();
  core.attempts_[a].op = op;
  core.attempts_[a].host = host;
  core.attempts_[a].sent = sent;
  return a;
}

// The core's next event, which must be one of the mechanism's: its time and digest name.
std::pair<SimTime, std::string> next_event(Simulation::Impl& core) {
  EXPECT_FALSE(core.q_.empty());
  if (core.q_.empty()) return {-1, ""};
  const auto e = core.q_.pop();
  const EventDigest::Entry d = core.digest_entry(e);
  EXPECT_EQ(d.slot, 0u);
  core.mech_events_.take(e.id());
  return {e.at, std::string(d.kind)};
}

TEST(DriverSpecCore, SubscribesOnlyWhenSpeculativeExecutionsAreOn) {
  testing::CoreHarness off(three_nodes(nullptr));
  EXPECT_EQ(off.mechanism<DriverSpec>(), nullptr);
  EXPECT_TRUE(off.core().hooks_.attempt_sent.empty());
  EXPECT_TRUE(off.core().hooks_.attempt_ended.empty());
  EXPECT_FALSE(static_cast<bool>(off.core().hooks_.extra_host));
  // The constant policy on the shared plan: no latency records, no host strategy.
  testing::CoreHarness plan(three_nodes({{"delay_ms", 5}}));
  ASSERT_NE(plan.mechanism<DriverSpec>(), nullptr);
  EXPECT_EQ(plan.core().hooks_.attempt_sent.size(), 1u);
  EXPECT_TRUE(plan.core().hooks_.attempt_ended.empty());
  EXPECT_FALSE(static_cast<bool>(plan.core().hooks_.extra_host));
  // gocql before PR #1531: a plan of its own for each speculative execution.
  testing::CoreHarness new_plan(three_nodes({{"delay_ms", 5}, {"host", "new_plan"}}));
  EXPECT_TRUE(static_cast<bool>(new_plan.core().hooks_.extra_host));
  // The percentile policy records latencies.
  testing::CoreHarness pct(three_nodes({{"kind", "percentile"}}));
  EXPECT_EQ(pct.core().hooks_.attempt_ended.size(), 1u);
}

// speculative.delay_ms 5, max_speculative 1: an execution sent at 2 ms arms the timer at 7 ms,
// the digest's "timer.speculative" of slot 0 as when it was the core's; a second operation's
// (sent at 3 ms) waits behind it in the FIFO with no event of its own. An operation that has had
// its executions, or an LWT, arms nothing. A speculative execution on the first execution's host
// is counted. At 7 ms the first operation has ended: nothing is sent, and the FIFO's next entry
// (8 ms) is armed.
TEST(DriverSpecCore, ConstantDelayArmsTheTimerAtSentPlusDelay) {
  testing::CoreHarness h(three_nodes({{"delay_ms", 5}, {"max_speculative", 1}}));
  DriverSpec* s = h.mechanism<DriverSpec>();
  ASSERT_NE(s, nullptr);
  auto& core = h.core();
  ASSERT_TRUE(core.q_.empty());  // no fault, no window event before run()
  h.set_now(1 * kMs);
  const Sent one = attempt(core, 1, 2 * kMs);
  core.hooks_.attempt_sent.fire(one.op, one.attempt, SendKind::First);
  EXPECT_EQ(s->next_deadline(), 7 * kMs);
  ASSERT_EQ(core.q_.size(), 1u);
  EXPECT_EQ(next_event(core), std::make_pair(SimTime{7 * kMs}, std::string("timer.speculative")));

  const Sent two = attempt(core, 2, 3 * kMs);
  core.hooks_.attempt_sent.fire(two.op, two.attempt, SendKind::First);
  EXPECT_EQ(s->next_deadline(), 7 * kMs);
  EXPECT_TRUE(core.q_.empty());  // armed already

  // The first operation's speculative execution went to its first host b, then one to c.
  core.ops_[one.op].executions = 2;
  core.hooks_.attempt_sent.fire(one.op, another(core, one.op, 1, 7 * kMs), SendKind::Speculative);
  EXPECT_EQ(s->same_host(), 1u);
  core.hooks_.attempt_sent.fire(one.op, another(core, one.op, 2, 7 * kMs), SendKind::Speculative);
  EXPECT_EQ(s->same_host(), 1u);
  // A retry on the same host is no speculative execution.
  core.hooks_.attempt_sent.fire(one.op, another(core, one.op, 1, 7 * kMs), SendKind::SameHost);
  EXPECT_EQ(s->same_host(), 1u);
  const Sent lwt = attempt(core, 0, 4 * kMs, 1, OpKind::Lwt);
  core.hooks_.attempt_sent.fire(lwt.op, lwt.attempt, SendKind::First);
  EXPECT_TRUE(core.q_.empty());

  core.ops_[one.op].done = true;
  h.set_now(7 * kMs);
  s->on_event(DriverSpec::kDelay, 0);
  EXPECT_EQ(s->speculative(), 0u);
  EXPECT_EQ(s->next_deadline(), 8 * kMs);
  EXPECT_EQ(next_event(core), std::make_pair(SimTime{8 * kMs}, std::string("timer.speculative")));
}

// speculative.kind percentile, p90, per host, min_recorded 10, interval 1 s. Host b answers ten
// executions in 1.5 .. 10.5 ms (recorded 1 .. 10 ms, whole ms); an Unavailable answer and the
// answer of an operation that already ended (a cancelled execution) are not recorded, or the
// p90 of 12 values would be 1,000 ms. After the interval (the cache stamped at the first record,
// 1.5 ms) an execution sent to b at 1.2001 s gets the 9th value, 9 ms: its timer is at sent + 9 ms.
// One sent to c, which recorded nothing, gets no delay and is counted.
TEST(DriverSpecCore, PercentileDelayArmsTheTimerAtSentPlusTheHostsPercentile) {
  testing::CoreHarness h(three_nodes({{"kind", "percentile"}, {"percentile", 90}, {"tracker", "per_host"},
                                      {"min_recorded", 10}, {"interval_ms", 1000}, {"max_speculative", 1}}));
  DriverSpec* s = h.mechanism<DriverSpec>();
  ASSERT_NE(s, nullptr);
  auto& core = h.core();
  for (int v = 1; v <= 10; ++v) {
    h.set_now(v * kMs + 500 * kUs);
    core.hooks_.attempt_ended.fire(attempt(core, 1, 0).attempt, policy::ResponseKind::Success);
  }
  h.set_now(1000 * kMs);
  core.hooks_.attempt_ended.fire(attempt(core, 1, 0).attempt, policy::ResponseKind::Unavailable);
  const Sent cancelled = attempt(core, 1, 0);
  core.ops_[cancelled.op].done = true;
  core.hooks_.attempt_ended.fire(cancelled.attempt, policy::ResponseKind::Timeout);
  ASSERT_NE(s->tracker(), nullptr);

  h.set_now(1200 * kMs);
  const SimTime sent = 1200 * kMs + 100 * kUs;
  const Sent b = attempt(core, 1, sent);
  core.hooks_.attempt_sent.fire(b.op, b.attempt, SendKind::First);
  EXPECT_EQ(s->next_deadline(), sent + 9 * kMs);
  EXPECT_EQ(next_event(core), std::make_pair(sent + 9 * kMs, std::string("driver_spec.percentile_timer")));
  const Sent c = attempt(core, 2, sent);
  core.hooks_.attempt_sent.fire(c.op, c.attempt, SendKind::First);
  EXPECT_EQ(s->no_delay(), 1u);
  EXPECT_TRUE(core.q_.empty());
  // At the timer, the operation has ended: no execution, no timer left.
  core.ops_[b.op].done = true;
  h.set_now(sent + 9 * kMs);
  s->on_event(DriverSpec::kPercentile, 0);
  EXPECT_EQ(s->speculative(), 0u);
  EXPECT_EQ(s->next_deadline(), std::numeric_limits<SimTime>::max());
  EXPECT_TRUE(core.q_.empty());
}

}  // namespace
}  // namespace lbsim::driver_spec_core_test
