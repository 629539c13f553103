// EventQueue: total (time, sequence) order; DeadlineFifo order.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/engine/event_queue.hpp"
#include "sim/engine/slab.hpp"

namespace lbsim {
namespace {

TEST(EventQueue, PopsInTimeThenSchedulingOrder) {
  EventQueue q;
  Rng rng(1);
  struct Ref {
    SimTime at;
    std::uint32_t order;
  };
  std::vector<Ref> ref;
  for (std::uint32_t i = 0; i < 50000; ++i) {
    const SimTime at = static_cast<SimTime>(rng.below(1000));  // many ties
    q.push(at, i % 16, i);
    ref.push_back({at, i});
  }
  std::stable_sort(ref.begin(), ref.end(), [](const Ref& a, const Ref& b) { return a.at < b.at; });
  for (const auto& r : ref) {
    ASSERT_FALSE(q.empty());
    const auto e = q.pop();
    ASSERT_EQ(e.at, r.at);
    ASSERT_EQ(e.id(), r.order);
    ASSERT_EQ(e.type(), r.order % 16);
  }
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, RejectsPayloadIndexBeyond24Bits) {
  EventQueue q;
  EXPECT_THROW(q.push(0, 0, EventQueue::kMaxId + 1), std::length_error);
}

TEST(DeadlineFifo, KeepsDeadlinesNonDecreasingAndGrows) {
  DeadlineFifo f;
  for (std::uint32_t i = 0; i < 1000; ++i) f.push(static_cast<SimTime>(i % 2 ? i : i + 5), i, 0);
  SimTime last = -1;
  std::uint32_t n = 0;
  while (!f.empty()) {
    EXPECT_GE(f.front().at, last);
    EXPECT_EQ(f.front().id, n++);
    last = f.front().at;
    f.pop();
  }
  EXPECT_EQ(n, 1000u);
}

}  // namespace
}  // namespace lbsim
