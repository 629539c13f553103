// EventQueue: total (time, sequence) order; DeadlineFifo order.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <set>
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
  // 50,000 events within 1 us crowd the initial 1.024 us slot: the queue re-shaped from their
  // spread to 1 ns slots (else each insertion would walk a list of thousands).
  EXPECT_EQ(q.slot_shift(), 0u);
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

// The calendar queue against the 4-ary heap as a reference, in a hold loop (pop one, schedule
// one to three) whose density and delays change by phase, so that the slot width and the ring
// size adapt several times while events are pending: ties (zero delays), short service-like
// delays, long queue-like ones and far timeouts beyond any horizon.
TEST(EventQueue, MatchesTheHeapWhileItsGeometryAdapts) {
  EventQueue q;
  EventHeap ref;
  Rng rng(7);
  std::uint64_t seq = 0;
  auto push = [&](SimTime at, std::uint32_t type, std::uint32_t id) {
    q.push(at, type, id);
    ref.push({at, (seq++ << 28) | (std::uint64_t{type} << 24) | id});
  };
  for (std::uint32_t i = 0; i < 300; ++i) push(static_cast<SimTime>(rng.below(5000)), i % 16, i);
  struct Phase {
    double mean_ns;   // typical delay
    int pending;      // target pending count
    std::uint64_t pops;
  };
  const Phase phases[] = {{2000, 300, 40000}, {5, 2000, 40000}, {5e6, 20000, 60000}, {30, 50, 40000}, {1e8, 500, 30000}};
  std::vector<unsigned> shifts, horizons;  // log2 of the slot width and of the ring's span
  std::size_t max_slots = 0;
  SimTime now = 0;
  for (const Phase& ph : phases) {
    for (std::uint64_t k = 0; k < ph.pops; ++k) {
      ASSERT_EQ(q.size(), ref.size());
      const auto a = q.pop();
      const auto b = ref.pop();
      ASSERT_EQ(a.at, b.at);
      ASSERT_EQ(a.key, b.key);
      ASSERT_GE(a.at, now);
      now = a.at;
      const int size = static_cast<int>(q.size());
      const int n = size < ph.pending ? 3 : (size > 2 * ph.pending ? 0 : 1);
      for (int j = 0; j < n; ++j) {
        const std::uint64_t r = rng.below(100);
        SimTime d = 0;
        if (r < 5) d = 0;                                   // a tie with the current event
        else if (r < 7) d = 12'000'000'000;                 // a far timeout
        else d = static_cast<SimTime>(rng.exponential(ph.mean_ns));
        push(now + d, static_cast<std::uint32_t>(r % 16), static_cast<std::uint32_t>(rng.below(EventQueue::kMaxId)));
      }
    }
    shifts.push_back(q.slot_shift());
    horizons.push_back(q.slot_shift() + static_cast<unsigned>(std::countr_zero(q.slots())));
    max_slots = std::max(max_slots, q.slots());
  }
  while (!ref.empty()) {
    const auto a = q.pop();
    const auto b = ref.pop();
    ASSERT_EQ(a.at, b.at);
    ASSERT_EQ(a.key, b.key);
  }
  EXPECT_TRUE(q.empty());
  // The geometry followed the phases: slots about as wide as the gap between events (phase 1:
  // a few ns, reached through a crowded slot; phase 4: 100 ms / 500 = 200 us, 2^18), and a ring
  // grown past its initial 4,096 slots to cover phase 2's 5 ms delays. The ring stops at 8,192
  // slots (64 KiB, so that it stays in cache), so 5 ms (2^23 ns) asks for 2^10 ns slots in phase 2
  // where the gaps alone (5 ms / 20,000 = 250 ns) would give 2^8; hysteresis keeps up to 4x wider.
  ASSERT_EQ(shifts.size(), 5u);
  EXPECT_LE(shifts[1], 2u);
  EXPECT_GE(shifts[2], 10u);
  EXPECT_LE(shifts[2], 12u);
  // Outside crowded slots the horizon never shrinks (phases 2 to 4 have no crowded slot).
  EXPECT_GE(horizons[3], horizons[2]);
  EXPECT_GE(horizons[4], horizons[3]);
  EXPECT_GE(shifts[4], 17u);
  EXPECT_GT(max_slots, 4096u);
}

