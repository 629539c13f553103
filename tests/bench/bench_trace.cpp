// Trace replay (issue 14): records parsed per second by the streaming TraceReader (target: >= 5M/s),
// and the memory a pass takes for 1M vs 4M records (it must not grow with the file's length).
//   ./build-bench/lbsim_bench --benchmark_filter=Trace
// The traces are written once per process to the temporary folder (about 60 bytes a record: a
// time with decimals, read or write, a 16-byte key, a consistency level on one record in four)
// and removed at exit.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include "sim/config/scenario_parts.hpp"
#include "sim/workload/trace_reader.hpp"

namespace {

std::map<std::size_t, std::string>& bench_traces() {
  static std::map<std::size_t, std::string> files;
  return files;
}

void remove_bench_traces() {
  for (const auto& [n, file] : bench_traces()) std::remove(file.c_str());
}

const std::string& bench_trace(std::size_t records) {
  auto& files = bench_traces();
  if (auto it = files.find(records); it != files.end()) return it->second;
  if (files.empty()) std::atexit(remove_bench_traces);
  const std::string file =
      (std::filesystem::temp_directory_path() / fmt::format("lbsim_bench_trace_{}_{}.csv", ::getpid(), records)).string();
  std::FILE* f = std::fopen(file.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + file);
  std::fputs("time_us,op,key_hex,cl\n", f);
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (std::size_t i = 0; i < records; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const std::uint64_t y = x * 0xbf58476d1ce4e5b9ULL;
    fmt::print(f, "{}.{:03},{},{:016x}{:016x}{}\n", i * 25 / 10, i % 1000, x % 10 < 7 ? "read" : "write", x, y,
               i % 4 == 0 ? ",LOCAL_QUORUM" : "");
  }
  std::fclose(f);
  return files[records] = file;
}

// Resident set size now (/proc/self/statm), bytes.
std::size_t rss_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long pages = 0, resident = 0;
  const int got = std::fscanf(f, "%lu %lu", &pages, &resident);
  std::fclose(f);
  return got == 2 ? resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

// Records parsed per second: one streamed pass over the file per iteration (the page cache warm).
void BM_TraceParse(benchmark::State& state) {
  const auto records = static_cast<std::size_t>(state.range(0));
  const std::string& file = bench_trace(records);
  std::uint64_t n = 0;
  for (auto _ : state) {
    lbsim::TraceReader rd(file, "/workload/trace/file");
    lbsim::TraceRecord r;
    std::int64_t sum = 0;
    while (rd.next(r)) sum += r.token;
    benchmark::DoNotOptimize(sum);
    n = rd.records();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(n) * state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(std::filesystem::file_size(file)) * state.iterations());
}
BENCHMARK(BM_TraceParse)->Arg(2'000'000)->Unit(benchmark::kMillisecond);

// Memory of the scenario-load pass (validation and summary, what `lbsim run` / `analyze` do before
// running) and of a replay pass, for a 1M- and a 4M-record trace:
// - load_heap_KB: heap still held after the load pass (the summary);
// - stream_rss_growth_KB: the largest growth of the resident set during a replay pass, sampled
//   every 64k records, over the resident set before the reader was opened;
// - file_MB: the trace's size, for comparison.
void BM_TraceMemory(benchmark::State& state) {
  const auto records = static_cast<std::size_t>(state.range(0));
  const std::string& file = bench_trace(records);
  std::size_t held = 0, growth = 0;
  for (auto _ : state) {
    const std::size_t heap_before = mallinfo2().uordblks + mallinfo2().hblkhd;
    {
      const auto summary = lbsim::scenario_detail::summarize_trace(file, "/workload/trace/file");
      const std::size_t heap_after = mallinfo2().uordblks + mallinfo2().hblkhd;
      held = heap_after > heap_before ? heap_after - heap_before : 0;
      benchmark::DoNotOptimize(summary->records);
    }
    const std::size_t before = rss_bytes();
    lbsim::TraceReader rd(file, "/workload/trace/file");
    lbsim::TraceRecord r;
    std::size_t peak = before;
    while (rd.next(r))
      if ((rd.records() & 0xffff) == 0) peak = std::max(peak, rss_bytes());
    growth = std::max(peak, rss_bytes()) - before;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(records) * state.iterations());
  state.counters["load_heap_KB"] = static_cast<double>(held) / 1024.0;
  state.counters["stream_rss_growth_KB"] = static_cast<double>(growth) / 1024.0;
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(file)) / 1e6;
}
BENCHMARK(BM_TraceMemory)->Arg(1'000'000)->Arg(4'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
