// Memory and output estimates before a run (issue 44 point 16): `run` and `sweep` refuse, with
// exit 2 and the estimate, a command whose memory estimate exceeds the limit (half the machine's
// memory by default, `--max-memory SIZE` to change it), instead of growing until std::bad_alloc.
//
// The terms (docs/commands.md, "Memory and output estimates", gives them with their sources):
// - process: the binary, its libraries, the scenario (kProcessBytes);
// - ring: the placement's lookup tables (TokenRing::lookup_bytes: ring tokens x (8-byte token +
//   replicas x 2 orders x 4 bytes) + buckets), twice (the engine's copy and a driver's own map);
// - cache: cluster.cache entries x 48 bytes (sim/cache/lru.hpp's bound per cached key); the
//   entries: each cache (node, or shard under per_shard) holds at most its capacity / the mean
//   partition size, the cluster at most keys x replicas per range, and a cold cache at most the
//   run's reads x replicas per range;
// - shards: per simulated shard, its queue, meters and report row in memory (kShardBytes);
// - reports: each report's JSON text (kReportBase + nodes x kNodeBytes + shards x kShardRowBytes
//   + nodes x 64 timeline points x kTimelineCellBytes), and kDomFactor bytes of parsed document
//   per byte of text for each report the command keeps in memory (run keeps every policy's, a
//   batch every job's);
// - grid points (sweep): each point's validated scenario, its ring included (kPointBytes + ring).
// Simulations running in parallel (--jobs) each hold their ring copy, caches and shards.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/scenario.hpp"

namespace lbsim {

struct ResourceTerm {
  std::string what;     // "cache: 3 caches x 1,000,000 entries x 48 B"
  std::string path;     // the JSON path (or option) that drives it, "/cluster/cache/capacity_mb"
  double bytes = 0;
};

struct ResourceEstimate {
  std::vector<ResourceTerm> terms;
  double memory = 0;       // bytes: the sum of the terms
  double output = 0;       // bytes of reports written
  double report_bytes = 0; // one report's JSON text
};

// `runs` simulations of `sc`, at most `parallel` at once; `kept_reports`: reports held in memory.
ResourceEstimate estimate_runs(const Scenario& sc, std::size_t runs, std::size_t parallel, std::size_t kept_reports);
// Adds `points` validated grid points of the sweep of `base` (before any is loaded).
void add_grid_points(ResourceEstimate& e, const Scenario& base, double points);

// The machine's physical memory in bytes (sysconf), 0 when unknown.
std::uint64_t machine_memory_bytes();
// "SIZE": bytes, or a number with K, M, G or T (powers of 1024, "GiB" and "GB" alike); ConfigError
// naming `option` otherwise.
std::uint64_t parse_size(const std::string& text, const std::string& option);
// "1.5 GiB", "730 MiB", "12 KiB", "800 B".
std::string format_bytes(double bytes);

// ConfigError (exit 2) when e.memory > limit: the scenario file, the largest term's path, the
// estimate with its terms, the limit and how to change it. `limit_text` says where the limit
// comes from ("half of this machine's 24.0 GiB" or "--max-memory 4G").
void refuse_over_memory(const ResourceEstimate& e, const std::string& file, double limit, const std::string& limit_text);

}  // namespace lbsim
