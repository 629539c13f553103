// The per-run chart sections of the HTML report: node load, latency percentiles, timelines.
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "sim/report/html_report.hpp"
#include "sim/report/html_report_sections.hpp"
#include "sim/report/svg.hpp"

namespace lbsim {

using Json = nlohmann::json;

LatencyHistogram histogram_from_report(const Json& h, double mean_ms) {
  std::vector<std::pair<std::size_t, std::uint64_t>> buckets;
  std::uint64_t count = 0;
  if (h.contains("buckets") && h["buckets"].is_array())
    for (const auto& b : h["buckets"])
      if (b.is_array() && b.size() == 2 && b[0].is_number_unsigned() && b[1].is_number_unsigned()) {
        buckets.emplace_back(b[0].get<std::size_t>(), b[1].get<std::uint64_t>());
        count += buckets.back().second;
      }
  const SimTime lo = h.value("min_ns", SimTime{0});
  const SimTime hi = h.value("max_ns", SimTime{0});
  return LatencyHistogram::from_buckets(buckets, lo, hi, mean_ms * 1e6 * static_cast<double>(count));
}

namespace html {

namespace {

std::string seeds_note(const PolicyRuns& p) {
  return p.runs.size() > 1 ? fmt::format(" from {} seeds", p.runs.size()) : "";
}

// The node labels of the first report: "id (dc/rack)" when several racks exist.
std::vector<std::string> node_labels(const Json& report) {
  std::vector<std::string> out;
  if (!report.contains("nodes")) return out;
  for (const auto& n : report["nodes"]) {
    const std::string id = n.contains("id") ? (n["id"].is_string() ? n["id"].get<std::string>() : n["id"].dump()) : "?";
    out.push_back(id);
  }
  return out;
}

std::uint64_t node_u64(const Json& n, const char* key) {
  return n.contains(key) && n[key].is_number_unsigned() ? n[key].get<std::uint64_t>() : 0;
}

// The datacenter of each node, in report order ("" when the report has none).
std::vector<std::string> node_dcs(const Json& report) {
  std::vector<std::string> out;
  if (!report.contains("nodes")) return out;
  for (const auto& n : report["nodes"]) out.push_back(n.contains("dc") && n["dc"].is_string() ? n["dc"].get<std::string>() : "");
  return out;
}

// Consecutive runs of nodes in one datacenter: (first, last, dc). Reports list nodes DC by DC.
std::vector<std::tuple<std::size_t, std::size_t, std::string>> dc_groups(const std::vector<std::string>& dcs) {
  std::vector<std::tuple<std::size_t, std::size_t, std::string>> g;
  for (std::size_t i = 0; i < dcs.size(); ++i) {
    if (g.empty() || std::get<2>(g.back()) != dcs[i]) g.emplace_back(i, i, dcs[i]);
    std::get<1>(g.back()) = i;
  }
  return g;
}

svg::BarChart load_chart(const std::vector<PolicyRuns>& policies, bool replica, const std::vector<std::string>& nodes,
                         const std::vector<std::string>& dcs) {
  svg::BarChart c;
  c.id = replica ? "chart-replica-load" : "chart-coordinator-load";
  c.title = replica ? "Replica load per node (reads + writes served)" : "Coordinator load per node";
  c.x_label = "node";
  c.y_label = replica ? "replica requests (ops)" : "coordinator requests (ops)";
  c.categories = nodes;
  c.width = 1300;
  c.height = 380;
  // One mean per datacenter when there are several: a remote DC that never coordinates would
  // otherwise pull an all-node mean down to half and make every local node look hot (issue 13).
  const auto groups = dc_groups(dcs.size() == nodes.size() ? dcs : std::vector<std::string>(nodes.size()));
  const bool per_dc = groups.size() > 1;
  c.reference_name = per_dc ? "datacenter mean (dashed)" : "policy mean (dashed)";
  for (std::size_t gi = 1; per_dc && gi < groups.size(); ++gi) c.separators.push_back(std::get<0>(groups[gi]));
  for (const auto& p : policies) {
    svg::Series s;
    s.name = p.name;
    s.y.assign(nodes.size(), 0.0);
    for (const Json* r : p.runs) {
      if (!r->contains("nodes")) continue;
      const auto& ns = (*r)["nodes"];
      for (std::size_t i = 0; i < ns.size() && i < nodes.size(); ++i) {
        const double v = replica ? static_cast<double>(node_u64(ns[i], "replica_reads") + node_u64(ns[i], "replica_writes"))
                                 : static_cast<double>(node_u64(ns[i], "coordinator_ops"));
        s.y[i] += v / static_cast<double>(p.runs.size());
      }
    }
    for (const auto& [first, last, dc] : groups) {
      double sum = 0;
      for (std::size_t i = first; i <= last; ++i) sum += s.y[i];
      svg::BarChart::Reference ref;
      ref.series = c.series.size();
      ref.y = sum / static_cast<double>(last - first + 1);
      if (per_dc) {
        ref.first = first;
        ref.last = last;
        ref.label = dc;
      }
      c.reference.push_back(ref);
    }
    c.series.push_back(std::move(s));
  }
  return c;
}

}  // namespace

std::string load_section(const std::vector<PolicyRuns>& policies) {
  if (policies.empty() || policies.front().runs.empty()) return "";
  const auto nodes = node_labels(*policies.front().runs.front());
  const auto dcs = node_dcs(*policies.front().runs.front());
  const bool multi_dc = dc_groups(dcs).size() > 1;
  std::string notes;
  for (const auto& p : policies)
    if (p.runs.size() > 1) notes = " Bars of policies with several seeds are the mean over their seeds.";
  std::string body = figure("fig-coordinator-load", svg::render(load_chart(policies, false, nodes, dcs)),
                            std::string("Requests each node coordinated, one bar per policy; the dashed line is each "
                                        "policy's mean over ") +
                                (multi_dc ? "the nodes of each datacenter (grey rules separate the datacenters)"
                                          : "the nodes") +
                                ". A bar far above the line is a hot coordinator." + notes);
  body += figure("fig-replica-load", svg::render(load_chart(policies, true, nodes, dcs)),
                 std::string("Replica reads and writes each node served, one bar per policy, with each policy's mean") +
                     (multi_dc ? " per datacenter." : ".") + notes);
  return section("sec-load", "Per-node load", body);
}

std::string latency_section(const std::vector<PolicyRuns>& policies) {
  svg::LineChart c;
  c.id = "chart-latency-percentiles";
  c.title = "Latency by percentile (all measured operations)";
  c.x_label = "percentile (log scale of 1 / (1 - p))";
  c.y_label = "latency (ms)";
  c.x_scale = svg::XScale::Percentile;
  c.width = 1300;
  c.height = 420;
  std::string notes;
  for (const auto& p : policies) {
    LatencyHistogram merged;
    for (const Json* r : p.runs) {
      const double mean_ms = r->contains("/latency_ms/mean"_json_pointer) ? (*r)["/latency_ms/mean"_json_pointer].get<double>() : 0;
      if (r->contains("histogram")) merged.merge(histogram_from_report((*r)["histogram"], mean_ms));
    }
    svg::Series s;
    s.name = p.name;
    // 0 to 99.99 % in 0.025 steps of log10(1 / (1 - p)): dense where the tail bends.
    for (int i = 0; i <= 160; ++i) {
      const double pct = 100.0 - 100.0 / std::pow(10.0, i * 0.025);
      s.x.push_back(pct);
      s.y.push_back(to_ms(merged.percentile(pct)));
    }
    notes += fmt::format("{}: {} ops{}, p99.99 {} ms, max {} ms. ", p.name, merged.count(), seeds_note(p),
                         svg::short_number(to_ms(merged.percentile(99.99))), svg::short_number(to_ms(merged.max())));
    c.series.push_back(std::move(s));
  }
  return section("sec-latency", "Latency percentiles",
                 figure("fig-latency-percentiles", svg::render(c),
                        "HDR-style percentile curves from each report's latency histogram (bucket midpoints, within "
                        "0.4 % of the recorded values); replicate seeds are merged. " + notes));
}

namespace {

double num_at(const Json& r, const char* ptr) {
  const Json::json_pointer p(ptr);
  return r.contains(p) && r[p].is_number() ? r[p].get<double>() : 0.0;
}

// Calls fn(x, len, point) for each timeline point of a report, x the middle of the point's span in
// scenario time (the window's start plus the point's t_s) and len its length: the last interval
// may be cut short by the end of the window. Slivers under 5 % of an interval are left out.
template <class F>
void for_each_point(const Json& r, F fn) {
  const double iv = num_at(r, "/timeline/interval_s");
  const double start = num_at(r, "/simulated_s/window_start");
  const double window = num_at(r, "/simulated_s/window");
  if (!(iv > 0) || !r.contains("/timeline/points"_json_pointer)) return;
  for (const auto& pt : r["/timeline/points"_json_pointer]) {
    const double t = pt.value("t_s", 0.0);
    const double len = window > t ? std::min(iv, window - t) : iv;
    if (len < iv * 0.05) continue;
    fn(start + t + len / 2, len, pt);
  }
}

// The scenario's events (timeline.events) as chart markers: "n3 down", "n7, n8 join", ...
std::vector<svg::Marker> event_markers(const Json& r) {
  std::vector<svg::Marker> out;
  if (!r.contains("/timeline/events"_json_pointer)) return out;
  for (const auto& e : r["/timeline/events"_json_pointer]) {
    std::vector<std::string> nodes;
    for (const auto& n : e.value("nodes", Json::array())) nodes.push_back(n.is_string() ? n.get<std::string>() : n.dump());
    const std::string who = fmt::format("{}", fmt::join(nodes, ", "));
    const std::string kind = e.value("event", std::string("?"));
    std::string what = kind;
    if (kind == "up") what = "up (restart)";
    else if (kind == "slow") {
      what = "slow x" + svg::short_number(e.value("factor", 1.0));
      if (e.contains("shard")) what += " on shard " + e["shard"].dump();  // a shard-pinned slow fault
    }
    else if (kind == "slow_end") what = "slow ends";
    else if (kind == "pause_end") what = "pause ends";
    else if (kind == "add_node") what = nodes.size() > 1 ? "join" : "joins";
    else if (kind == "remove_node") what = "removed";
    else if (kind == "kill") what = "killed";
    else if (kind == "restart") what = "restarts (cache emptied)";
    out.push_back({e.value("at_s", 0.0), who + " " + what + " (" + svg::short_number(e.value("at_s", 0.0)) + " s)"});
  }
  // faults.driver_detection "driver": when the driver marked a node down or up, and what told it.
  if (r.contains("/driver_detection/events"_json_pointer)) {
    for (const auto& e : r["/driver_detection/events"_json_pointer]) {
      const double at = e.value("at_s", 0.0);
      out.push_back({at, fmt::format("driver: {} {} by {} ({} s)", e.value("node", std::string("?")),
                                     e.value("state", std::string("?")), e.value("by", std::string("?")),
                                     svg::short_number(at))});
    }
    std::stable_sort(out.begin(), out.end(), [](const svg::Marker& a, const svg::Marker& b) { return a.x < b.x; });
  }
  return out;
}

// What stands in for a chart with too few points to draw a line.
std::string too_few_points(std::size_t points, const Json& r) {
  return fmt::format(R"(<p class="note few-points">Only {} timeline point{} (interval {} s, measurement window {} s): too )"
                     R"(few to draw a line. Remove <code>report.timeline_interval_s</code> (the interval then follows )"
                     R"(the window) or lower it, or run longer.</p>)",
                     points, points == 1 ? "" : "s", svg::short_number(num_at(r, "/timeline/interval_s")),
                     svg::short_number(num_at(r, "/simulated_s/window")));
}

constexpr std::size_t kMinPoints = 3;

std::size_t most_points(const svg::LineChart& c) {
  std::size_t n = 0;
  for (const auto& s : c.series) n = std::max(n, s.x.size());
  return n;
}

const char* kTimeAxis = "simulated time since the scenario began (s)";

// One line per node of the timeline field `field` (a value per node per point, null where a node
// has none) up to svg::kDistinctSeries nodes, each in its own colour and dash; beyond that two
// lines per datacenter, its extreme node (the highest with `highest`, else the lowest, named by
// `extreme`) and its mean per node, so the lines stay distinguishable. A value is scaled by `scale`
// and, with `per_second`, divided by the point's length.
void per_node_series(svg::LineChart& c, const Json& r, const char* field, bool highest, const char* extreme,
                     double scale, bool per_second) {
  const Json& nodes = r["nodes"];
  const bool grouped = nodes.size() > svg::kDistinctSeries;
  const auto groups = dc_groups(node_dcs(r));
  if (!grouped)
    for (std::size_t n = 0; n < nodes.size(); ++n) c.series.push_back({nodes[n].value("id", std::string("?")), {}, {}, {}, false, "", ""});
  else
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::string col(svg::color(g));
      c.series.push_back({std::get<2>(groups[g]) + " " + extreme + " node", {}, {}, {}, false, col, "none"});
      c.series.push_back({std::get<2>(groups[g]) + " mean per node", {}, {}, {}, false, col, "8 4"});
    }
  for_each_point(r, [&](double x, double len, const Json& pt) {
    if (!pt.contains(field) || pt[field].size() != nodes.size()) return;
    const Json& v = pt[field];
    // In the order the two charts always computed them: (scale x y) / len, scale x sum / k.
    auto value = [&](double y) { return per_second ? scale * y / len : scale * y; };
    if (!grouped) {
      for (std::size_t n = 0; n < nodes.size(); ++n)
        if (v[n].is_number()) {
          c.series[n].x.push_back(x);
          c.series[n].y.push_back(value(v[n].get<double>()));
        }
      return;
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto& [first, last, dc] = groups[g];
      double sum = 0, ext = 0;
      std::size_t k = 0;
      for (std::size_t n = first; n <= last; ++n)
        if (v[n].is_number()) {
          const double y = v[n].get<double>();
          ext = k == 0 ? y : highest ? std::max(ext, y) : std::min(ext, y);
          sum += y;
          ++k;
        }
      if (k == 0) continue;
      c.series[2 * g].x.push_back(x);
      c.series[2 * g].y.push_back(value(ext));
      c.series[2 * g + 1].x.push_back(x);
      const double kk = static_cast<double>(k);
      c.series[2 * g + 1].y.push_back(per_second ? value(sum / kk) : scale * sum / kk);
    }
  });
}

// Requests served per node over time (timeline[].coordinator_ops) of one report; beyond
// svg::kDistinctSeries nodes, each datacenter's busiest node and mean.
svg::LineChart node_requests_chart(const Json& r, const std::string& policy, std::size_t index) {
  svg::LineChart c;
  c.id = fmt::format("chart-node-requests-{}", index);
  c.title = "Requests served per node: " + policy;
  c.y_label = "coordinator requests (per s)";
  c.x_label = kTimeAxis;
  c.width = 1300;
  c.height = 340;
  c.markers = event_markers(r);
  if (r.contains("nodes")) per_node_series(c, r, "coordinator_ops", true, "busiest", 1, true);
  return c;
}

// cluster.cache: each node's cache hit rate over time (timeline[].cache_hit_rate) of one report;
// beyond svg::kDistinctSeries nodes, each datacenter's lowest node and mean. Empty (no series)
// without a cache.
svg::LineChart node_cache_chart(const Json& r, const std::string& policy, std::size_t index) {
  svg::LineChart c;
  c.id = fmt::format("chart-node-cache-{}", index);
  c.title = "Cache hit rate per node: " + policy;
  c.y_label = "replica reads hitting the cache (%)";
  c.x_label = kTimeAxis;
  c.width = 1300;
  c.height = 340;
  c.y_max = 100;
  c.markers = event_markers(r);
  if (r.contains("nodes") && r.contains("cache")) per_node_series(c, r, "cache_hit_rate", false, "lowest", 100, false);
  return c;
}

}  // namespace

std::string timeline_section(const std::vector<PolicyRuns>& policies) {
  svg::LineChart tput, p99;
  tput.id = "chart-throughput-time";
  tput.title = "Throughput over simulated time";
  tput.y_label = "throughput (op/s)";
  p99.id = "chart-p99-time";
  p99.title = "p99 latency over simulated time";
  p99.y_label = "p99 latency (ms)";
  for (auto* c : {&tput, &p99}) {
    c->x_label = kTimeAxis;
    c->width = 1300;
    c->height = 340;
  }
  std::string seeds;
  const Json* first = nullptr;  // the events and the window start are the scenario's: the same in every report
  for (const auto& p : policies) {
    if (p.runs.empty()) continue;
    const Json& r = *p.runs.front();
    if (!first) first = &r;
    if (p.runs.size() > 1) seeds += fmt::format(" {}: seed {}.", p.name, r.value("seed", std::uint64_t{0}));
    svg::Series a, b;
    a.name = b.name = p.name;
    for_each_point(r, [&](double x, double len, const Json& pt) {
      const double ops = pt.value("ops", 0.0);
      a.x.push_back(x);
      a.y.push_back(ops / len);
      if (ops > 0) {
        b.x.push_back(x);
        b.y.push_back(pt.value("p99_ms", 0.0));
      }
    });
    tput.series.push_back(std::move(a));
    p99.series.push_back(std::move(b));
  }
  if (!first) return "";
  tput.markers = p99.markers = event_markers(*first);
  log_axis_beyond_20x(p99);
  std::string note = seeds.empty() ? "" : " Policies with several seeds show one of them:" + seeds;
  note += fmt::format(" Time counts from the start of the scenario; the measurement window starts at {} s.",
                      svg::short_number(num_at(*first, "/simulated_s/window_start")));
  if (!tput.markers.empty()) note += " Dashed red lines mark the scenario's events (faults, nodes joining or leaving).";
  auto chart = [&](const char* id, const svg::LineChart& c, const std::string& caption) {
    const std::size_t n = most_points(c);
    return figure(id, n < kMinPoints ? too_few_points(n, *first) : svg::render(c), caption);
  };
  std::string body = chart("fig-throughput-time", tput,
                           "Completed operations per second in each timeline interval, plotted at its middle." + note);
  body += chart("fig-p99-time", p99, "p99 latency of the operations completed in each interval." + note);
  // Requests served per node: one chart per policy, one scale for all of them (a policy's chart
  // must not look as busy as another's at half the load), the chart users of scylladb#19107 read
  // the imbalance from.
  std::vector<std::pair<std::size_t, svg::LineChart>> per_node;
  double top = 0;
  for (std::size_t pi = 0; pi < policies.size(); ++pi) {
    const auto& p = policies[pi];
    if (p.runs.empty()) continue;
    svg::LineChart c = node_requests_chart(*p.runs.front(), p.name, pi);
    for (const auto& s : c.series)
      for (double y : s.y) top = std::max(top, y);
    if (most_points(c) > 0) per_node.emplace_back(pi, std::move(c));
  }
  for (auto& [pi, c] : per_node) {
    c.y_max = top;
    const auto& p = policies[pi];
    const bool grouped = c.series.size() > 0 && c.series.front().name.ends_with(" busiest node");
    body += chart(fmt::format("fig-node-requests-{}", pi).c_str(), c,
                  "Attempts each node received as coordinator, per second of each timeline interval (" + p.name +
                      (p.runs.size() > 1 ? ", one seed" : "") + ")" +
                      (grouped ? fmt::format("; over {} nodes, each datacenter's busiest node (solid) and its mean per "
                                             "node (dashed)", svg::kDistinctSeries)
                               : "") +
                      ". Every policy's chart has the same scale." + note);
  }
  // cluster.cache: each node's hit rate over time, one chart per policy (reports without a cache
  // have no cache_hit_rate points: no chart).
  for (std::size_t pi = 0; pi < policies.size(); ++pi) {
    const auto& p = policies[pi];
    if (p.runs.empty()) continue;
    const svg::LineChart c = node_cache_chart(*p.runs.front(), p.name, pi);
    if (most_points(c) == 0) continue;
    body += chart(fmt::format("fig-node-cache-{}", pi).c_str(), c,
                  "Share of each node's replica reads (data and digest) that found their partition in its cache, "
                  "per timeline interval (" + p.name + (p.runs.size() > 1 ? ", one seed" : "") + ")." + note);
  }
  return section("sec-timeline", "Over time", body);
}

std::string mean_ci(double mean, double ci) {
  if (!(ci > 0)) return svg::short_number(mean);
  // Both in the mean's unit prefix: "149.5k ± 1.5k", not "149.5k ± 1513".
  const double a = std::fabs(mean);
  const double scale = a >= 1e6 ? 1e6 : a >= 1e4 ? 1e3 : 1;
  if (scale == 1) return svg::short_number(mean) + " ± " + svg::short_number(ci);
  const char* unit = scale == 1e6 ? "M" : "k";
  return svg::short_number(mean) + " ± " + svg::short_number(ci / scale) + unit;
}

void log_axis_beyond_20x(svg::LineChart& c) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& s : c.series)
    for (double y : s.y)
      if (y > 0) lo = std::min(lo, y), hi = std::max(hi, y);
  if (!(hi > 20 * lo)) return;
  c.y_scale = svg::YScale::Log;
  if (!c.y_label.empty() && c.y_label.back() == ')') c.y_label.insert(c.y_label.size() - 1, ", log scale");
  else c.y_label += " (log scale)";
}

}  // namespace html
}  // namespace lbsim
