// NodeModel's time integrals against a plain reference: every work item kept with its arrival and
// end, the in-system integral up to t summed item by item. Bursts build queues hundreds deep and
// idle spells drain them, so the ring of pending ends (issue 14) trims, wraps and grows with its
// head anywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/engine/node_model.hpp"

namespace lbsim {
namespace {

TEST(NodeModel, InSystemIntegralMatchesTheItemByItemSumThroughBurstsAndDrains) {
  NodeModelSpec spec;
  spec.shards = 2;
  spec.discipline = Discipline::PerShard;
  const FaultSpec faults;
  NodeModel model(spec, 1, faults);
  struct Item {
    SimTime arrival, end;
  };
  std::vector<Item> items;
  Rng rng(5);
  SimTime now = 0;
  std::uint64_t checks = 0;
  std::size_t deepest = 0;
  for (int round = 0; round < 60; ++round) {
    // A burst: arrivals 1 us apart on average, service 20 us: the queues grow.
    const int burst = 50 + static_cast<int>(rng.below(900));
    for (int k = 0; k < burst; ++k) {
      now += static_cast<SimTime>(rng.exponential(1000.0));
      const double service = rng.exponential(20000.0);
      const SimTime end = model.enqueue(0, static_cast<std::uint32_t>(rng.below(2)), now, service);
      ASSERT_GE(end, now);
      items.push_back({now, end});
      // The reference: the integral of the number of items in the system over [0, now].
      if (rng.below(16) == 0) {
        SimTime expected = 0;
        std::size_t pending = 0;
        for (const Item& it : items) {
          expected += std::min(it.end, now) - it.arrival;
          pending += it.end > now ? 1 : 0;
        }
        deepest = std::max(deepest, pending);
        ASSERT_EQ(model.snapshot(0, now).in_system, expected) << "round " << round << ", item " << items.size();
        ++checks;
      }
    }
    // An idle spell: part or all of the backlog drains before the next burst.
    now += static_cast<SimTime>(rng.exponential(4'000'000.0));
  }
  EXPECT_GT(checks, 1000u);
  EXPECT_GT(deepest, 300u);  // the ring held hundreds of ends (grown past 64 more than once)
}

// Each node's state is its own (issue 14 moved a node's servers, counters and fault data into
// separate dense arrays): a model of three nodes, each with its own speed, slow-downs, pauses and
// downs, answers every arrival, snapshot and state query exactly as three one-node models fed
// only their node's arrivals and faults, for both disciplines.
TEST(NodeModel, NodesOfOneModelBehaveAsSeparateOneNodeModels) {
  for (const Discipline discipline : {Discipline::PerShard, Discipline::Shared}) {
    NodeModelSpec spec;
    spec.shards = 3;
    spec.discipline = discipline;
    spec.speed = {1.0, 0.5, 2.0};
    FaultSpec faults;
    faults.events.push_back({2'000'000, 1, FaultKind::Slow, 3'000'000, 4.0});
    faults.events.push_back({1'000'000, 2, FaultKind::Pause, 500'000, 1.0});
    faults.events.push_back({1'200'000, 2, FaultKind::Pause, 800'000, 1.0});  // overlaps: merged
    faults.events.push_back({6'000'000, 2, FaultKind::Pause, 300'000, 1.0});
    NodeModel all(spec, 3, faults);
    std::vector<NodeModel> one;
    std::vector<NodeModelSpec> specs(3, spec);
    std::vector<FaultSpec> own(3);
    for (NodeId n = 0; n < 3; ++n) {
      specs[n].speed = {spec.speed[n]};
      for (FaultEvent f : faults.events)
        if (f.node == n) {
          f.node = 0;
          own[n].events.push_back(f);
        }
    }
    for (NodeId n = 0; n < 3; ++n) one.emplace_back(specs[n], 1, own[n]);
    Rng rng(77);
    SimTime now = 0;
    std::uint64_t dropped = 0, paused = 0, downs = 0;
    for (int k = 0; k < 20'000; ++k) {
      now += static_cast<SimTime>(rng.exponential(500.0));
      const auto n = static_cast<NodeId>(rng.below(3));
      const auto shard = static_cast<std::uint32_t>(rng.below(4));  // 3 folds onto a server
      const double service = rng.exponential(3000.0);
      const SimTime deadline = rng.below(4) == 0 ? now + static_cast<SimTime>(rng.below(20'000)) : kNoDeadline;
      const SimTime got = all.enqueue(n, shard, now, service, deadline);
      ASSERT_EQ(got, one[n].enqueue(0, shard, now, service, deadline)) << "arrival " << k;
      dropped += got == kDropped;
      if (rng.below(50) == 0) {  // node 2 goes down or comes back
        if (all.up(2)) {
          all.set_down(2, now);
          one[2].set_down(0, now);
          ++downs;
        } else {
          all.set_up(2, now);
          one[2].set_up(0, now);
        }
      }
      for (NodeId m = 0; m < 3; ++m) {
        ASSERT_EQ(all.up(m), one[m].up(0));
        ASSERT_EQ(all.epoch(m), one[m].epoch(0));
        ASSERT_EQ(all.paused_until(m, now), one[m].paused_until(0, now));
        ASSERT_EQ(all.went_down(m, 0, now + 1), one[m].went_down(0, 0, now + 1));
        paused += all.paused_until(m, now) > now;
      }
      if (k % 97 == 0) {
        const NodeSnapshot a = all.snapshot(n, now), b = one[n].snapshot(0, now);
        ASSERT_EQ(a.busy, b.busy);
        ASSERT_EQ(a.in_system, b.in_system);
        ASSERT_EQ(a.server_busy, b.server_busy);
        ASSERT_EQ(a.counters.sojourn, b.counters.sojourn);
      }
    }
    // The faults and deadlines were exercised.
    EXPECT_GT(dropped, 100u);
    EXPECT_GT(paused, 100u);
    EXPECT_GT(downs, 20u);
  }
}

}  // namespace
}  // namespace lbsim
