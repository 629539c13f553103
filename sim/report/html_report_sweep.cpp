// The sweep sections of the HTML report: one line chart per metric against the swept parameter,
// one line per policy (and per value of any further swept parameter), with 95 % CI error bars.
#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "sim/report/aggregate.hpp"
#include "sim/report/html_report_sections.hpp"
#include "sim/report/svg.hpp"

namespace lbsim::html {

using Json = nlohmann::json;

namespace {

// "latency_ms.p99" -> "latency p99 (ms)": readable axis titles with units.
std::string metric_label(const std::string& id) {
  static const std::map<std::string, std::string> known{
      {"throughput_ops_s", "throughput (op/s)"},
      {"errors.total", "errors (ops)"},
      {"client.cpu_utilization", "client CPU utilization (%)"},
      {"client.shared_rng_cpu_fraction", "shared RNG share of client CPU (%)"},
  };
  if (auto it = known.find(id); it != known.end()) return it->second;
  if (id.rfind("latency_ms.", 0) == 0) {
    std::string p = id.substr(11);
    if (p == "p999") p = "p99.9";
    return "latency " + p + " (ms)";
  }
  if (id.rfind("imbalance.", 0) == 0) {
    std::string rest = id.substr(10);
    std::replace(rest.begin(), rest.end(), '.', ' ');
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"max_over_mean", "max/mean (× mean)"},
                                   {"cov", "CoV (unitless)"}, {"gini", "Gini (unitless)"}})
      if (const auto pos = rest.find(from); pos != std::string::npos) rest.replace(pos, from.size(), to);
    return rest;
  }
  return id;
}

// The factor from a metric's JSON unit to its chart's: the CPU fractions are shown as percentages,
// as the text report prints them.
double metric_scale(const std::string& id) {
  return id == "client.cpu_utilization" || id == "client.shared_rng_cpu_fraction" ? 100.0 : 1.0;
}

std::string value_text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// j[key] when it is an object, else an empty object: a reference that outlives a range-for
// (iterating `j.value(key, {}).items()` would iterate a destroyed temporary).
const Json& member(const Json& j, const char* key) {
  static const Json empty = Json::object();
  return j.is_object() && j.contains(key) && j[key].is_object() ? j[key] : empty;
}

}  // namespace

