// Simulated operations per wall-second of `lbsim run` on the default scenario (6 nodes x 256
// tokens, RF 3, 200 closed-loop threads, TokenAware(RANDOM, DCAwareRoundRobin)), one core, and the
// process's peak memory after 1M and after 10M operations (it must not grow with the length).
//   ./build/lbsim_bench --benchmark_filter=Run
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "sim/config/scenario.hpp"
#include "sim/engine/simulation.hpp"

// The bench target may not define the source folder: fall back to the working directory (run it
// from the repository root) or $LBSIM_SOURCE_DIR.
#ifndef LBSIM_SOURCE_DIR
#define LBSIM_SOURCE_DIR "."
#endif

namespace {

std::string source_dir() {
  const char* env = std::getenv("LBSIM_SOURCE_DIR");
  return env ? env : LBSIM_SOURCE_DIR;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

void run_default(benchmark::State& state, const std::vector<std::string>& extra) {
  const auto ops = static_cast<std::uint64_t>(state.range(0));
  std::vector<std::string> sets{"workload.ops=" + std::to_string(ops), "workload.warmup_ops=0"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  const lbsim::Scenario sc = lbsim::load_scenario(source_dir() + "/configs/default.json", sets);
  const lbsim::PolicyEntry* random = sc.find_policy("random");
  std::uint64_t done = 0, events = 0;
  for (auto _ : state) {
    const lbsim::RunResult r = lbsim::run_simulation(sc, *random, sc.seed);
    done += r.issued;
    events += r.engine.events;
    benchmark::DoNotOptimize(r.latency.count());
  }
  state.counters["sim_ops_per_s"] = benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate);
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["ns_per_op"] =
      benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  // The engine's cost per event, which issue 14 compares with the hold loops of bench_heap.cpp.
  state.counters["ns_per_event"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["peak_rss_mb"] = peak_rss_mb();
}

void BM_RunDefaultScenario(benchmark::State& state) { run_default(state, {}); }
BENCHMARK(BM_RunDefaultScenario)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

// A floor, not a scenario anyone should use: the default scenario with its replica service and
// network times constant at their means, so that no lognormal draw is made (the coordinator's and
// the driver's exponential costs stay). The queues differ a little (less variance), the events per
// operation hardly (6.25 vs 6.26). Its cost per event is about what a sampler costing nothing
// would give, so it shows how far issue 14's "1.3x a bare hold loop" is from sampling alone.
void BM_RunDefaultScenarioConstantTimes(benchmark::State& state) {
  run_default(state, {R"(cluster.service.read={"dist":"constant","us":100})",
                      R"(cluster.service.write={"dist":"constant","us":50})",
                      R"(network.same_rack={"dist":"constant","us":50})",
                      R"(network.same_dc={"dist":"constant","us":100})"});
}
BENCHMARK(BM_RunDefaultScenarioConstantTimes)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
