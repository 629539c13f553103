// ScyllaDB's Prometheus text (the text exposition format: "NAME{LABELS} VALUE [TIMESTAMP]", "#"
// comments). Only the metrics `lbsim fit` uses are kept; the others are skipped.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/fit/layouts.hpp"
#include "sim/fit/parsers.hpp"

namespace lbsim::fit {
namespace {

constexpr const char* kExpected = "expected Prometheus text exposition: NAME{LABEL=\"VALUE\",...} NUMBER";

struct Line {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

Line parse_line(const std::string& where, const std::string& s) {
  Line l;
  std::size_t i = 0;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == ':')) ++i;
  if (i == 0) throw ConfigError(where, kExpected);
  l.name = s.substr(0, i);
  if (i < s.size() && s[i] == '{') {
    ++i;
    while (true) {
      while (i < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
      if (i < s.size() && s[i] == '}') {
        ++i;
        break;
      }
      const std::size_t k0 = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      if (i == k0 || i + 1 >= s.size() || s[i] != '=' || s[i + 1] != '"') throw ConfigError(where, kExpected);
      const std::string key = s.substr(k0, i - k0);
      i += 2;
      std::string v;
      while (i < s.size() && s[i] != '"') {
        if (s[i] == '\\' && i + 1 < s.size()) {
          ++i;
          v += s[i] == 'n' ? '\n' : s[i];
        } else {
          v += s[i];
        }
        ++i;
      }
      if (i >= s.size()) throw ConfigError(where, std::string("an unterminated label value; ") + kExpected);
      ++i;
      l.labels[key] = v;
    }
  }
  while (i < s.size() && s[i] == ' ') ++i;
  const std::size_t v0 = i;
  while (i < s.size() && s[i] != ' ') ++i;
  const std::string num = s.substr(v0, i - v0);
  if (num == "+Inf" || num == "Inf") {
    l.value = std::numeric_limits<double>::infinity();
  } else if (num == "NaN") {
    l.value = std::numeric_limits<double>::quiet_NaN();
  } else {
    char* end = nullptr;
    l.value = std::strtod(num.c_str(), &end);
    if (num.empty() || *end != '\0') throw ConfigError(where, fmt::format("value '{}' is not a number; {}", num, kExpected));
  }
  return l;
}

struct LatencyMetric {
  const char* base;
  Op op;
  Role role;
};
constexpr LatencyMetric kLatency[] = {
    {"scylla_storage_proxy_coordinator_read_latency", Op::Read, Role::Coordinator},
    {"scylla_storage_proxy_coordinator_write_latency", Op::Write, Role::Coordinator},
    {"scylla_column_family_read_latency", Op::Read, Role::Replica},
    {"scylla_column_family_write_latency", Op::Write, Role::Replica},
};

// Scalar metrics kept as observations.
constexpr const char* kScalars[] = {
    "scylla_reactor_utilization",
    "scylla_scheduler_runtime_ms",
    "scylla_database_total_reads",
    "scylla_database_total_writes",
    "scylla_cache_row_hits",
    "scylla_cache_row_misses",
    "scylla_cache_reads",
    "scylla_cache_reads_with_misses",
    "scylla_cache_bytes_used",
    "scylla_cache_bytes_total",
    "scylla_storage_proxy_replica_cross_shard_ops",
    "scylla_storage_proxy_coordinator_reads_coordinator_outside_replica_set",
    "scylla_storage_proxy_coordinator_writes_coordinator_outside_replica_set",
};

std::string series_key(const std::map<std::string, std::string>& labels) {
  std::string k;
  for (const auto& [a, b] : labels)
    if (a != "le" && a != "quantile") k += a + "=" + b + ",";
  return k;
}

}  // namespace

Parsed parse_prometheus(const std::string& file, const std::string& text) {
  Parsed out;
  // base metric -> series -> le -> cumulative count; and -> _count
  std::map<std::string, std::map<std::string, std::map<double, double>>> buckets;
  std::map<std::string, std::map<std::string, double>> counts;
  std::map<std::string, std::map<double, std::vector<double>>> summaries;
  std::string node_of_file = std::filesystem::path(file).stem().string();
  std::string node;
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string s = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!s.empty() && s.back() == '\r') s.pop_back();
    if (s.empty() || s[0] == '#') continue;
    const std::string where = fmt::format("{}:{}", file, line_no);
    Line l = parse_line(where, s);
    if (auto it = l.labels.find("instance"); it != l.labels.end() && node.empty()) node = it->second;
    for (const auto& m : kLatency) {
      const std::string base = m.base;
      if (l.name == base + "_bucket") {
        auto le = l.labels.find("le");
        if (le == l.labels.end()) throw ConfigError(where, std::string("a _bucket line without an le label; ") + kExpected);
        const double bound = le->second == "+Inf" ? std::numeric_limits<double>::infinity() : std::strtod(le->second.c_str(), nullptr);
        buckets[base][series_key(l.labels)][bound] = l.value;
      } else if (l.name == base + "_count") {
        counts[base][series_key(l.labels)] = l.value;
      } else if ((l.name == base + "_summary" || l.name == base) && l.labels.count("quantile")) {
        summaries[base][std::strtod(l.labels["quantile"].c_str(), nullptr)].push_back(l.value);
      }
    }
    for (const char* name : kScalars) {
      if (l.name != name) continue;
      if (std::string(name) == "scylla_scheduler_runtime_ms") {
        // Request work runs in the "statement" scheduling group, or in service-level groups
        // "sl:NAME" in releases with workload prioritization (assumed: the "sl:" prefix is not
        // checked against scylladb/scylladb's service/qos sources here); the other groups
        // (compaction, memtable, streaming, ...) are background work.
        const std::string g = l.labels.count("group") ? l.labels["group"] : "";
        if (g != "statement" && g.rfind("sl:", 0) != 0) continue;
      }
      out.observations.push_back({file, name, "", l.labels.count("shard") ? l.labels["shard"] : "", l.value});
    }
  }
  if (node.empty()) node = node_of_file;
  for (auto& o : out.observations) o.node = node;
  for (const auto& m : kLatency) {
    auto b = buckets.find(m.base);
    if (b == buckets.end()) continue;
    // Sum the series (shards, scheduling groups, tables) bucket by bucket: they share the layout.
    std::map<double, double> cum;
    for (const auto& [key, series] : b->second)
      for (const auto& [le, c] : series) cum[le] += c;
    double total = 0;
    for (const auto& [key, c] : counts[m.base]) total += c;
    Sample smp;
    smp.file = file;
    smp.metric = m.base;
    smp.node = node;
    smp.op = m.op;
    smp.role = m.role;
    double prev_le = 0, prev_c = 0;
    for (const auto& [le, c] : cum) {
      if (c + 1e-9 < prev_c)
        throw ConfigError(file, fmt::format("{}_bucket: cumulative counts decrease at le={} ({} after {}); {}", m.base, le, c,
                                            prev_c, kExpected));
      smp.lo.push_back(prev_le);
      smp.hi.push_back(le);
      smp.count.push_back(c - prev_c);
      prev_le = le;
      prev_c = c;
    }
    if (total > prev_c && std::isfinite(prev_le)) {  // _count holds the overflow bucket
      smp.lo.push_back(prev_le);
      smp.hi.push_back(std::numeric_limits<double>::infinity());
      smp.count.push_back(total - prev_c);
    }
    // A text-format histogram never gives its first bucket's lower end: what lies in it is
    // censored whatever the layout.
    smp.floor_first = true;
    if (!cum.empty() && std::abs(cum.begin()->first - scylla_bucket_lower(1)) < 1e-6) {
      smp.note = "ScyllaDB's time_estimated_histogram: the first bucket (le=640) holds every request under 640 us (the "
                 "histogram starts at 512 us), and _sum is bucket upper bound x count, not the values' sum";
    }
    smp.note += fmt::format("{}summed over {} series", smp.note.empty() ? "" : "; ", b->second.size());
    out.samples.push_back(std::move(smp));
  }
  for (const auto& m : kLatency) {
    auto s = summaries.find(m.base);
    if (s == summaries.end()) continue;
    Sample smp;
    smp.file = file;
    smp.metric = std::string(m.base) + "_summary";
    smp.node = node;
    smp.op = m.op;
    smp.role = m.role;
    for (const auto& [q, vs] : s->second) {
      if (q <= 0 || q >= 1) continue;
      double mx = 0;
      for (double v : vs) mx = std::max(mx, v);  // several shards: the slowest shard's quantile
      smp.quantiles.push_back({q, mx});
    }
    smp.note = "a summary: quantiles over the last tick only (ScyllaDB's summary_calculator), the largest over shards";
    if (!smp.quantiles.empty()) out.samples.push_back(std::move(smp));
  }
  return out;
}

}  // namespace lbsim::fit
