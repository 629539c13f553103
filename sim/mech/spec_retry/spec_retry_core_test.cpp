// The coordinators' speculative retry through the core harness (tests/core/harness.hpp): the
// read_split strategy called directly with chosen targets, its timers fired by hand, and the
// read_done hook fed chosen latencies; the numbers are the rules of spec_retry.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <span>
#include <string>

#include "core/harness.hpp"
#include "sim/mech/spec_retry/spec_retry.hpp"

namespace lbsim {
namespace {

// Three nodes in one rack, RF 3, one shard; the option and the release as given.
Scenario spec_core_scenario(const std::string& option, const std::string& server = "unspecified") {
  auto doc = jsonin::Json::parse(R"({
    "name": "spec-retry-core", "seed": 3,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 4, "shards": 1,
                "service": {"coordinator": 0, "read": 1000, "write": 1000}},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "client": {"dc": "dc1", "rate_ops_s": 100},
    "workload": {"ops": 10, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  doc["cluster"]["speculative_retry"] = option;
  doc["cluster"]["server"] = server;
  return testing::build(doc);
}

// A live read request coordinated by `node`, started (its deadline's origin) at `start`.
std::uint32_t live_read(testing::CoreHarness& h, NodeId node, SimTime start, std::uint32_t gen) {
  auto& core = h.core();
  const std::uint32_t cr = core.crs_.alloc();
  auto& c = core.crs_[cr];
  c = {};
  c.kind = OpKind::Read;
  c.node = node;
  c.gen = gen;
  c.epoch = core.nodes_.epoch(node);
  c.deadline = start + core.request_timeout(OpKind::Read);
  core.cr_live_[cr] = gen;
  return cr;
}

// A read of coordinator `node` answered at now after `latency` (or failed with `error`): the hook.
void answer(testing::CoreHarness& h, NodeId node, SimTime latency, bool success = true,
            ErrorKind error = ErrorKind::Unavailable) {
  auto& core = h.core();
  const std::uint32_t cr = live_read(h, node, core.now_ - latency, 1);
  core.crs_[cr].success = success;
  core.crs_[cr].error = error;
  core.hooks_.read_done.fire(cr);
  core.crs_.release(cr);
}

// EstimatedHistogram's first bucket offset (us) at or above `us` (1, then x 1.2 rounded, at least
// one more: apache/cassandra utils/EstimatedHistogram.java newOffsets), computed independently.
double offset_at_least_us(double us) {
  double last = 1;
  while (last < us) {
    double next = std::round(last * 1.2);
    if (next == last) ++next;
    last = next;
  }
  return last;
}

TEST(SpecRetryCore, OffWithoutTheOption) {
  testing::CoreHarness h(spec_core_scenario("NONE"));
  EXPECT_EQ(h.mechanism<SpecRetry>(), nullptr);
  EXPECT_FALSE(h.core().hooks_.read_split);
  EXPECT_TRUE(h.core().hooks_.read_done.empty());
}

// ALWAYS: the spare goes at once and gets a data request too (need + 1 sent, 2 with data); a read
// whose order gave no spare (CL ALL, or RF = CL) sends what it has, one with data. No timer.
TEST(SpecRetryCore, AlwaysSendsNeedPlusOneAtOnce) {
  testing::CoreHarness h(spec_core_scenario("ALWAYS"));
  SpecRetry* s = h.mechanism<SpecRetry>();
  ASSERT_NE(s, nullptr);
  auto& core = h.core();
  EXPECT_EQ(core.hooks_.read_split.spare, 1u);
  EXPECT_TRUE(core.hooks_.read_done.empty());  // no histogram to fill
  const std::uint32_t cr = live_read(h, 0, 0, 1);
  const std::array<NodeId, 3> t{0, 1, 2};
  ReadSplit::Split one = core.hooks_.read_split(cr, 1, std::span<const NodeId>(t.data(), 2));  // ONE + spare
  EXPECT_EQ(one.send, 2u);
  EXPECT_EQ(one.data, 2u);
  ReadSplit::Split quorum = core.hooks_.read_split(cr, 2, t);  // QUORUM + spare
  EXPECT_EQ(quorum.send, 3u);
  EXPECT_EQ(quorum.data, 2u);
  ReadSplit::Split all = core.hooks_.read_split(cr, 3, t);  // ALL: no spare
  EXPECT_EQ(all.send, 3u);
  EXPECT_EQ(all.data, 1u);
  EXPECT_EQ(s->reads(), 2u);
  EXPECT_EQ(s->pending(), 0u);
  EXPECT_EQ(core.mech_events_.pending(), 0u);
}

// Xms: the CL's targets go now, the spare waits; one timer event at the earliest threshold, which
// sends the spare of a request still waiting and skips one answered meanwhile.
TEST(SpecRetryCore, FixedThresholdArmsATimerForTheSpare) {
  testing::CoreHarness h(spec_core_scenario("5ms"));
  SpecRetry* s = h.mechanism<SpecRetry>();
  ASSERT_NE(s, nullptr);
  auto& core = h.core();
  EXPECT_TRUE(core.hooks_.read_done.empty());
  ASSERT_EQ(core.q_.size(), 0u);  // nothing before run()
  h.set_now(1 * kSec);
  const std::uint32_t waits = live_read(h, 0, 1 * kSec, 7);
  const std::array<NodeId, 2> t{0, 2};
  const ReadSplit::Split a = core.hooks_.read_split(waits, 1, t);
  EXPECT_EQ(a.send, 1u);
  EXPECT_EQ(a.data, 1u);
  EXPECT_EQ(s->pending(), 1u);
  EXPECT_EQ(s->armed(), 1 * kSec + 5 * kMs);
  EXPECT_EQ(core.q_.size(), 1u);
  h.set_now(1 * kSec + 2 * kMs);
  const std::uint32_t answered = live_read(h, 1, 1 * kSec + 2 * kMs, 9);
  const std::array<NodeId, 2> u{1, 0};
  EXPECT_EQ(core.hooks_.read_split(answered, 1, u).send, 1u);
  EXPECT_EQ(s->pending(), 2u);
  EXPECT_EQ(core.q_.size(), 1u);  // its timer (1.007 s) is later than the one pushed
  const EventQueue::Event e = core.q_.pop();
  EXPECT_EQ(e.at, 1 * kSec + 5 * kMs);
  EXPECT_EQ(e.type(), Simulation::Impl::kMech);
  core.mech_events_.take(e.id());
  EXPECT_EQ(s->reads(), 0u);

  core.cr_live_[answered] = Simulation::Impl::kDeadTag;  // answered before its threshold
  h.set_now(e.at);
  s->on_event(0, 0);
  EXPECT_EQ(s->reads(), 1u);
  EXPECT_EQ(core.crs_[waits].outstanding, 1u);  // the spare's replica job
  ASSERT_EQ(core.jobs_.live(), 1u);
  EXPECT_EQ(core.jobs_[0].cr, waits);
  EXPECT_EQ(core.jobs_[0].node, 2u);
  EXPECT_EQ(s->armed(), 1 * kSec + 7 * kMs);  // the next timer's event
  h.set_now(1 * kSec + 7 * kMs);
  s->on_event(0, 0);
  EXPECT_EQ(s->reads(), 1u);  // the answered request sends nothing
  EXPECT_EQ(s->pending(), 0u);
}

// A threshold at or above the read timeout never speculates: no timer.
TEST(SpecRetryCore, ThresholdAtTheTimeoutArmsNothing) {
  testing::CoreHarness h(spec_core_scenario("5000ms"));
  SpecRetry* s = h.mechanism<SpecRetry>();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(h.core().request_timeout(OpKind::Read), 5 * kSec);
  const std::uint32_t cr = live_read(h, 0, 0, 1);
  const std::array<NodeId, 2> t{0, 1};
  EXPECT_EQ(h.core().hooks_.read_split(cr, 1, t).send, 1u);
  EXPECT_EQ(s->pending(), 0u);
  EXPECT_EQ(h.core().q_.size(), 0u);
}

// ScyllaDB's percentile threshold: the empty histogram gives 1 ms (whole ms, at least 1), kept for
// a second; then the p99 bucket of the reads answered (2.5 ms: offset 2,759 us, 2 ms in whole ms).
// An Unavailable read is no latency; a read timeout is one (at the timeout, 5 s).
TEST(SpecRetryCore, ScyllaPercentileFromTheAnsweredReads) {
  testing::CoreHarness h(spec_core_scenario("99.0PERCENTILE", "scylla-2025.1"));
  SpecRetry* s = h.mechanism<SpecRetry>();
  ASSERT_NE(s, nullptr);
  auto& core = h.core();
  EXPECT_FALSE(core.hooks_.read_done.empty());
  const std::uint32_t cr = live_read(h, 0, 0, 1);
  const std::array<NodeId, 2> t{0, 1};
  EXPECT_EQ(core.hooks_.read_split(cr, 1, t).send, 1u);
  EXPECT_EQ(s->armed(), 1 * kMs);  // the empty histogram's threshold
  h.set_now(500 * kMs);
  for (int i = 0; i < 100; ++i) answer(h, 0, 2500 * kUs);
  for (int i = 0; i < 2; ++i) answer(h, 0, 4 * kSec, false, ErrorKind::Unavailable);
  EXPECT_EQ(s->threshold(0), 1 * kMs);  // not recomputed within the second
  h.set_now(1500 * kMs);
  ASSERT_EQ(offset_at_least_us(2500), 2759);
  EXPECT_EQ(s->threshold(0), 2 * kMs);
  EXPECT_EQ(s->threshold(1), 1 * kMs);  // per coordinator: b heard nothing

  // The counts were multiplied by 0.9 (90 reads of 2.5 ms left); 2 timeouts at 5 s make 92, and
  // the p99 (the 92nd) is in the bucket of 5 s. Had the Unavailable ones counted, the first
  // threshold above would have been in the bucket of 4 s (the 101st of 102).
  for (int i = 0; i < 2; ++i) answer(h, 0, 5 * kSec, false, ErrorKind::ReadTimeout);
  h.set_now(2600 * kMs);
  const auto want_ms = static_cast<std::int64_t>(offset_at_least_us(5e6)) / 1000;
  EXPECT_EQ(s->threshold(0), want_ms * kMs);
}

// Cassandra's: read_request_timeout / 2 until the periodic task, every read_request_timeout from
// the start, finds data; then the p99 bucket's offset in microseconds (2,759 us for 2.5 ms reads).
TEST(SpecRetryCore, CassandraPercentileOnItsPeriod) {
  testing::CoreHarness h(spec_core_scenario("99.0PERCENTILE", "cassandra-4.1"));
  SpecRetry* s = h.mechanism<SpecRetry>();
  ASSERT_NE(s, nullptr);
  const SimTime period = h.core().request_timeout(OpKind::Read);
  h.set_now(1 * kSec);
  for (int i = 0; i < 100; ++i) answer(h, 0, 2500 * kUs);
  h.set_now(period - 1);
  EXPECT_EQ(s->threshold(0), period / 2);
  h.set_now(period);
  EXPECT_EQ(s->threshold(0), static_cast<SimTime>(offset_at_least_us(2500) * 1e3));
  EXPECT_EQ(s->threshold(2), period / 2);  // c heard nothing: the first value stays
}

}  // namespace
}  // namespace lbsim
