// The bare "hold" loops that issue 14 compares the engine's cost per event with: pop the earliest
// event, push one at its time + an exponential increment, so that the number of pending events
// stays constant. One step is one hold. Used by bench_heap.cpp (each loop alone) and by
// bench_run.cpp (BM_EventCostRatio: interleaved with the engine).
#pragma once
#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/engine/event_queue.hpp"

namespace lbsim_bench_hold {

// Pre-drawn increments (mean 1 us), so the loop measures the event set, not the generator.
inline std::vector<lbsim::SimTime> increments() {
  lbsim::Rng rng(9);
  std::vector<lbsim::SimTime> v(1 << 16);
  for (auto& x : v) x = static_cast<lbsim::SimTime>(rng.exponential(1000.0)) + 1;
  return v;
}

// lbsim's EventQueue (the calendar queue the engine uses).
class CalendarHold {
 public:
  explicit CalendarHold(std::size_t pending) : inc_(increments()) {
    for (std::size_t i = 0; i < pending; ++i) q_.push(inc_[i & 0xffff], 1, 0);
  }
  void step() {
    const auto e = q_.pop();
    q_.push(e.at + inc_[k_++ & 0xffff], e.type(), e.id());
  }
  std::size_t size() const { return q_.size(); }

 private:
  std::vector<lbsim::SimTime> inc_;
  lbsim::EventQueue q_;
  std::size_t k_ = 0;
};

// lbsim's 4-ary EventHeap (the previous event set, now the calendar's overflow).
class FourAryHold {
 public:
  explicit FourAryHold(std::size_t pending) : inc_(increments()) {
    for (std::size_t i = 0; i < pending; ++i) q_.push({inc_[i & 0xffff], seq_++ << 28});
  }
  void step() {
    const auto e = q_.pop();
    q_.push({e.at + inc_[k_++ & 0xffff], seq_++ << 28});
  }
  lbsim::SimTime top() const { return q_.top().at; }

 private:
  std::vector<lbsim::SimTime> inc_;
  lbsim::EventHeap q_;
  std::uint64_t seq_ = 0;
  std::size_t k_ = 0;
};

// std::priority_queue: a binary heap.
class BinaryHold {
 public:
  explicit BinaryHold(std::size_t pending) : inc_(increments()) {
    for (std::size_t i = 0; i < pending; ++i) q_.push({inc_[i & 0xffff], seq_++});
  }
  void step() {
    const Ev e = q_.top();
    q_.pop();
    q_.push({e.at + inc_[k_++ & 0xffff], seq_++});
  }
  lbsim::SimTime top() const { return q_.top().at; }

 private:
  struct Ev {
    lbsim::SimTime at;
    std::uint64_t key;
    bool operator>(const Ev& o) const { return at != o.at ? at > o.at : key > o.key; }
  };
  std::vector<lbsim::SimTime> inc_;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> q_;
  std::uint64_t seq_ = 0;
  std::size_t k_ = 0;
};

}  // namespace lbsim_bench_hold