std::string sweep_section(const Json& sweep, std::size_t index) {
  const std::string scenario = sweep.contains("/scenario/name"_json_pointer) ? value_text(sweep["/scenario/name"_json_pointer]) : "?";
  std::vector<std::string> params;
  if (sweep.contains("parameters"))
    for (const auto& p : sweep["parameters"]) params.push_back(value_text(p));
  const Json points = sweep.value("points", Json::array());
  if (params.empty() && !points.empty())
    for (const auto& [k, v] : member(points.front(), "values").items()) params.push_back(k);
  // Parameters with a single value across the grid are constants: named in the note, not plotted.
  // The x axis is the first parameter that varies; further varying ones split the lines.
  std::vector<std::string> varying, constant;
  for (const auto& p : params) {
    std::vector<std::string> seen;
    for (const auto& pt : points) {
      const std::string v = value_text(member(pt, "values").value(p, Json()));
      if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
    }
    if (seen.size() > 1) varying.push_back(p);
    else constant.push_back(p + "=" + (seen.empty() ? "?" : seen.front()));
  }
  if (varying.empty() && !params.empty()) varying.push_back(params.front());
  const std::string xparam = varying.empty() ? "point" : varying.front();
  // Policy (line) order: the sweep's "policies" list when present, else by name.
  std::vector<std::string> policy_order;
  if (sweep.contains("policies") && sweep["policies"].is_array())
    for (const auto& p : sweep["policies"]) policy_order.push_back(value_text(p));
  auto policy_rank = [&](const std::string& key) {
    for (std::size_t i = 0; i < policy_order.size(); ++i)
      if (key == policy_order[i] || key.rfind(policy_order[i] + ", ", 0) == 0) return i;
    return policy_order.size();
  };

  // X values: numeric when every point's value is a number, else categories in order of appearance.
  bool numeric = true;
  std::vector<std::string> categories;
  for (const auto& pt : points) {
    const Json v = member(pt, "values").value(xparam, Json());
    numeric = numeric && v.is_number();
    if (std::find(categories.begin(), categories.end(), value_text(v)) == categories.end()) categories.push_back(value_text(v));
  }
  auto x_of = [&](const Json& pt) {
    const Json v = member(pt, "values").value(xparam, Json());
    if (numeric) return v.get<double>();
    return static_cast<double>(std::find(categories.begin(), categories.end(), value_text(v)) - categories.begin());
  };
  double xmin = 0, xmax = 0;
  bool first = true;
  for (const auto& pt : points)
    if (numeric) {
      const double x = x_of(pt);
      xmin = first ? x : std::min(xmin, x);
      xmax = first ? x : std::max(xmax, x);
      first = false;
    }
  const svg::XScale scale = !numeric ? svg::XScale::Category
                            : (xmin > 0 && xmax / xmin >= 16) ? svg::XScale::Log
                                                              : svg::XScale::Linear;

  // Series key: policy, plus the values of the other swept parameters.
  auto series_key = [&](const Json& pt, const std::string& policy) {
    std::string key = policy;
    for (std::size_t i = 1; i < varying.size(); ++i)
      key += ", " + varying[i] + "=" + value_text(member(pt, "values").value(varying[i], Json()));
    return key;
  };
  std::vector<std::string> metric_ids;
  for (const auto& id : aggregate_metric_ids()) {
    bool nonzero = false;
    for (const auto& pt : points)
      for (const auto& [pol, body] : member(pt, "policies").items()) {
        const Json m = member(body, "metrics").value(id, Json());
        nonzero = nonzero || (m.is_object() && m.value("mean", 0.0) != 0);
      }
    if (nonzero) metric_ids.push_back(id);
  }

  std::string body = fmt::format(
      R"(<p class="note">Scenario <b>{}</b>; swept: {}{}; {} grid points; {} seed(s) per point. Error bars: 95 % CI (Student t). Metrics that are zero everywhere are left out.</p>)",
      svg::escape(scenario), svg::escape(fmt::format("{}", fmt::join(varying, ", "))),
      constant.empty() ? "" : svg::escape(fmt::format("; fixed: {}", fmt::join(constant, ", "))), points.size(),
      svg::escape(sweep.contains("seeds") ? value_text(sweep["seeds"]) : "?"));
  body += R"(<div class="grid2">)";
  const std::string scope = imbalance_label_suffix(sweep_imbalance_scopes(sweep));
  for (const auto& id : metric_ids) {
    std::vector<std::string> keys;
    std::map<std::string, std::vector<std::array<double, 3>>> data;  // key -> (x, mean, ci95)
    for (const auto& pt : points)
      for (const auto& [pol, pbody] : member(pt, "policies").items()) {
        const Json m = member(pbody, "metrics").value(id, Json());
        if (!m.is_object()) continue;
        const std::string key = series_key(pt, pol);
        if (!data.count(key)) keys.push_back(key);
        data[key].push_back({x_of(pt), metric_scale(id) * m.value("mean", 0.0), metric_scale(id) * m.value("ci95", 0.0)});
      }
    std::sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
      return std::pair(policy_rank(a), a) < std::pair(policy_rank(b), b);
    });
    svg::LineChart c;
    std::string slug = id;
    std::replace(slug.begin(), slug.end(), '.', '-');
    c.id = fmt::format("chart-sweep-{}-{}", index, slug);
    // The imbalance metrics are the headline over the DCs that coordinate: named with several DCs.
    const std::string label = metric_label(id) + (id.rfind("imbalance.", 0) == 0 ? scope : "");
    c.title = label + " vs " + xparam;
    c.x_label = xparam + (scale == svg::XScale::Log ? " (log scale)" : "");
    c.y_label = label;
    c.x_scale = scale;
    c.categories = categories;
    c.x_ticks_at_data = numeric;
    c.width = 640;
    c.height = 330;
    for (const auto& key : keys) {
      auto rows = data[key];
      std::sort(rows.begin(), rows.end());
      svg::Series s;
      s.name = key;
      s.markers = true;
      for (const auto& r : rows) {
        s.x.push_back(r[0]);
        s.y.push_back(r[1]);
        s.err.push_back(r[2]);
      }
      c.series.push_back(std::move(s));
    }
    if (id.rfind("latency_ms.", 0) == 0) log_axis_beyond_20x(c);
    body += figure(fmt::format("fig-sweep-{}-{}", index, slug), svg::render(c), "");
  }
  // p99 against throughput: each series' points joined in the order of the swept value, the curve
  // capacity planning reads (where latency turns up as load grows).
  {
    svg::LineChart c;
    c.id = fmt::format("chart-sweep-{}-p99-vs-throughput", index);
    c.title = "p99 latency vs throughput";
    c.x_label = "throughput (op/s)";
    c.y_label = "latency p99 (ms)";
    std::vector<std::string> keys;
    std::map<std::string, std::vector<std::array<double, 3>>> data;  // key -> (swept x, throughput, p99)
    for (const auto& pt : points)
      for (const auto& [pol, pbody] : member(pt, "policies").items()) {
        const Json t = member(pbody, "metrics").value("throughput_ops_s", Json());
        const Json q = member(pbody, "metrics").value("latency_ms.p99", Json());
        if (!t.is_object() || !q.is_object()) continue;
        const std::string key = series_key(pt, pol);
        if (!data.count(key)) keys.push_back(key);
        data[key].push_back({x_of(pt), t.value("mean", 0.0), q.value("mean", 0.0)});
      }
    std::sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
      return std::pair(policy_rank(a), a) < std::pair(policy_rank(b), b);
    });
    for (const auto& key : keys) {
      auto rows = data[key];
      std::sort(rows.begin(), rows.end());
      svg::Series sr;
      sr.name = key;
      sr.markers = true;
      for (const auto& r : rows) {
        sr.x.push_back(r[1]);
        sr.y.push_back(r[2]);
      }
      c.series.push_back(std::move(sr));
    }
    log_axis_beyond_20x(c);
    if (!c.series.empty())
      body += figure(fmt::format("fig-sweep-{}-p99-vs-throughput", index), svg::render(c),
                     "Each point is one grid point (mean over seeds), joined in the order of " + svg::escape(xparam) + ".");
  }
  body += "</div>";
  return section(fmt::format("sec-sweep-{}", index), fmt::format("Sweep {}: {} over {}", index, scenario, xparam), body);
}

}  // namespace lbsim::html
