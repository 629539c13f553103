#include "sim/report/report_text.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sim/metrics/imbalance.hpp"

namespace lbsim {

namespace {

std::string upper(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return o;
}

std::string hms(double seconds) {
  const auto s = static_cast<long long>(std::llround(seconds));
  return fmt::format("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

// "[READ: x unit, WRITE: y unit]" over the op kinds that ran.
template <class F>
std::string per_op(const RunResult& r, F value) {
  std::string out = "[";
  bool first = true;
  for (std::size_t k = 0; k < kOpKinds; ++k) {
    const OpStats& s = r.by_op[k];
    if (s.ops == 0 && s.error_total() == 0) continue;
    if (!first) out += ", ";
    first = false;
    out += upper(op_name(static_cast<OpKind>(k))) + ": " + value(s);
  }
  return out + "]";
}

std::pair<Imbalance, Imbalance> imbalances(const RunResult& r) {
  const RunImbalance i = run_imbalance(r);
  return {i.coordinator, i.replica};
}

}  // namespace

std::string grouped(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", std::abs(v), decimals);
  const auto dot = s.find('.');
  std::string int_part = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string out;
  for (std::size_t i = 0; i < int_part.size(); ++i) {
    if (i && (int_part.size() - i) % 3 == 0) out += ',';
    out += int_part[i];
  }
  return (v < 0 && std::abs(v) >= 0.5 * std::pow(10.0, -decimals) ? "-" : "") + out + frac;
}

void print_results_block(std::ostream& out, const RunResult& r) {
  const double window = to_sec(r.window);
  auto rate = [&](double n) { return window > 0 ? n / window : 0.0; };
  std::uint64_t rows = 0;
  for (const auto& s : r.by_op) rows += s.rows;
  auto lat = [&](const char* label, auto pick) {
    out << fmt::format("{:<26}: {:6.1f} ms {}\n", label, pick(r.latency),
                       per_op(r, [&](const OpStats& s) { return fmt::format("{:.1f} ms", pick(s.latency)); }));
  };
  out << "Results:\n";
  out << fmt::format("Op rate                   : {:>8} op/s  {}\n", grouped(r.throughput()),
                     per_op(r, [&](const OpStats& s) { return grouped(rate(static_cast<double>(s.ops))) + " op/s"; }));
  out << fmt::format("Partition rate            : {:>8} pk/s  {}\n", grouped(r.throughput()),
                     per_op(r, [&](const OpStats& s) { return grouped(rate(static_cast<double>(s.ops))) + " pk/s"; }));
  out << fmt::format("Row rate                  : {:>8} row/s {}\n", grouped(rate(static_cast<double>(rows))),
                     per_op(r, [&](const OpStats& s) { return grouped(rate(static_cast<double>(s.rows))) + " row/s"; }));
  lat("Latency mean", [](const LatencyHistogram& h) { return h.mean() / 1e6; });
  lat("Latency median", [](const LatencyHistogram& h) { return to_ms(h.percentile(50)); });
  lat("Latency 95th percentile", [](const LatencyHistogram& h) { return to_ms(h.percentile(95)); });
  lat("Latency 99th percentile", [](const LatencyHistogram& h) { return to_ms(h.percentile(99)); });
  lat("Latency 99.9th percentile", [](const LatencyHistogram& h) { return to_ms(h.percentile(99.9)); });
  lat("Latency max", [](const LatencyHistogram& h) { return to_ms(h.max()); });
  out << fmt::format("Total partitions          : {:>10} {}\n", grouped(static_cast<double>(r.measured_ops())),
                     per_op(r, [](const OpStats& s) { return grouped(static_cast<double>(s.ops)); }));
  out << fmt::format("Total errors              : {:>10} {}\n", grouped(static_cast<double>(r.measured_errors())),
                     per_op(r, [](const OpStats& s) { return grouped(static_cast<double>(s.error_total())); }));
  out << fmt::format("Total operation time      : {}\n", hms(window));
}

void print_node_table(std::ostream& out, const RunResult& r) {
  bool conns = false, hops = false;
  for (const auto& n : r.nodes) {
    conns = conns || n.connections.has_value();
    hops = hops || n.cross_shard_hops > 0;
  }
  out << fmt::format("{:<10} {:<8} {:<6} {:>12} {:>14} {:>14} {:>10} {:>7} {:>11}", "node", "dc", "rack", "coordinator",
                     "replica reads", "replica writes", "dropped", "util", "mean queue");
  if (conns || hops) out << fmt::format(" {:>10} {:>9} {:>15}", "x-shard", "busy", "req/conn");
  out << "\n";
  for (const auto& n : r.nodes) {
    out << fmt::format("{:<10} {:<8} {:<6} {:>12} {:>14} {:>14} {:>10} {:>6.1f}% {:>11.2f}", n.id, n.dc, n.rack,
                       grouped(static_cast<double>(n.coordinator_ops)), grouped(static_cast<double>(n.replica_reads)),
                       grouped(static_cast<double>(n.replica_writes)),
                       grouped(static_cast<double>(n.dropped_coordinator + n.dropped_reads + n.dropped_writes)),
                       100 * n.utilization, n.mean_queue);
    if (conns || hops) {
      std::string per_conn = "-";
      if (n.connections && n.connections->count > 0)
        per_conn = grouped(static_cast<double>(n.connections->requests_min)) + "-" +
                   grouped(static_cast<double>(n.connections->requests_max));
      out << fmt::format(" {:>10} {:>9} {:>15}", grouped(static_cast<double>(n.cross_shard_hops)),
                         grouped(static_cast<double>(n.busy_rejections)), per_conn);
    }
    out << "\n";
  }
  const auto [c, rep] = imbalances(r);
  const auto dcs = run_dcs(r);
  out << fmt::format("imbalance               {:>10} {:>8} {:>8}\n", "max/mean", "CoV", "Gini");
  const std::string all = dcs.size() > 1 ? " (all nodes)" : "";
  out << fmt::format("{:<24}{:>10.3f} {:>8.3f} {:>8.3f}\n", "coordinator" + all, c.max_over_mean, c.cov, c.gini);
  out << fmt::format("{:<24}{:>10.3f} {:>8.3f} {:>8.3f}\n", "replica" + all, rep.max_over_mean, rep.cov, rep.gini);
  if (dcs.size() > 1) {
    for (const auto& dc : dcs) {
      const RunImbalance i = run_imbalance(r, &dc);
      out << fmt::format("{:<24}{:>10.3f} {:>8.3f} {:>8.3f}\n", "coordinator " + dc, i.coordinator.max_over_mean,
                         i.coordinator.cov, i.coordinator.gini);
      out << fmt::format("{:<24}{:>10.3f} {:>8.3f} {:>8.3f}\n", "replica " + dc, i.replica.max_over_mean, i.replica.cov,
                         i.replica.gini);
    }
  }
}

void print_run(std::ostream& out, const RunResult& r) {
  out << fmt::format("== {} / {} (seed {}) ==\n", r.scenario, r.policy_name, r.seed);
  print_results_block(out, r);
  out << "\n";
  print_node_table(out, r);
  std::array<std::uint64_t, kErrorKinds> errs{};
  for (const auto& s : r.by_op)
    for (std::size_t k = 0; k < kErrorKinds; ++k) errs[k] += s.errors[k];
  std::string e;
  for (std::size_t k = 0; k < kErrorKinds; ++k)
    if (errs[k]) e += fmt::format("{}{} {}", e.empty() ? "" : ", ", error_name(static_cast<ErrorKind>(k)), errs[k]);
  out << fmt::format("client: cpu {:.1f}%, shared generator {:.3f} s ({:.1f}% of client CPU), {} shared / {} "
                     "thread-local draws, {} retries, {} speculative\n",
                     100 * r.client.cpu_utilization, r.client.shared_rng_s, 100 * r.client.shared_rng_cpu_fraction,
                     grouped(static_cast<double>(r.client.shared_draws)),
                     grouped(static_cast<double>(r.client.thread_local_draws)), r.client.retries, r.client.speculative);
  if (r.tablets) {
    const TabletResult& t = *r.tablets;
    out << fmt::format("tablets: {} per table; {} misrouted (payloads), {} non-replica coordinators, {} wrong shard, {} "
                       "routed by the driver's fallback; {} of {} migrations done\n",
                       t.tablets, t.payloads, t.non_replica, t.wrong_shard, t.fallback, t.migrations_done,
                       t.migrations_started);
  }
  if (!e.empty()) out << "errors: " << e << "\n";
  for (const auto& w : r.warnings) out << "warning: " << w << "\n";
  out << "\n";
}

void print_side_by_side(std::ostream& out, const std::vector<RunResult>& runs) {
  if (runs.empty()) return;
  std::size_t w = 12;
  for (const auto& r : runs) w = std::max(w, r.policy_name.size() + 1);
  out << fmt::format("{:<22}", "policy");
  for (const auto& r : runs) out << fmt::format("{:>{}}", r.policy_name, w);
  out << "\n";
  auto row = [&](const char* label, auto value) {
    out << fmt::format("{:<22}", label);
    for (const auto& r : runs) out << fmt::format("{:>{}}", value(r), w);
    out << "\n";
  };
  auto ms = [](double v) { return fmt::format("{:.3f}", v); };
  row("op rate (op/s)", [](const RunResult& r) { return grouped(r.throughput()); });
  row("latency mean (ms)", [&](const RunResult& r) { return ms(r.latency.mean() / 1e6); });
  row("latency p50 (ms)", [&](const RunResult& r) { return ms(to_ms(r.latency.percentile(50))); });
  row("latency p95 (ms)", [&](const RunResult& r) { return ms(to_ms(r.latency.percentile(95))); });
  row("latency p99 (ms)", [&](const RunResult& r) { return ms(to_ms(r.latency.percentile(99))); });
  row("latency p99.9 (ms)", [&](const RunResult& r) { return ms(to_ms(r.latency.percentile(99.9))); });
  row("latency max (ms)", [&](const RunResult& r) { return ms(to_ms(r.latency.max())); });
  // The read/write split, when both occur (they often run at different consistency levels).
  bool reads = false, writes = false;
  for (const auto& r : runs) {
    reads = reads || r.by_op[static_cast<std::size_t>(OpKind::Read)].ops > 0;
    writes = writes || r.by_op[static_cast<std::size_t>(OpKind::Write)].ops > 0;
  }
  if (reads && writes) {
    for (const OpKind k : {OpKind::Read, OpKind::Write}) {
      const auto i = static_cast<std::size_t>(k);
      const std::string name(op_name(k));
      row((name + " op rate (op/s)").c_str(), [&](const RunResult& r) {
        return grouped(r.window > 0 ? static_cast<double>(r.by_op[i].ops) / to_sec(r.window) : 0.0);
      });
      row((name + " p99 (ms)").c_str(), [&](const RunResult& r) { return ms(to_ms(r.by_op[i].latency.percentile(99))); });
    }
  }
  row("errors", [](const RunResult& r) { return grouped(static_cast<double>(r.measured_errors())); });
  row("coord max/mean", [](const RunResult& r) { return fmt::format("{:.3f}", imbalances(r).first.max_over_mean); });
  row("coord CoV", [](const RunResult& r) { return fmt::format("{:.3f}", imbalances(r).first.cov); });
  row("replica max/mean", [](const RunResult& r) { return fmt::format("{:.3f}", imbalances(r).second.max_over_mean); });
  row("replica CoV", [](const RunResult& r) { return fmt::format("{:.3f}", imbalances(r).second.cov); });
  row("client CPU", [](const RunResult& r) { return fmt::format("{:.1f}%", 100 * r.client.cpu_utilization); });
  row("shared rng (s)", [](const RunResult& r) { return fmt::format("{:.3f}", r.client.shared_rng_s); });
}

}  // namespace lbsim
