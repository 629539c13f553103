#include "sim/report/report_text.hpp"

#include <algorithm>
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

// "1.234", or "-" for a DC without that kind of work (it has no imbalance).
std::string imbalance_cell(const Imbalance& i, bool has_load, double Imbalance::*field) {
  return has_load ? fmt::format("{:.3f}", i.*field) : "-";
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
  // Name columns as wide as their longest name (a DC named "datacenter1" must not push the others).
  std::size_t wid = 10, wdc = 8, wrack = 6;
  for (const auto& n : r.nodes) {
    conns = conns || n.connections.has_value();
    hops = hops || n.cross_shard_hops > 0;
    wid = std::max(wid, n.id.size() + 1);
    wdc = std::max(wdc, n.dc.size() + 1);
    wrack = std::max(wrack, n.rack.size() + 1);
  }
  out << fmt::format("{:<{}} {:<{}} {:<{}} {:>12} {:>14} {:>14} {:>10} {:>7} {:>11}", "node", wid, "dc", wdc, "rack", wrack,
                     "coordinator", "replica reads", "replica writes", "dropped", "util", "mean queue");
  if (conns || hops) out << fmt::format(" {:>10} {:>9} {:>15}", "x-shard", "busy", "req/conn");
  out << "\n";
  for (const auto& n : r.nodes) {
    out << fmt::format("{:<{}} {:<{}} {:<{}} {:>12} {:>14} {:>14} {:>10} {:>6.1f}% {:>11.2f}", n.id, wid, n.dc, wdc, n.rack,
                       wrack, grouped(static_cast<double>(n.coordinator_ops)), grouped(static_cast<double>(n.replica_reads)),
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
  const auto dcs = run_dcs(r);
  std::size_t wl = 24;
  for (const auto& dc : dcs) wl = std::max(wl, dc.size() + 14);
  auto row = [&](const std::string& label, const Imbalance& i, bool has_load) {
    out << fmt::format("{:<{}}{:>10} {:>8} {:>8}\n", label, wl, imbalance_cell(i, has_load, &Imbalance::max_over_mean),
                       imbalance_cell(i, has_load, &Imbalance::cov), imbalance_cell(i, has_load, &Imbalance::gini));
  };
  out << fmt::format("{:<{}}{:>10} {:>8} {:>8}\n", "imbalance", wl, "max/mean", "CoV", "Gini");
  const RunImbalance all = run_imbalance(r);
  if (dcs.size() <= 1) {
    row("coordinator", all.coordinator, true);
    row("replica", all.replica, true);
    return;
  }
  // Several DCs: each DC's figures first (a DC without coordinator requests has none), then the
  // all-node ones, which count the nodes of DCs that never coordinate.
  for (const auto& dc : dcs) {
    const RunImbalance i = run_imbalance(r, &dc);
    const DcLoad load = dc_load(r, dc);
    row("coordinator " + dc, i.coordinator, load.coordinator > 0);
    row("replica " + dc, i.replica, load.replica > 0);
  }
  row("coordinator (all nodes)", all.coordinator, true);
  row("replica (all nodes)", all.replica, true);
  out << fmt::format("headline (the DCs that coordinate): {}\n", headline_scope(headline_imbalance(r).dcs));
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
  // The shared generator's cost only for a policy that draws from one (Java 3.x shuffles, Go's
  // and Python's module-level generators): elsewhere it is not a figure but a 0.
  const std::string shared =
      r.client.shared_draws > 0 ? fmt::format("shared generator {:.3f} s ({:.1f}% of client CPU), ", r.client.shared_rng_s,
                                              100 * r.client.shared_rng_cpu_fraction)
                                : "";
  out << fmt::format("client: cpu {:.1f}%, {}{} shared / {} thread-local draws, {} retries, {} speculative\n",
                     100 * r.client.cpu_utilization, shared, grouped(static_cast<double>(r.client.shared_draws)),
                     grouped(static_cast<double>(r.client.thread_local_draws)), r.client.retries, r.client.speculative);
  if (r.tablets) {
    const TabletResult& t = *r.tablets;
    const std::string resized =
        t.count_start == t.tablets && t.splits == 0 && t.merges == 0
            ? ""
            : fmt::format(" (from {}: {} splits, {} merges)", t.count_start, t.splits, t.merges);
    out << fmt::format("tablets: {} per table{}; {} misrouted (payloads), {} non-replica coordinators, {} wrong shard, {} "
                       "routed by the driver's fallback; {} of {} migrations done\n",
                       t.tablets, resized, t.payloads, t.non_replica, t.wrong_shard, t.fallback, t.migrations_done,
                       t.migrations_started);
    if (t.table_mb > 0)
      out << fmt::format("tablet table: {} MiB (changes.migration.table_size_mb); cluster.server '{}' derives {} tablets "
                         "of {} MiB at the start\n",
                         grouped(t.table_mb), t.server, t.count_start,
                         grouped(t.tablet_mb_start, t.tablet_mb_start == std::floor(t.tablet_mb_start) ? 0 : 1));
    out << fmt::format("tablet balance at the end: node overcommit {:.2f} (best {:.2f}), shard overcommit {:.2f} "
                       "(best {:.2f})\n",
                       t.overcommit_node, t.best_node, t.overcommit_shard, t.best_shard);
  }
  if (r.cache) {  // cluster.cache only
    const CacheSummary& c = *r.cache;
    out << fmt::format("cache: hit rate {:.1f}%, {} misses/s, miss overcommit {:.2f} (max/mean per node), {:.2f} "
                       "copies per cached key\n",
                       100 * c.hit_rate, grouped(c.misses_per_s), c.miss_overcommit, c.copies_per_key);
    out << fmt::format("{:<10} {:>9} {:>12} {:>12}\n", "node", "hit rate", "misses/s", "disk util");
    for (const auto& n : r.nodes)
      if (n.cache)
        out << fmt::format("{:<10} {:>8.1f}% {:>12} {:>11.1f}%\n", n.id, 100 * n.cache->hit_rate,
                           grouped(n.cache->misses_per_s), 100 * n.cache->disk_utilization);
  }
  for (const RunResult::Section& s : r.mechanism_sections)  // the mechanisms' own (RunResult::Section)
    for (const std::string& line : s.text) out << line << '\n';
  // Tablet streaming per node in the window (nodes that streamed only).
  std::string streaming;
  for (const auto& n : r.nodes)
    if (n.streaming && n.streaming->seconds > 0)
      streaming += fmt::format("{}{} {:.1f} s (sent {} MB, received {} MB)", streaming.empty() ? "" : "; ", n.id,
                               n.streaming->seconds, grouped(n.streaming->sent_mb), grouped(n.streaming->received_mb));
  if (!streaming.empty()) out << "streaming: " << streaming << "\n";
  if (!r.loaders.empty()) {
    // `clients`: each loader's share; coordinators are the nodes it sent to, busiest first.
    const double window_s = to_sec(r.window);
    out << fmt::format("{:<14} {:<8} {:<8} {:<16} {:>10} {:>12} {:>9} {:>8}  coordinators\n", "loader", "dc", "rack",
                       "policy", "ops", "op/s", "p99 ms", "errors");
    for (const LoaderResult& l : r.loaders) {
      std::vector<std::pair<std::uint64_t, std::size_t>> coord;
      for (std::size_t n = 0; n < l.coordinator_ops.size(); ++n)
        if (l.coordinator_ops[n] > 0) coord.emplace_back(l.coordinator_ops[n], n);
      std::stable_sort(coord.begin(), coord.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      std::string cs;
      for (std::size_t i = 0; i < coord.size() && i < 4; ++i)
        cs += fmt::format("{}{} {}", i ? ", " : "", coord[i].second < r.nodes.size() ? r.nodes[coord[i].second].id : "?",
                          grouped(static_cast<double>(coord[i].first)));
      if (coord.size() > 4) cs += fmt::format(", +{} nodes", coord.size() - 4);
      out << fmt::format("{:<14} {:<8} {:<8} {:<16} {:>10} {:>12} {:>9.2f} {:>8}  {}\n", l.name, l.dc,
                         l.rack.empty() ? "-" : l.rack, l.policy, grouped(static_cast<double>(l.ops())),
                         grouped(window_s > 0 ? static_cast<double>(l.ops()) / window_s : 0.0),
                         to_ms(l.latency.percentile(99)), l.errors(), cs);
    }
  }
  if (!e.empty()) out << "errors: " << e << "\n";
  for (const auto& w : r.warnings) out << "warning: " << w << "\n";
  out << "\n";
}

void print_side_by_side(std::ostream& out, const std::vector<RunResult>& runs) {
  if (runs.empty()) return;
  // The imbalance rows are the headline's (the DCs that coordinate), named when the cluster has
  // several DCs: in the label when every policy has the same ones, else under the table.
  std::vector<HeadlineImbalance> heads;
  bool several_dcs = false, same_scope = true, shared = false;
  for (const auto& r : runs) {
    heads.push_back(headline_imbalance(r));
    several_dcs = several_dcs || run_dcs(r).size() > 1;
    same_scope = same_scope && heads.back().dcs == heads.front().dcs;
    shared = shared || r.client.shared_draws > 0;
  }
  const std::string scope =
      !several_dcs ? "" : same_scope ? " (" + headline_scope(heads.front().dcs) + ")" : " (coordinating DCs*)";
  std::size_t w = 12, wl = 22;
  for (const auto& r : runs) w = std::max(w, r.policy_name.size() + 1);
  wl = std::max(wl, std::string("replica max/mean").size() + scope.size() + 1);
  out << fmt::format("{:<{}}", "policy", wl);
  for (const auto& r : runs) out << fmt::format("{:>{}}", r.policy_name, w);
  out << "\n";
  auto row = [&](const std::string& label, auto value) {
    out << fmt::format("{:<{}}", label, wl);
    for (std::size_t i = 0; i < runs.size(); ++i) out << fmt::format("{:>{}}", value(runs[i], heads[i]), w);
    out << "\n";
  };
  using H = HeadlineImbalance;
  auto ms = [](double v) { return fmt::format("{:.3f}", v); };
  row("op rate (op/s)", [](const RunResult& r, const H&) { return grouped(r.throughput()); });
  row("latency mean (ms)", [&](const RunResult& r, const H&) { return ms(r.latency.mean() / 1e6); });
  row("latency p50 (ms)", [&](const RunResult& r, const H&) { return ms(to_ms(r.latency.percentile(50))); });
  row("latency p95 (ms)", [&](const RunResult& r, const H&) { return ms(to_ms(r.latency.percentile(95))); });
  row("latency p99 (ms)", [&](const RunResult& r, const H&) { return ms(to_ms(r.latency.percentile(99))); });
  row("latency p99.9 (ms)", [&](const RunResult& r, const H&) { return ms(to_ms(r.latency.percentile(99.9))); });
  row("latency max (ms)", [&](const RunResult& r, const H&) { return ms(to_ms(r.latency.max())); });
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
      row(name + " op rate (op/s)", [&](const RunResult& r, const H&) {
        return grouped(r.window > 0 ? static_cast<double>(r.by_op[i].ops) / to_sec(r.window) : 0.0);
      });
      row(name + " p99 (ms)", [&](const RunResult& r, const H&) { return ms(to_ms(r.by_op[i].latency.percentile(99))); });
    }
  }
  row("errors", [](const RunResult& r, const H&) { return grouped(static_cast<double>(r.measured_errors())); });
  row("coord max/mean" + scope, [&](const RunResult&, const H& h) { return ms(h.coordinator.max_over_mean); });
  row("coord CoV" + scope, [&](const RunResult&, const H& h) { return ms(h.coordinator.cov); });
  row("replica max/mean" + scope, [&](const RunResult&, const H& h) { return ms(h.replica.max_over_mean); });
  row("replica CoV" + scope, [&](const RunResult&, const H& h) { return ms(h.replica.cov); });
  row("client CPU", [](const RunResult& r, const H&) { return fmt::format("{:.1f}%", 100 * r.client.cpu_utilization); });
  // Only policies that draw from a shared generator have its cost.
  if (shared)
    row("shared rng (s)", [&](const RunResult& r, const H&) {
      return r.client.shared_draws > 0 ? ms(r.client.shared_rng_s) : std::string("-");
    });
  if (several_dcs && !same_scope) {
    out << "* coordinating DCs:";
    for (std::size_t i = 0; i < runs.size(); ++i)
      out << fmt::format("{} {} {}", i ? ";" : "", runs[i].policy_name, headline_scope(heads[i].dcs));
    out << "\n";
  }
}

}  // namespace lbsim
