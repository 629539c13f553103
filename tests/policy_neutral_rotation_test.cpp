// TokenAware NEUTRAL jumps through a round-robin child's rotation by position (issue 14). The
// plans must be the walk's, host for host: the usable replicas in child order, then every other
// host in child order. Checked against the bare child's plans (a twin policy with the same seed,
// so the same round-robin index) over many keys, with nodes going down and up between plans, for
// DCAware (with remote hosts), RackAware and RoundRobin children, and for LatencyAware over DCAware
// with slow hosts it excludes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "policies/plan_util.hpp"
#include "policies/registry.hpp"
#include "sim/cluster/ring.hpp"
#include "sim/core/rng.hpp"
#include "policy_test_util.hpp"

namespace lbsim::neutral_rotation_test {

using policy::HostId;
using policy::kNoHost;
using policy::PlanRandom;

std::vector<HostId> drain(policy::Plan* p) {
  std::vector<HostId> out;
  for (HostId h = p->next(); h != kNoHost; h = p->next()) out.push_back(h);
  return out;
}

// Latency samples fed to both policies before each plan (LatencyAware children): `slow` hosts
// answer 10x slower than the others, so that they are excluded once they have min_measure samples.
struct Samples {
  std::vector<HostId> slow;
  int per_plan = 0;
};

struct Counts {
  std::size_t positions = 0;     // hosts compared
  std::size_t deferred_last = 0;  // plans whose walk ended with a slow host of the local DC
};

Counts check(const std::string& child_spec, int steps, const Samples& samples = {}) {
  SCOPED_TRACE(child_spec);
  std::vector<std::vector<std::string>> racks(2);
  for (int i = 0; i < 40; ++i) racks[0].push_back("r" + std::to_string(1 + i % 3));
  for (int i = 0; i < 25; ++i) racks[1].push_back("r" + std::to_string(1 + i % 2));
  const Topology topo = policy::testing::scassandra({40, 25}, racks);
  const TokenRing ring(topo, policy::testing::nts({{"dc1", 3}, {"dc2", 3}}));
  const auto child = nlohmann::json::parse(child_spec);
  auto neutral = policy::make_policy({{"type", "TokenAware"}, {"ordering", "NEUTRAL"}, {"child", child}}, "", {&topo});
  auto bare = policy::make_policy(child, "", {&topo});
  policy::ClusterView view(topo);
  Rng r1(11), r2(11), events(3);
  neutral->init(view, r1);
  bare->init(view, r2);
  policy::PlanArena a1, a2;
  Counts counts;
  SimTime now = 0;
  for (int i = 0; i < steps; ++i) {
    now += 200'000;  // 0.2 ms between plans: LatencyAware's minimum is recomputed every 100 ms
    for (int k = 0; k < samples.per_plan; ++k) {
      const auto h = static_cast<HostId>(events.below(topo.size()));
      const bool slow = std::find(samples.slow.begin(), samples.slow.end(), h) != samples.slow.end();
      const SimTime latency = (slow ? 5'000'000 : 500'000) + static_cast<SimTime>(events.below(100'000));
      neutral->on_response(h, now, latency, policy::ResponseKind::Success);
      bare->on_response(h, now, latency, policy::ResponseKind::Success);
    }
    if (i % 37 == 36) {  // a node goes down or comes back, between plans
      const auto h = static_cast<HostId>(events.below(topo.size()));
      const bool up = !view.is_up(h);
      view.set_up(h, up);
      if (up) {
        neutral->on_up(h);
        bare->on_up(h);
      } else {
        neutral->on_down(h);
        bare->on_down(h);
      }
    }
    policy::Request req;
    req.routed = true;
    req.token = static_cast<Token>(events.next_u64());
    req.replicas = ring.replicas(req.token, ReplicaOrder::Driver);
    req.cl = i % 2 ? ConsistencyLevel::LocalOne : ConsistencyLevel::Quorum;
    req.now = now;
    a1.reset();
    a2.reset();
    PlanRandom p1(r1), p2(r2);
    const auto got = drain(neutral->new_plan(req, p1, a1));
    const auto walk = drain(bare->new_plan(req, p2, a2));
    std::vector<HostId> want;
    for (HostId h : walk)
      if (view.is_up(h) && neutral->distance(h) == policy::Distance::Local &&
          std::find(req.replicas.begin(), req.replicas.end(), h) != req.replicas.end())
        want.push_back(h);
    for (HostId h : walk)
      if (std::find(want.begin(), want.end(), h) == want.end()) want.push_back(h);
    EXPECT_EQ(got, want) << "plan " << i;
    if (got != want) return counts;
    counts.positions += got.size();
    if (!walk.empty() && topo.node_dc[walk.back()] == 0 &&
        std::find(samples.slow.begin(), samples.slow.end(), walk.back()) != samples.slow.end())
      ++counts.deferred_last;
  }
  EXPECT_GT(counts.positions, static_cast<std::size_t>(steps) * 20);
  return counts;
}

