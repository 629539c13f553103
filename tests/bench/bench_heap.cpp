// The event set alone, as a "hold" loop: pop the earliest event, push one at now + an exponential
// increment, with a constant number of pending events (the argument: 260 is the default
// scenario's mean count of pending events at a pop, 13,070 its mean with 10,000 client threads;
// both measured over 1M operations on 2026-12-01, as the size of the set when each pop began;
// until then the loops ran at the 336 and 16,384). Issue 14 compares the engine's
// cost per event (BM_RunDefaultScenario: ns_per_op / events per op) with this bare loop, for
// lbsim's EventQueue, its 4-ary EventHeap and std::priority_queue (hold_loops.hpp);
// BM_EventCostRatio (bench_run.cpp) interleaves them with the engine.
//   ./build-bench/lbsim_bench --benchmark_filter=Hold
#include <benchmark/benchmark.h>

#include "hold_loops.hpp"

namespace lbsim_bench_heap {

using namespace lbsim_bench_hold;

void BM_HoldEventQueue(benchmark::State& state) {
  CalendarHold h(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) h.step();
  benchmark::DoNotOptimize(h.size());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HoldEventQueue)->Arg(260)->Arg(13070);

void BM_HoldEventHeap(benchmark::State& state) {
  FourAryHold h(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) h.step();
  benchmark::DoNotOptimize(h.top());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HoldEventHeap)->Arg(260)->Arg(13070);

void BM_HoldBinaryHeap(benchmark::State& state) {
  BinaryHold h(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) h.step();
  benchmark::DoNotOptimize(h.top());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HoldBinaryHeap)->Arg(260)->Arg(13070);

}  // namespace lbsim_bench_heap
