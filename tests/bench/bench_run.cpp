// Simulated operations per wall-second of `lbsim run` on the default scenario (6 nodes x 256
// tokens, RF 3, 200 closed-loop threads, TokenAware(RANDOM, DCAwareRoundRobin)), one core, and the
// process's peak memory after 1M and after 10M operations (it must not grow with the length).
//   ./build/lbsim_bench --benchmark_filter=Run
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

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

void BM_RunDefaultScenario(benchmark::State& state) {
  const auto ops = static_cast<std::uint64_t>(state.range(0));
  const lbsim::Scenario sc = lbsim::load_scenario(source_dir() + "/configs/default.json",
                                                  {"workload.ops=" + std::to_string(ops), "workload.warmup_ops=0"});
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
  state.counters["peak_rss_mb"] = peak_rss_mb();
}
BENCHMARK(BM_RunDefaultScenario)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
