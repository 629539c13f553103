#include "sim/report/export.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "sim/fit/layouts.hpp"
#include "sim/metrics/hlog.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim {
namespace {

// Each bucket of lbsim's histogram as (value at its midpoint in microseconds, count).
template <class F>
void for_each_value_us(const LatencyHistogram& h, F&& f) {
  const auto& c = h.buckets();
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c[i])
      f((static_cast<double>(LatencyHistogram::bucket_low(i)) + static_cast<double>(LatencyHistogram::bucket_width(i)) / 2.0) /
            1e3,
        c[i]);
}

std::string scylla_histogram(const std::string& name, const LatencyHistogram& h) {
  std::vector<std::uint64_t> b(fit::kScyllaBuckets, 0);
  for_each_value_us(h, [&](double us, std::uint64_t n) { b[fit::scylla_bucket_of(us)] += n; });
  std::string out = fmt::format("# HELP {} Latency histogram (us)\n# TYPE {} histogram\n", name, name);
  std::uint64_t cum = 0;
  double sum = 0;
  for (std::size_t i = 0; i + 1 < fit::kScyllaBuckets; ++i) {
    cum += b[i];
    const double upper = fit::scylla_bucket_lower(i + 1);
    sum += static_cast<double>(b[i]) * upper;  // ScyllaDB's _sum: count x upper bound
    out += fmt::format("{}_bucket{{instance=\"all\",le=\"{:.6f}\",scheduling_group_name=\"statement\"}} {}\n", name, upper, cum);
  }
  sum += static_cast<double>(b.back()) * fit::scylla_bucket_lower(fit::kScyllaBuckets - 1);
  out += fmt::format("{}_bucket{{instance=\"all\",le=\"+Inf\",scheduling_group_name=\"statement\"}} {}\n", name, h.count());
  out += fmt::format("{}_sum{{instance=\"all\",scheduling_group_name=\"statement\"}} {:.0f}\n", name, sum);
  out += fmt::format("{}_count{{instance=\"all\",scheduling_group_name=\"statement\"}} {}\n", name, h.count());
  return out;
}

// Cassandra EstimatedHistogram counts (microseconds): bucket i holds (offset[i-1], offset[i]].
std::vector<std::uint64_t> eh_counts(const LatencyHistogram& h, const std::vector<std::int64_t>& off) {
  std::vector<std::uint64_t> b(off.size() + 1, 0);
  for_each_value_us(h, [&](double us, std::uint64_t n) {
    const auto v = static_cast<std::int64_t>(std::ceil(us));
    const auto it = std::lower_bound(off.begin(), off.end(), v);
    b[static_cast<std::size_t>(it - off.begin())] += n;
  });
  return b;
}
// nodetool's percentile: the offset of the bucket holding the ceil(p x count)-th value.
double eh_percentile(const std::vector<std::uint64_t>& b, const std::vector<std::int64_t>& off, double p) {
  std::uint64_t n = 0;
  for (auto c : b) n += c;
  if (!n) return 0;
  const auto target = static_cast<std::uint64_t>(std::ceil(p * static_cast<double>(n)));
  std::uint64_t cum = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    cum += b[i];
    if (cum >= std::max<std::uint64_t>(target, 1)) return i < off.size() ? static_cast<double>(off[i]) : static_cast<double>(off.back());
  }
  return static_cast<double>(off.back());
}

}  // namespace