// Against the contract (the engine never does it), an event scheduled before the last one popped
// still comes out in (time, sequence) order: it waits in the heap part and wins the comparison.
TEST(EventQueue, OrdersAnEventScheduledInThePast) {
  EventQueue q;
  EventHeap ref;
  Rng rng(11);
  std::uint64_t seq = 0;
  auto push = [&](SimTime at) {
    q.push(at, 1, 7);
    ref.push({at, (seq++ << 28) | (std::uint64_t{1} << 24) | 7});
  };
  for (int i = 0; i < 200; ++i) push(static_cast<SimTime>(rng.below(100000)));
  std::uint64_t past = 0;
  for (int k = 0; k < 100000; ++k) {
    const auto a = q.pop();
    const auto b = ref.pop();
    ASSERT_EQ(a.at, b.at);
    ASSERT_EQ(a.key, b.key);
    const bool back = rng.below(100) == 0 && a.at > 5000;
    past += back ? 1 : 0;
    push(back ? a.at - static_cast<SimTime>(rng.below(5000)) - 1 : a.at + static_cast<SimTime>(rng.exponential(50000)));
  }
  EXPECT_GT(past, 500u);  // the loop did schedule into the past
}

// Lanes (FIFO servers' completions kept out of the calendar until their turn) against the 4-ary
// heap: 64 servers whose backlogs grow to about 100 ms and drain again, other events near and far,
// and lane events scheduled out of their lane's order (placed on their own). Every pop must match.
TEST(EventQueue, LanesKeepTheHeapsOrder) {
  constexpr std::uint32_t kLanes = 64;
  EventQueue q;
  q.set_lanes(kLanes);
  EventHeap ref;
  Rng rng(21);
  std::uint64_t seq = 0;
  auto key = [&](std::uint32_t type, std::uint32_t id) { return (seq++ << 28) | (std::uint64_t{type} << 24) | id; };
  std::vector<SimTime> free_at(kLanes, 0);
  SimTime now = 0;
  std::size_t most_waiting = 0;
  std::uint64_t out_of_order = 0;
  // popped() announces the key of each event it moves from a lane's FIFO into the calendar: that
  // event is pending, is of that lane, and pops later (exactly once).
  std::set<std::uint64_t> announced;
  std::uint64_t announcements = 0;
  auto after_pop = [&](const Event& a) {
    announced.erase(a.key);
    if (a.type() != 1) return;
    const std::uint64_t next = q.popped(a.id(), a);
    if (next == EventQueue::kNoKey) return;
    ++announcements;
    EXPECT_EQ(next & EventQueue::kMaxId, a.id());
    EXPECT_EQ((next >> EventQueue::kIdBits) & 0xf, 1u);
    EXPECT_TRUE(announced.insert(next).second);
  };
  auto add_work = [&](std::uint32_t lane) {
    free_at[lane] = std::max(now, free_at[lane]) + static_cast<SimTime>(rng.exponential(50'000));
    q.push_lane(lane, free_at[lane], 1, lane);
    ref.push({free_at[lane], key(1, lane)});
  };
  for (std::uint32_t l = 0; l < kLanes; ++l) add_work(l);
  q.push(0, 2, 0);
  ref.push({0, key(2, 0)});
  for (std::uint64_t k = 0; k < 400'000; ++k) {
    ASSERT_EQ(q.size(), ref.size());
    const auto a = q.pop();
    const auto b = ref.pop();
    ASSERT_EQ(a.at, b.at);
    ASSERT_EQ(a.key, b.key);
    now = a.at;
    after_pop(a);
    most_waiting = std::max(most_waiting, q.lane_waiting());
    if (a.type() != 2) continue;
    // An arrival: work for a random server (4 per arrival in the first half: backlogs grow; 1 in
    // the second: they drain), the next arrival, now and then a far timeout or an event out of
    // its lane's order.
    const int jobs = k < 200'000 ? 4 : 1;
    for (int j = 0; j < jobs; ++j) add_work(static_cast<std::uint32_t>(rng.below(kLanes)));
    const SimTime next = now + static_cast<SimTime>(rng.exponential(1'000));
    q.push(next, 2, 0);
    ref.push({next, key(2, 0)});
    const std::uint64_t r = rng.below(100);
    if (r < 3) {
      q.push(now + 12'000'000'000, 3, 5);
      ref.push({now + 12'000'000'000, key(3, 5)});
    } else if (r < 6) {
      const auto lane = static_cast<std::uint32_t>(rng.below(kLanes));
      const SimTime at = now + static_cast<SimTime>(rng.below(20'000'000));
      out_of_order += at < free_at[lane] ? 1 : 0;
      q.push_lane(lane, at, 1, lane);
      ref.push({at, key(1, lane)});
    }
  }
  while (!ref.empty()) {
    const auto a = q.pop();
    const auto b = ref.pop();
    ASSERT_EQ(a.at, b.at);
    ASSERT_EQ(a.key, b.key);
    after_pop(a);
  }
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(announced.empty());  // every announced event popped
  EXPECT_GE(announcements, most_waiting);
  EXPECT_EQ(q.lane_waiting(), 0u);
  EXPECT_GT(most_waiting, 10'000u);  // the FIFOs did hold the far completions
  EXPECT_GT(out_of_order, 1'000u);
}

// The sequence numbers' renumbering (EventQueue::renumber), forced every 4,096 pops from a low
// threshold: ring slots, the far heap and the lanes' FIFOs all hold pending events when it
// happens, and the pop order must stay the reference heap's, event for event (each event carries
// a unique id; the keys' sequence fields differ after a renumbering, by design).
TEST(EventQueue, RenumberingKeepsThePopOrder) {
  constexpr std::uint32_t kLanes = 16;
  EventQueue q;
  q.set_lanes(kLanes);
  q.set_renumber_at_for_test(3000);
  EventHeap ref;
  Rng rng(5);
  std::uint64_t seq = 0;
  std::uint32_t next_id = 0;
  std::vector<SimTime> free_at(kLanes, 0);
  SimTime now = 0;
  auto push = [&](SimTime at, std::uint32_t type, std::int32_t lane) {
    const std::uint32_t id = (next_id++ % (1u << 19)) * kLanes + (lane < 0 ? 0u : static_cast<std::uint32_t>(lane));
    if (lane >= 0) q.push_lane(static_cast<std::uint32_t>(lane), at, type, id);
    else q.push(at, type, id);
    ref.push({at, (seq++ << 28) | (std::uint64_t{type} << 24) | id});
  };
  std::uint64_t popped = 0, lane_waiting_most = 0;
  auto check_pop = [&]() {
    const auto a = q.pop();
    const auto b = ref.pop();
    ASSERT_EQ(a.at, b.at) << "pop " << popped;
    ASSERT_EQ(a.type(), b.type()) << "pop " << popped;
    ASSERT_EQ(a.id(), b.id()) << "pop " << popped;
    ++popped;
    now = a.at;
    if (a.type() == 1) q.popped(a.id() % kLanes, a);
    lane_waiting_most = std::max<std::uint64_t>(lane_waiting_most, q.lane_waiting());
    if (a.type() != 2 || popped >= 150'000) return;  // then the pending events drain
    for (int j = 0; j < (popped < 60'000 ? 3 : 1); ++j) {
      const auto lane = static_cast<std::int32_t>(rng.below(kLanes));
      free_at[lane] = std::max(now, free_at[lane]) + static_cast<SimTime>(rng.exponential(40'000));
      push(free_at[lane], 1, lane);
    }
    push(now + static_cast<SimTime>(rng.below(3)) * 1000, 2, -1);  // equal times are common
    if (rng.below(50) == 0) push(now + 20'000'000'000, 3, -1);     // beyond the ring: the heap
  };
  for (int i = 0; i < 4; ++i) push(0, 2, -1);
  while (popped < 150'000) check_pop();
  while (!ref.empty()) check_pop();
  EXPECT_TRUE(q.empty());
  EXPECT_GE(q.renumbered(), 20u);
  EXPECT_GT(lane_waiting_most, 1000u);  // the FIFOs held events through renumberings
  EXPECT_LT(q.next_seq(), 3000u + 8 * 4096u);  // compacted, not grown to the pushes' count
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
