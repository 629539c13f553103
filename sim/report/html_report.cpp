// The HTML report page: input loading, the scenario summary, the compare and aggregate tables,
// and the page around the chart sections (html_report_charts.cpp, html_report_sweep.cpp).
#include "sim/report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/core/json_reader.hpp"
#include "sim/report/report_shape.hpp"
#include "sim/report/aggregate.hpp"
#include "sim/report/compare.hpp"
#include "sim/report/html_report_sections.hpp"
#include "sim/report/report_json.hpp"
#include "sim/report/svg.hpp"

namespace lbsim {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using svg::escape;

namespace {

enum class Kind { Report, Aggregate, Sweep, Other };

Kind kind_of(const Json& j) {
  if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string()) return Kind::Other;
  const std::string s = j["schema"].get<std::string>();
  if (s == kAggregateSchema) return Kind::Aggregate;
  if (s == kSweepSchema) return Kind::Sweep;
  // Any report version: compare_reports refuses (or, with --force, warns about) foreign versions.
  if (s.rfind("lbsim.report/", 0) == 0 && j.contains("policy")) return Kind::Report;
  return Kind::Other;
}

void add(ReportInputs& in, Json j, Kind k) {
  if (k == Kind::Report) in.reports.push_back(std::move(j));
  else if (k == Kind::Aggregate) in.aggregates.push_back(std::move(j));
  else if (k == Kind::Sweep) in.sweeps.push_back(std::move(j));
}

std::string text_of(const Json& j, const char* ptr) {
  const Json::json_pointer p(ptr);
  if (!j.contains(p)) return "?";
  const Json& v = j[p];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

double num_of(const Json& j, const char* ptr) {
  const Json::json_pointer p(ptr);
  return j.contains(p) && j[p].is_number() ? j[p].get<double>() : 0.0;
}

// A policy spec as one readable line: {"type":"TokenAware","ordering":"RANDOM","child":{...}} ->
// "TokenAware(RANDOM, DCAwareRoundRobin(local_dc=dc1))". Scalars first, nested policies last.
std::string spec_text(const Json& s) {
  if (!s.is_object()) return s.is_string() ? s.get<std::string>() : s.dump();
  std::vector<std::string> args, nested;
  for (const auto& [k, v] : s.items()) {
    if (k == "type") continue;
    if (v.is_object()) nested.push_back(spec_text(v));
    else if (k == "ordering" && v.is_string()) args.push_back(v.get<std::string>());
    else args.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
  }
  args.insert(args.end(), nested.begin(), nested.end());
  const std::string name = s.contains("type") && s["type"].is_string() ? s["type"].get<std::string>() : "?";
  return args.empty() ? name : fmt::format("{}({})", name, fmt::join(args, ", "));
}

const char* kCss = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;color:#1d1d1f;
  background:#f6f6f4;margin:0;padding:24px 32px;max-width:1360px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:0 0 12px;border-bottom:1px solid #ddd;padding-bottom:4px}
nav{margin:8px 0 16px;font-size:14px}nav a{margin-right:14px;color:#0b5cad}
.report-section{background:#fff;border:1px solid #e2e2e2;border-radius:6px;padding:16px 20px;margin:0 0 20px}
figure{margin:0 0 18px}figcaption{font-size:13px;color:#555;margin-top:4px;max-width:1300px}
svg.chart{max-width:100%;height:auto;display:block}
figure{overflow-x:auto}
table{display:block;overflow-x:auto;max-width:100%}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(600px,1fr));gap:8px 20px}
table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}thead th{background:#f0f0ee}
td.sig{background:#fff3cd;font-weight:600}th.spec{text-align:left}td.spec{text-align:left;font-family:ui-monospace,monospace;font-size:12px;max-width:520px}
tr.hot td{background:#fdecea}h3{font-size:15px;margin:12px 0 6px}
.note{font-size:13px;color:#555}.warn{color:#9a3412}.swatch{display:inline-block;width:10px;height:10px;margin-right:6px;border-radius:2px}
)";

std::vector<html::PolicyRuns> group(const std::vector<Json>& reports, const std::vector<std::string>& order) {
  std::vector<html::PolicyRuns> out;
  for (const auto& name : order) {
    html::PolicyRuns p{name, {}};
    for (const auto& r : reports)
      if (text_of(r, "/policy/name") == name) p.runs.push_back(&r);
    std::stable_sort(p.runs.begin(), p.runs.end(), [](const Json* a, const Json* b) {
      return a->value("seed", std::uint64_t{0}) < b->value("seed", std::uint64_t{0});
    });
    out.push_back(std::move(p));
  }
  return out;
}

std::string summary_section(const Comparison& c, const std::vector<html::PolicyRuns>& policies, const ReportInputs& in) {
  std::string b = fmt::format(R"(<p>Scenario <b>{}</b>: {} run report(s) of {} polic{}.</p>)", escape(c.scenario),
                              in.reports.size(), policies.size(), policies.size() == 1 ? "y" : "ies");
  b += "<table><thead><tr><th>policy</th><th class=\"spec\">spec</th><th>seeds</th><th>nodes</th><th>measured ops</th>"
       "<th>window (s)</th><th>throughput (op/s)</th><th>client CPU</th></tr></thead><tbody>";
  std::set<std::string> warnings;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const auto& p = policies[i];
    if (p.runs.empty()) continue;
    const Json& r = *p.runs.front();
    std::vector<std::string> seeds;
    double ops = 0, tput = 0, cpu = 0;
    for (const Json* x : p.runs) {
      seeds.push_back(text_of(*x, "/seed"));
      ops += num_of(*x, "/ops/measured");
      tput += num_of(*x, "/throughput_ops_s");
      cpu += num_of(*x, "/client/cpu_utilization");  // a fraction in the report; a percentage here, as in the text
      if (x->contains("warnings"))
        for (const auto& w : (*x)["warnings"]) warnings.insert(p.name + ": " + (w.is_string() ? w.get<std::string>() : w.dump()));
    }
    const double n = static_cast<double>(p.runs.size());
    // The number of seeds, each seed named: "1 (seed 5)", "3 (seeds 1, 2, 3)".
    const std::string seed_cell = fmt::format("{} ({} {})", seeds.size(), seeds.size() == 1 ? "seed" : "seeds",
                                              seeds.size() <= 6 ? fmt::format("{}", fmt::join(seeds, ", "))
                                                                : seeds.front() + " … " + seeds.back());
    b += fmt::format(
        R"(<tr><td><span class="swatch" style="background:{}"></span>{}</td><td class="spec">{}</td><td>{}</td>)"
        R"(<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>)",
        svg::color(i), escape(p.name), escape(spec_text(r.contains("/policy/spec"_json_pointer) ? r["/policy/spec"_json_pointer] : Json())), escape(seed_cell),
        r.contains("nodes") ? r["nodes"].size() : 0, svg::short_number(ops / n), svg::short_number(num_of(r, "/simulated_s/window")),
        svg::short_number(tput / n), fmt::format("{:.1f}%", 100 * cpu / n));
  }
  b += "</tbody></table>";
  for (const auto& w : c.warnings) b += R"(<p class="warn">warning: )" + escape(w) + "</p>";
  for (const auto& w : warnings) b += R"(<p class="warn">run warning: )" + escape(w) + "</p>";
  return html::section("sec-summary", "Scenario summary", b);
}

std::string compare_section(const Comparison& c) {
  std::string b = "<table><thead><tr><th>metric</th>";
  for (std::size_t p = 0; p < c.policies.size(); ++p)
    b += fmt::format("<th>{}{}{}</th>", escape(c.policies[p]), p == 0 ? " (baseline)" : "",
                     c.replicates[p] > 1 ? fmt::format(" n={}", c.replicates[p]) : "");
  b += "</tr></thead><tbody>";
  const auto& metrics = c.metrics;
  for (std::size_t m = 0; m < metrics.size() && m < c.cells.size(); ++m) {
    b += fmt::format("<tr><td>{}{}</td>", escape(metrics[m].name), metrics[m].unit.empty() ? "" : " (" + escape(metrics[m].unit) + ")");
    for (std::size_t p = 0; p < c.policies.size(); ++p) {
      const Cell& x = c.cells[m][p];
      // Imbalance ratios (no unit) sit near 1: three decimals, or 1.005 and 1.000 would look alike.
      std::string t = !metrics[m].unit.empty() ? html::mean_ci(x.value.mean, x.value.half_width)
                      : x.value.half_width > 0 ? fmt::format("{:.3f} ± {:.3f}", x.value.mean, x.value.half_width)
                                               : fmt::format("{:.3f}", x.value.mean);
      if (p > 0) t += std::isnan(x.ratio) ? " (n/a)" : fmt::format(" ({:.3f}{})", x.ratio, x.significant ? "*" : "");
      b += fmt::format(R"(<td{}>{}</td>)", x.significant ? R"( class="sig")" : "", escape(t));
    }
    b += "</tr>";
  }
  b += "</tbody></table><p class=\"note\">Ratio to the baseline in parentheses; * and shading: significant, Welch's "
       "t-test p &lt; 0.05 (needs at least 2 seeds per policy); ± is the 95 % confidence interval (Student t). "
       "Imbalance rows are over the datacenters that coordinate (named in the row when there are several).</p>";
  for (const auto& n : c.notes) b += "<p class=\"note\">" + escape(n) + "</p>";
  return html::section("sec-compare", "Comparison", b);
}

std::string aggregates_section(std::vector<const Json*> aggs) {
  std::sort(aggs.begin(), aggs.end(), [](const Json* a, const Json* b) {
    return std::pair(text_of(*a, "/scenario/name"), text_of(*a, "/policy/name")) <
           std::pair(text_of(*b, "/scenario/name"), text_of(*b, "/policy/name"));
  });
  std::string b = "<table><thead><tr><th>metric</th>";
  for (const Json* a : aggs)
    b += fmt::format("<th>{} · {} n={}</th>", escape(text_of(*a, "/scenario/name")), escape(text_of(*a, "/policy/name")),
                     a->contains("seeds") && (*a)["seeds"].is_array() ? (*a)["seeds"].size() : 0);
  b += "</tr></thead><tbody>";
  // The imbalance rows are the headline over the DCs that coordinate: named with several DCs.
  std::vector<std::string> scopes;
  for (const Json* a : aggs) scopes.push_back(a->value("imbalance_scope", std::string()));
  const std::string scope = imbalance_label_suffix(scopes);
  for (const auto& id : aggregate_metric_ids()) {
    std::string row = "<tr><td>" + escape(id + (id.rfind("imbalance.", 0) == 0 ? scope : "")) + "</td>";
    bool any = false;
    for (const Json* a : aggs) {
      const Json m = a->value("metrics", Json::object()).value(id, Json());
      any = any || m.is_object();
      row += "<td>" + (m.is_object() ? escape(html::mean_ci(m.value("mean", 0.0), m.value("ci95", 0.0))) : "") + "</td>";
    }
    if (any) b += row + "</tr>";
  }
  b += "</tbody></table><p class=\"note\">Mean ± 95 % confidence interval (Student t) over each aggregate's seeds.</p>";
  return html::section("sec-aggregates", "Replicate aggregates", b);
}

std::uint64_t u64_of(const Json& j, const char* ptr) {
  const Json::json_pointer p(ptr);
  return j.contains(p) && j[p].is_number_unsigned() ? j[p].get<std::uint64_t>() : 0;
}

// Per node and policy (first seed): the work served, the work shed unexecuted, time-averaged
// utilization and queue. A node at 95 % utilization or more, or one that shed work, is flagged.
std::string nodes_section(const std::vector<html::PolicyRuns>& policies) {
  std::string b;
  for (const auto& p : policies) {
    if (p.runs.empty() || !p.runs.front()->contains("nodes")) continue;
    const Json& r = *p.runs.front();
    b += fmt::format("<h3>{} <span class=\"note\">(seed {})</span></h3>", escape(p.name), escape(text_of(r, "/seed")));
    b += "<table class=\"nodes\"><thead><tr><th>node</th><th>dc</th><th>rack</th><th>coordinator</th><th>replica reads</th>"
         "<th>replica writes</th><th>dropped coordinator</th><th>dropped reads</th><th>dropped writes</th>"
         "<th>cross-shard hops</th><th>busy rejections</th><th>utilization</th><th>mean queue</th></tr></thead><tbody>";
    for (const auto& n : r["nodes"]) {
      const double util = num_of(n, "/utilization");
      const std::uint64_t dc = u64_of(n, "/dropped/coordinator"), dr = u64_of(n, "/dropped/reads"),
                          dw = u64_of(n, "/dropped/writes");
      const bool saturated = util >= 0.95, shed = dc + dr + dw > 0;
      std::string flag = saturated ? " saturated" : "";
      if (shed) flag += " shedding";
      b += fmt::format(R"(<tr{}><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>)"
                       R"(<td>{}</td><td>{}</td><td>{}</td><td>{:.1f} %</td><td>{}</td></tr>)",
                       flag.empty() ? "" : R"( class="hot")", escape(text_of(n, "/id")),
                       flag.empty() ? "" : "<span class=\"warn\"> &#9888;" + escape(flag) + "</span>",
                       escape(text_of(n, "/dc")), escape(text_of(n, "/rack")), u64_of(n, "/coordinator_ops"),
                       u64_of(n, "/replica_reads"), u64_of(n, "/replica_writes"), dc, dr, dw,
                       u64_of(n, "/cross_shard_hops"), u64_of(n, "/busy_rejections"), 100 * util,
                       svg::short_number(num_of(n, "/mean_queue")));
    }
    b += "</tbody></table>";
    // Imbalance within each datacenter when there are several: a remote DC that never coordinates
    // makes the all-node figure meaningless for the local nodes.
    if (r.contains("imbalance_by_dc") && r["imbalance_by_dc"].is_object() && r["imbalance_by_dc"].size() > 1) {
      b += "<table class=\"imbalance-dc\"><thead><tr><th>datacenter</th><th>coordinator max/mean</th>"
           "<th>coordinator CoV</th><th>replica max/mean</th><th>replica CoV</th></tr></thead><tbody>";
      // null: the DC had no such work (a DC that never coordinates has no coordinator imbalance).
      auto cell = [](const Json& v, const char* ptr) {
        const Json::json_pointer at(ptr);
        return v.contains(at) && v[at].is_number() ? fmt::format("{:.3f}", v[at].get<double>()) : std::string("-");
      };
      for (const auto& [dc, v] : r["imbalance_by_dc"].items())
        b += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", escape(dc),
                         cell(v, "/coordinator/max_over_mean"), cell(v, "/coordinator/cov"),
                         cell(v, "/replica/max_over_mean"), cell(v, "/replica/cov"));
      b += "</tbody></table>";
    }
  }
  if (b.empty()) return "";
  b += "<p class=\"note\">Utilization and mean queue are time averages over the measurement window. Dropped: work "
       "that expired in a node's queue and was shed unexecuted (<code>timeouts.shed_expired</code>). &#9888; marks a "
       "node at 95 % utilization or more, or one that shed work.</p>";
  return html::section("sec-nodes", "Per-node work", b);
}

}  // namespace

namespace html {

std::string figure(const std::string& id, const std::string& svg_text, const std::string& caption) {
  return fmt::format(R"(<figure class="chart-figure" id="{}">{}{}</figure>)", escape(id), svg_text,
                     caption.empty() ? "" : "<figcaption>" + escape(caption) + "</figcaption>");
}

std::string section(const std::string& id, const std::string& title, const std::string& body) {
  return fmt::format(R"(<section class="report-section" id="{}"><h2>{}</h2>{}</section>)", escape(id), escape(title), body);
}

}  // namespace html

ReportInputs load_report_inputs(const std::vector<std::string>& inputs) {
  ReportInputs in;
  struct Found {
    fs::path path;
    Json doc;
  };
  std::vector<Found> reports;
  std::vector<std::pair<fs::path, std::string>> sweep_dirs;  // folder of a sweep file, its scenario
  auto take = [&](const fs::path& f, Json j) {
    const Kind k = kind_of(j);
    if (k == Kind::Report) check_report_shape(j, f.string());
    if (k == Kind::Sweep) check_sweep_shape(j, f.string());
    if (k == Kind::Sweep) sweep_dirs.emplace_back(f.parent_path(), text_of(j, "/scenario/name"));
    if (k == Kind::Report) reports.push_back({f, std::move(j)});
    else add(in, std::move(j), k);
  };
  for (const auto& path : inputs) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      for_each_json_document(path, [&](const std::string& f, Json j) { take(fs::path(f), std::move(j)); });
    } else {
      Json j = jsonin::load_file(path);
      if (kind_of(j) == Kind::Other)
        throw ConfigError(path, fmt::format("not an lbsim report, aggregate or sweep (schema {}; expected {}, {} or {})",
                                            text_of(j, "/schema"), kReportSchema, kAggregateSchema, kSweepSchema));
      take(fs::path(path), std::move(j));
    }
  }
  for (auto& r : reports) {
    bool grid_run = false;
    const std::string file = r.path.lexically_normal().string();
    for (const auto& [folder, scenario] : sweep_dirs) {
      const std::string dir = folder.lexically_normal().string();
      grid_run = grid_run || (text_of(r.doc, "/scenario/name") == scenario && !dir.empty() &&
                              file.compare(0, dir.size() + 1, dir + "/") == 0);
    }
    if (grid_run) {
      ++in.sweep_runs;
    } else {
      in.reports.push_back(std::move(r.doc));
      in.report_files.push_back(file);
    }
  }
  if (in.reports.empty() && in.aggregates.empty() && in.sweeps.empty())
    throw ConfigError(inputs.empty() ? "" : inputs.front(), "no lbsim reports, aggregates or sweeps found");
  return in;
}

