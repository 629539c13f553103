// The event set alone, as a "hold" loop: pop the earliest event, push one at now + an exponential
// increment, with a constant number of pending events (the argument: 260 is the default
// scenario's mean count of pending events at a pop, 13,070 its mean with 10,000 client threads;
// both measured over 1M operations on 2026-12-01, as the size of the set when each pop began;
// until then the loops ran at the 336 and 16,384). Issue 14 compares the engine's
// cost per event (BM_RunDefaultScenario: ns_per_op / events per op) with this bare loop, for
// lbsim's EventQueue (the calendar queue the engine uses), its 4-ary EventHeap (the previous
// event set, now the calendar's overflow) and std::priority_queue (a binary heap).
//   ./build/lbsim_bench --benchmark_filter=Hold
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <queue>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/engine/event_queue.hpp"

namespace lbsim_bench_heap {

// Pre-drawn increments (mean 1 us), so the loop measures the heap, not the generator.
std::vector<lbsim::SimTime> increments() {
  lbsim::Rng rng(9);
  std::vector<lbsim::SimTime> v(1 << 16);
  for (auto& x : v) x = static_cast<lbsim::SimTime>(rng.exponential(1000.0)) + 1;
  return v;
}

void BM_HoldEventQueue(benchmark::State& state) {
  const auto inc = increments();
  lbsim::EventQueue q;
  for (std::int64_t i = 0; i < state.range(0); ++i) q.push(inc[static_cast<std::size_t>(i) & 0xffff], 1, 0);
  std::size_t k = 0;
  for (auto _ : state) {
    const auto e = q.pop();
    q.push(e.at + inc[k++ & 0xffff], e.type(), e.id());
  }
  benchmark::DoNotOptimize(q.size());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HoldEventQueue)->Arg(260)->Arg(13070);

void BM_HoldEventHeap(benchmark::State& state) {
  const auto inc = increments();
  lbsim::EventHeap q;
  std::uint64_t seq = 0;
  for (std::int64_t i = 0; i < state.range(0); ++i) q.push({inc[static_cast<std::size_t>(i) & 0xffff], seq++ << 28});
  std::size_t k = 0;
  for (auto _ : state) {
    const auto e = q.pop();
    q.push({e.at + inc[k++ & 0xffff], seq++ << 28});
  }
  benchmark::DoNotOptimize(q.top());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HoldEventHeap)->Arg(260)->Arg(13070);

void BM_HoldBinaryHeap(benchmark::State& state) {
  const auto inc = increments();
  struct Ev {
    lbsim::SimTime at;
    std::uint64_t key;
    bool operator>(const Ev& o) const { return at != o.at ? at > o.at : key > o.key; }
  };
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> q;
  std::uint64_t seq = 0;
  for (std::int64_t i = 0; i < state.range(0); ++i) q.push({inc[static_cast<std::size_t>(i) & 0xffff], seq++});
  std::size_t k = 0;
  for (auto _ : state) {
    const Ev e = q.top();
    q.pop();
    q.push({e.at + inc[k++ & 0xffff], seq++});
  }
  benchmark::DoNotOptimize(q.top());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HoldBinaryHeap)->Arg(260)->Arg(13070);

}  // namespace lbsim_bench_heap
