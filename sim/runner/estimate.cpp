#include "sim/runner/estimate.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <unistd.h>

#include "sim/core/error.hpp"
#include "sim/mech/cache/cache_spec.hpp"

namespace lbsim {

namespace {

// Bytes of report text, measured on `lbsim run configs/default.json` reports at 6-300 nodes and
// 1-64 shards (docs/commands.md, "Memory and output estimates"): 26 KB at 6 nodes x 4 shards,
// 630 bytes per added node with one shard (its row and timeline), 165 per shard row. Rounded up.
constexpr double kReportBase = 20e3;
constexpr double kNodeBytes = 400;
constexpr double kShardRowBytes = 170;
constexpr double kTimelineCellBytes = 7;  // one count in a node's timeline row
constexpr double kTimelinePoints = 64;    // Timeline::kMaxPoints
// Bytes of a parsed nlohmann::json document per byte of its text: measured 4.2-4.4 (mallinfo2
// around nlohmann::json::parse of 85-210 KB reports), rounded up.
constexpr double kDomFactor = 5;
// Per simulated shard in the engine: queue, meters, snapshots (assumed from the structures' sizes).
constexpr double kShardBytes = 512;
// Per validated grid point besides its ring: measured 9.9 KB (the resident memory of a sweep of
// tests/bad_inputs/base/scenario.json at 100 and 10,000 points, once every point is validated).
constexpr double kPointBytes = 10e3;
constexpr double kLruBytesPerKey = 48;  // sim/cache/lru.hpp
// The process itself: binary, libraries, the scenario, thread stacks (measured 19 MB resident for
// a 500-node run of 2,000 operations), rounded up.
constexpr double kProcessBytes = 32.0 * 1024 * 1024;

std::string grouped(double v) {
  std::string s = fmt::format("{:.0f}", v);
  for (int k = static_cast<int>(s.size()) - 3; k > 0; k -= 3) s.insert(static_cast<std::size_t>(k), ",");
  return s;
}

}  // namespace

std::string format_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (b >= 1024 && u < 5) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.1f} {}", b, units[u]);
}

ResourceEstimate estimate_runs(const Scenario& sc, std::size_t runs, std::size_t parallel, std::size_t kept_reports) {
  ResourceEstimate e;
  const double nodes = static_cast<double>(sc.topology().size());
  const double shards = static_cast<double>(std::max<std::uint32_t>(1, sc.nodes.shards));
  const bool per_shard = sc.nodes.discipline == Discipline::PerShard;
  const double sims = static_cast<double>(std::max<std::size_t>(1, std::min(parallel, runs)));
  const TokenRing& ring = sc.placement();
  const double rf = static_cast<double>(ring.replicas_per_range());

  e.terms.push_back({"process: binary, libraries, scenario", "", kProcessBytes});
  const double ring_bytes = static_cast<double>(ring.lookup_bytes());
  e.terms.push_back({fmt::format("ring: {} ranges x {:.0f} replicas, {} per copy x (1 + {:.0f} simulations)",
                                 grouped(static_cast<double>(ring.size())), rf, format_bytes(ring_bytes), sims),
                     "/cluster/num_tokens", ring_bytes * (1 + sims)});

  const CacheSpec* cache = sc.mech.get<CacheSpec>(MechSpecs::k_cache);
  if (cache) {
    const CacheSpec& c = *cache;
    const double caches = per_shard ? nodes * shards : nodes;
    const double per_cache = c.capacity_bytes / (per_shard ? shards : 1);
    const double mean = std::max(1.0, c.partition_size.mean_ns);
    double entries = caches * std::floor(per_cache / mean);
    std::string bound = "capacity / mean partition size";
    const double keys = static_cast<double>(sc.workload.keys.count) * rf;
    if (!sc.workload.trace && keys < entries) {
      entries = keys;
      bound = "keys x replicas";
    }
    const WorkloadSpec& w = sc.workload;
    double ops = static_cast<double>(w.total_ops());
    if (w.duration > 0) ops = sc.client.mode == LoadMode::Open ? sc.client.rate * to_sec(w.warmup + w.duration) : -1;
    if (c.initial == CacheInitial::Cold && ops >= 0 && ops * rf < entries) {
      entries = ops * rf;
      bound = "a cold cache's reads x replicas";
    }
    e.terms.push_back({fmt::format("cache: {} entries ({}) x 48 B x {:.0f} simulations", grouped(entries), bound, sims),
                       "/cluster/cache/capacity_mb", entries * kLruBytesPerKey * sims});
  }
  const double sim_shards = nodes * shards;
  e.terms.push_back({fmt::format("shards: {} nodes x {:.0f} shards x {:.0f} B x {:.0f} simulations", grouped(nodes),
                                 shards, kShardBytes, sims),
                     "/cluster/shards", sim_shards * kShardBytes * sims});

  const double shard_rows = per_shard && shards > 1 ? sim_shards : 0;
  e.report_bytes = kReportBase + nodes * kNodeBytes + shard_rows * kShardRowBytes +
                   nodes * kTimelinePoints * kTimelineCellBytes * (cache ? 2 : 1);
  e.output = e.report_bytes * static_cast<double>(runs);
  const double held = static_cast<double>(std::max<std::size_t>(kept_reports, 1));
  e.terms.push_back({fmt::format("reports: {} of text each ({} nodes, {} shard rows), {} held parsed x {:.0f}",
                                 format_bytes(e.report_bytes), grouped(nodes), grouped(shard_rows), grouped(held), kDomFactor),
                     shard_rows > 0 ? "/cluster/shards" : "/cluster/datacenters",
                     e.report_bytes * (held * kDomFactor + sims)});
  for (const auto& t : e.terms) e.memory += t.bytes;
  return e;
}

