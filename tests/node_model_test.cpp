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

}  // namespace
}  // namespace lbsim