TEST(NeutralRotation, DcAwareWithRemoteHosts) {
  check(R"({"type":"DCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":2})", 2000);
}
TEST(NeutralRotation, RackAware) {
  check(R"({"type":"RackAwareRoundRobin","local_dc":"dc1","local_rack":"r2"})", 2000);
}
TEST(NeutralRotation, RoundRobin) { check(R"({"type":"RoundRobin"})", 2000); }

// LatencyAware between NEUTRAL and the round-robin plan (configs/slow-node.json's policy): the slow
// hosts it excludes go to the end of its plan, so they are not at their rotation positions. The
// plans must still be the walk's, with hosts of both DCs slow (remote ones are never in the
// rotation) and, in the second case, more slow hosts in a range than pass() keeps on the stack.
TEST(NeutralRotation, LatencyAwareDefersItsSlowHostsAsItsWalkDoes) {
  const char* spec =
      R"({"type":"LatencyAware","min_measure":5,"child":{"type":"DCAwareRoundRobin","local_dc":"dc1","used_hosts_per_remote_dc":3}})";
  const Counts c = check(spec, 3000, {{2, 7, 8, 19, 33, 41, 50}, 4});
  // The exclusions happened: over a third of the walks ended with a slow local host sent to the end
  // (1,278 of 3,000 when written).
  EXPECT_GT(c.deferred_last, 1000u);
}
TEST(NeutralRotation, LatencyAwareWithMoreSlowHostsThanTheStackHolds) {
  std::vector<HostId> slow;
  for (HostId h = 0; h < 40; h += 2) slow.push_back(h);  // 20 of dc1's 40 hosts
  const Counts c = check(
      R"({"type":"LatencyAware","min_measure":5,"child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})", 2000,
      {slow, 4});
  EXPECT_GT(c.deferred_last, 1000u);  // 1,753 of 2,000 when written
}

// The description a round-robin plan gives is the plan: host at position p is its p-th host, and
// position() inverts at().
TEST(NeutralRotation, RotationDescribesThePlan) {
  const Topology topo = policy::testing::scassandra({7});
  const TokenRing ring(topo, policy::testing::nts({{"dc1", 3}}));
  const auto child = nlohmann::json::parse(R"({"type":"DCAwareRoundRobin","local_dc":"dc1"})");
  auto bare = policy::make_policy(child, "", {&topo});
  policy::ClusterView view(topo);
  Rng r2(5);
  bare->init(view, r2);
  policy::PlanArena a2;
  policy::Request req;
  req.routed = true;
  req.token = 12345;
  req.replicas = ring.replicas(req.token, ReplicaOrder::Driver);
  PlanRandom p2(r2);
  policy::Plan* plan = bare->new_plan(req, p2, a2);
  policy::RotationView v;
  EXPECT_TRUE(plan->rotation(v));
  EXPECT_EQ(v.length(), 7u);
  std::vector<HostId> by_position;
  for (std::size_t p = 0; p < v.length(); ++p) by_position.push_back(v.at(p));
  EXPECT_EQ(drain(plan), by_position);
  for (std::size_t p = 0; p < v.length(); ++p) EXPECT_EQ(v.position(by_position[p]), p);
}

// position() through the lists' indexes: a host of the second segment is found there (the first
// segment's index says it is absent: no look-up of that list), and a snapshot that a later change
// made stale is looked up in its own contents.
TEST(NeutralRotation, PositionsComeFromTheIndexOrFromAStaleSnapshotsContents) {
  policy::CowList rack, others;
  for (HostId h : {4, 1, 7}) rack.add_if_absent(h);
  for (HostId h : {2, 9, 5, 3}) others.add_if_absent(h);
  policy::RotationView v;
  v.seg[0] = {rack.snapshot(), &rack, 1};    // 1 7 4
  v.seg[1] = {others.snapshot(), &others, 3};  // 3 2 9 5
  v.count = 2;
  ASSERT_TRUE(rack.is_current(v.seg[0].list));
  const std::vector<HostId> order{1, 7, 4, 3, 2, 9, 5};
  for (std::size_t p = 0; p < order.size(); ++p) {
    EXPECT_EQ(v.at(p), order[p]);
    EXPECT_EQ(v.position(order[p]), p);
  }
  EXPECT_EQ(v.position(6), policy::RotationView::kNone);
  // Host 7 goes down and 6 comes up: the plan's snapshots keep their contents and positions.
  rack.remove(7);
  others.add_if_absent(6);
  EXPECT_FALSE(rack.is_current(v.seg[0].list));
  EXPECT_FALSE(others.is_current(v.seg[1].list));
  for (std::size_t p = 0; p < order.size(); ++p) EXPECT_EQ(v.position(order[p]), p);
  EXPECT_EQ(v.position(6), policy::RotationView::kNone);
}

}  // namespace lbsim::neutral_rotation_test