void add_grid_points(ResourceEstimate& e, const Scenario& base, double points) {
  const double per = kPointBytes + static_cast<double>(base.placement().lookup_bytes());
  // The reports a sweep keeps until its document is written scale with the grid too.
  for (auto& t : e.terms)
    if (t.what.starts_with("reports:")) t.path = "--set";
  e.terms.push_back({fmt::format("grid: {} points x {} (a validated scenario and its ring)", grouped(points),
                                 format_bytes(per)),
                     "--set", points * per});
  e.memory += points * per;
}

std::uint64_t machine_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::uint64_t parse_size(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  unit.erase(std::remove_if(unit.begin(), unit.end(), [](unsigned char ch) { return std::isspace(ch); }), unit.end());
  for (auto& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (unit.ends_with("IB")) unit.erase(unit.size() - 2);
  else if (unit.size() == 2 && unit.back() == 'B') unit.pop_back();
  double scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024;
  else if (unit == "G") scale = 1024.0 * 1024 * 1024;
  else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  if (used == 0 || scale == 0 || !(v > 0) || !std::isfinite(v * scale) || v * scale > 1.8e19)
    throw ConfigError(option, fmt::format("must be a size: bytes, or a number with K, M, G or T (powers of 1024), "
                                          "e.g. 16G; got '{}'",
                                          text));
  return static_cast<std::uint64_t>(v * scale);
}

void refuse_over_memory(const ResourceEstimate& e, const std::string& file, double limit, const std::string& limit_text) {
  if (e.memory <= limit) return;
  // The largest term that a scenario field or option drives (the process's own share has none).
  const auto biggest = std::max_element(e.terms.begin(), e.terms.end(), [](const ResourceTerm& a, const ResourceTerm& b) {
    return (a.path.empty() ? -1 : a.bytes) < (b.path.empty() ? -1 : b.bytes);
  });
  std::string terms;
  for (const auto& t : e.terms) terms += fmt::format("{}{} = {}", terms.empty() ? "" : "; ", t.what, format_bytes(t.bytes));
  const std::string path = biggest == e.terms.end() ? "" : biggest->path;
  const std::string where = path.starts_with("/") && !file.empty() ? file + ": " + path : path;
  throw ConfigError(where, fmt::format("needs about {} of memory, over the limit of {} ({}); pass --max-memory SIZE "
                                       "to raise it, or make the scenario smaller. Estimate: {}; reports written: "
                                       "about {}",
                                       format_bytes(e.memory), format_bytes(limit), limit_text, terms,
                                       format_bytes(e.output)));
}

}  // namespace lbsim