std::string render_html_report(const ReportInputs& in, const HtmlReportOptions& opts) {
  std::string title = "lbsim report";
  std::string body, nav;
  auto add_section = [&](const std::string& id, const std::string& label, std::string s) {
    if (s.empty()) return;
    nav += fmt::format(R"(<a href="#{}">{}</a>)", id, escape(label));
    body += s;
  };
  if (!in.reports.empty()) {
    CompareOptions co;
    co.baseline = opts.baseline;
    co.force = opts.force;
    co.files = in.report_files;
    const Comparison c = compare_reports(in.reports, co);
    const auto policies = group(in.reports, c.policies);
    title += ": " + c.scenario;
    add_section("sec-summary", "Summary", summary_section(c, policies, in));
    add_section("sec-compare", "Comparison", compare_section(c));
    add_section("sec-load", "Node load", html::load_section(policies));
    add_section("sec-nodes", "Per node", nodes_section(policies));
    add_section("sec-latency", "Latency", html::latency_section(policies));
    add_section("sec-timeline", "Over time", html::timeline_section(policies));
  }
  if (!in.aggregates.empty()) {
    std::vector<const Json*> aggs;
    for (const auto& a : in.aggregates) aggs.push_back(&a);
    add_section("sec-aggregates", "Aggregates", aggregates_section(aggs));
  }
  // Sweeps in a content order (scenario, then the document text), independent of file names.
  std::vector<const Json*> sweeps;
  for (const auto& s : in.sweeps) sweeps.push_back(&s);
  std::stable_sort(sweeps.begin(), sweeps.end(), [](const Json* a, const Json* b) {
    return std::pair(text_of(*a, "/scenario/name"), a->dump()) < std::pair(text_of(*b, "/scenario/name"), b->dump());
  });
  for (std::size_t i = 0; i < sweeps.size(); ++i)
    add_section(fmt::format("sec-sweep-{}", i + 1), fmt::format("Sweep {}", i + 1), html::sweep_section(*sweeps[i], i + 1));

  std::string intro = fmt::format("Read {} run report(s), {} aggregate(s) and {} sweep(s)", in.reports.size(),
                                  in.aggregates.size(), in.sweeps.size());
  if (in.sweep_runs) intro += fmt::format("; {} further run reports are the sweeps' grid runs, shown through the sweeps", in.sweep_runs);
  body = fmt::format(R"(<p class="note">{}.</p>)", escape(intro)) + body;

  return fmt::format(R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="lbsim report">
<link rel="icon" href="data:,">
<title>{}</title>
<style>{}</style>
</head>
<body>
<h1>{}</h1>
<nav>{}</nav>{}
</body>
</html>
)",
                     escape(title), kCss, escape(title), nav, body);
}

}  // namespace lbsim