void export_run(const RunResult& r, std::uint32_t shards, const std::string& dir) {
  std::filesystem::create_directories(dir);
  const auto& read = r.by_op[0].latency;
  const auto& write = r.by_op[1].latency;
  const auto& lwt = r.by_op[2].latency;
  const std::string head = fmt::format("# lbsim run --export: scenario {}, policy {}, seed {}\n", r.scenario, r.policy_name, r.seed);
  write_file_atomic((std::filesystem::path(dir) / "scylla-all.prom").string(),
                    head + scylla_histogram("scylla_storage_proxy_coordinator_read_latency", read) +
                        scylla_histogram("scylla_storage_proxy_coordinator_write_latency", write));

  const double window_ms = to_sec(r.window) * 1e3;
  for (const auto& n : r.nodes) {
    std::string out = head;
    const std::size_t k = n.shards.empty() ? 1 : n.shards.size();
    std::uint64_t ops_total = 0;
    for (const auto& s : n.shards) ops_total += s.replica_ops;
    std::uint64_t reads_left = n.replica_reads, writes_left = n.replica_writes;
    out += "# TYPE scylla_reactor_utilization gauge\n";
    for (std::size_t s = 0; s < k; ++s) {
      const double u = n.shards.empty() ? n.utilization : n.shards[s].utilization;
      out += fmt::format("scylla_reactor_utilization{{instance=\"{}\",shard=\"{}\"}} {:.6f}\n", n.id, s, 100 * u);
    }
    out += "# TYPE scylla_scheduler_runtime_ms counter\n";
    for (std::size_t s = 0; s < k; ++s) {
      // Busy time of the shard's server(s); a node without per-shard figures spreads its
      // utilization (busy / (servers x window)) over `shards` servers.
      const double busy = n.shards.empty() ? n.utilization * window_ms * shards : n.shards[s].utilization * window_ms;
      out += fmt::format("scylla_scheduler_runtime_ms{{group=\"statement\",instance=\"{}\",shard=\"{}\"}} {:.3f}\n", n.id, s, busy);
    }
    out += "# TYPE scylla_database_total_reads counter\n# TYPE scylla_database_total_writes counter\n";
    for (std::size_t s = 0; s < k; ++s) {
      std::uint64_t rd = reads_left, wr = writes_left;
      if (s + 1 < k) {
        const double share = ops_total ? static_cast<double>(n.shards[s].replica_ops) / static_cast<double>(ops_total) : 1.0 / static_cast<double>(k);
        rd = static_cast<std::uint64_t>(std::llround(share * static_cast<double>(n.replica_reads)));
        wr = static_cast<std::uint64_t>(std::llround(share * static_cast<double>(n.replica_writes)));
        rd = std::min(rd, reads_left);
        wr = std::min(wr, writes_left);
      }
      reads_left -= rd;
      writes_left -= wr;
      out += fmt::format("scylla_database_total_reads{{instance=\"{}\",shard=\"{}\"}} {}\n", n.id, s, rd);
      out += fmt::format("scylla_database_total_writes{{instance=\"{}\",shard=\"{}\"}} {}\n", n.id, s, wr);
    }
    out += "# TYPE scylla_storage_proxy_replica_cross_shard_ops counter\n";
    for (std::size_t s = 0; s < k; ++s)
      out += fmt::format("scylla_storage_proxy_replica_cross_shard_ops{{instance=\"{}\",shard=\"{}\"}} {}\n", n.id, s,
                         n.shards.empty() ? n.cross_shard_hops : n.shards[s].cross_shard_hops);
    write_file_atomic((std::filesystem::path(dir) / ("scylla-" + n.id + ".prom")).string(), out);
  }

  // nodetool proxyhistograms (Cassandra 4.x columns) and the raw arrays behind it.
  const auto off = fit::cassandra_offsets();
  const LatencyHistogram empty;
  const LatencyHistogram* cols[] = {&read, &write, &empty, &empty, &lwt, &empty};
  std::vector<std::vector<std::uint64_t>> eh;
  for (const auto* h : cols) eh.push_back(eh_counts(*h, off));
  std::string ph = "proxy histograms\n";
  ph += fmt::format("{:<10}{:>19}{:>19}{:>19}{:>19}{:>19}{:>19}\n", "Percentile", "Read Latency", "Write Latency", "Range Latency",
                    "CAS Read Latency", "CAS Write Latency", "View Write Latency");
  ph += fmt::format("{:<10}{:>19}{:>19}{:>19}{:>19}{:>19}{:>19}\n", "", "(micros)", "(micros)", "(micros)", "(micros)", "(micros)",
                    "(micros)");
  const std::pair<const char*, double> rows[] = {{"50%", 0.5}, {"75%", 0.75}, {"95%", 0.95}, {"98%", 0.98},
                                                 {"99%", 0.99}, {"Min", 0.0}, {"Max", 1.0}};
  for (const auto& [label, p] : rows) {
    ph += fmt::format("{:<10}", label);
    for (const auto& b : eh) ph += fmt::format("{:>19.2f}", eh_percentile(b, off, p));
    ph += "\n";
  }
  write_file_atomic((std::filesystem::path(dir) / "proxyhistograms.txt").string(), ph + "\n");
  std::string jmx;
  const std::pair<const char*, std::size_t> beans[] = {{"Read", 0}, {"Write", 1}, {"CASWrite", 4}};
  for (const auto& [scope, i] : beans) {
    if (!cols[i]->count()) continue;
    jmx += fmt::format("#mbean = org.apache.cassandra.metrics:type=ClientRequest,scope={},name=Latency\n#unit = us\nValues = [ ", scope);
    for (std::size_t b = 0; b < eh[i].size(); ++b) jmx += fmt::format("{}{}", b ? ", " : "", eh[i][b]);
    jmx += " ];\n";
  }
  if (!jmx.empty()) write_file_atomic((std::filesystem::path(dir) / "jmx-clientrequest.txt").string(), jmx);

  // A cassandra-stress-style interval log: one interval over the measurement window.
  std::string hl = "#Logging op latencies for Cassandra Stress (written by lbsim run --export)\n";
  hl += "#[Histogram log format version 1.3]\n#[BaseTime: 0.000 (seconds since epoch)]\n";
  hl += "#[StartTime: 0.000 (seconds since epoch), Thu Jan 01 00:00:00 UTC 1970]\n";
  hl += "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
  const char* suffix = r.client.open_loop ? "-rt" : "-st";
  const std::pair<const char*, const LatencyHistogram*> ops[] = {{"READ", &read}, {"WRITE", &write}, {"LWT", &lwt}};
  for (const auto& [op, h] : ops) {
    if (!h->count()) continue;
    hl += fmt::format("Tag={}{},0.000,{:.3f},{:.3f},{}\n", op, suffix, to_sec(r.window), static_cast<double>(h->max()) / 1e6,
                      hlog::base64(hlog::encode_compressed(*h)));
  }
  write_file_atomic((std::filesystem::path(dir) / "stress.hlog").string(), hl);
}

}  // namespace lbsim
